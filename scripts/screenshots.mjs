// Screenshots of every state of the demo at desktop and phone sizes, into docs/screenshots/.
// Run: node --import tsx scripts/screenshots.mjs   (starts the app like the end-to-end tests do)
/* global document, sessionStorage -- in the page functions of otherEngines() */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN, startApp } from '../test/e2e/support/app.ts';
import { context, DESKTOP, finalOutcome, launch, open, PHONE, RETRYING, shownBill, TEXT } from '../test/e2e/support/browser.ts';
import { launchEngine } from '../test/e2e/support/engine-page.ts';
import { startMerchantWebhook } from '../test/e2e/support/merchant-webhook.ts';

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
const SIZES = { desktop: DESKTOP, phone: PHONE };

const checkout = 'bill-checkout';
const waitPending = (page) => page.locator(`${checkout} [part~="countdown"]`).waitFor({ timeout: 15_000 });

/** Each flow brings a fresh page to one or more states and calls snap(name) at each. */
const flows = {
  async shop({ page, snap }) {
    // Enabled once the shop's server has given the order.
    await page.locator('#pay:enabled').waitFor();
    await snap('shop-cart');
  },
  async pending({ page, snap }) {
    await page.click('#pay');
    await waitPending(page);
    await snap('shop-pending');
  },
  async paid({ page, app, snap }) {
    await page.click('#pay');
    const bill = await shownBill(page);
    await app.control(bill.billId, 'pay');
    await finalOutcome(page);
    await snap('shop-paid');
  },
  async failed({ page, app, snap }) {
    await page.click('#pay');
    const bill = await shownBill(page);
    await app.control(bill.billId, 'decline');
    await finalOutcome(page);
    await snap('shop-failed');
  },
  async cancelled({ page, snap }) {
    await page.click('#pay');
    await waitPending(page);
    await page.locator(`${checkout} [part~="cancel-button"]`).click();
    await page.locator(`${checkout} [part~="cancel-confirm"]`).waitFor();
    await snap('shop-cancel-confirm');
    await page.locator(`${checkout} [part~="cancel-confirm"]`).getByRole('button', { name: TEXT.yes }).click();
    await finalOutcome(page);
    await snap('shop-cancelled');
  },
  async vietnamese({ page, app, snap }) {
    await page.goto(`${app.url}/?locale=vi`);
    await page.locator('#pay:enabled').click();
    await waitPending(page);
    await snap('shop-pending-vi');
  },
  async dark({ page, snap }) {
    // The system in dark: the shop follows it (prefers-color-scheme), and the card the shop.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.click('#pay');
    await waitPending(page);
    await snap('shop-pending-dark');
  },
  async serverRendered({ page, app, snap }) {
    // Issue 34: checkout.html's fragment in a plain merchant page, as the HTML draws it before the
    // drop-in's script (none here): the QR code on a desktop, the pay link on a phone.
    const phone = page.viewportSize().width < 600;
    const bill = await app.createBill(`demo-mug-ssr${phone ? 'phone' : 'desk'}${Date.now().toString(36)}`);
    const fragment = await fetch(`${app.url}/api/bills/${encodeURIComponent(bill.billId)}/checkout.html?token=${encodeURIComponent(bill.token)}&mode=${phone ? 'button' : 'qr'}&locale=en`);
    // A page of its own (about:blank), not the shop's document and its CSP.
    await page.goto('about:blank');
    await page.setContent(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{margin:0;font:16px/1.5 system-ui,sans-serif}main{max-width:28rem;margin:0 auto;padding:1rem}</style></head>
<body><main><h1>Your order</h1><p>Mug, paid by QR or by the pay link.</p>${await fragment.text()}</main></body></html>`);
    await snap('server-rendered');
  },
  async otherDevice({ page, snap }) {
    // The phone that scanned the desktop's QR code: its return, without the create's cookie.
    await page.click('#pay');
    const bill = await shownBill(page);
    await page.context().clearCookies();
    await page.goto(bill.billUrl);
    await page.click('button.pay');
    await page.waitForURL((u) => u.pathname.startsWith('/api/hooks/return/'));
    await snap('return-other-device');
  },
  async reconnecting({ page, app, snap }) {
    await page.click('#pay');
    await waitPending(page);
    app.network.drop();
    await page.locator(`${checkout} p`, { hasText: RETRYING }).first().waitFor({ timeout: 30_000 });
    await snap('shop-reconnecting');
    app.network.restore();
  },
  async payPage({ page, snap }) {
    await page.click('#pay');
    const bill = await shownBill(page);
    await page.goto(bill.billUrl);
    await snap('sandbox-pay-page');
  },
  async variants({ page, app, snap }) {
    await page.goto(`${app.url}/variants.html`);
    await page.locator('#theme-slot [part~="qr"]').waitFor({ timeout: 15_000 });
    await page.locator('#button-slot [part~="pay-button"]').waitFor();
    await snap('variants');
  },
  async plain({ page, app, snap }) {
    if ((await fetch(`${app.url}/bill-checkout.js`)).status !== 200) {
      console.warn('skipped plain page: the BFF does not serve /bill-checkout.js');
      return;
    }
    await page.goto(`${app.url}/plain.html`);
    await waitPending(page);
    await snap('script-tag');
  },
  async react({ page, app, snap }) {
    await page.goto(`${app.url}/react.html`);
    const bill = await shownBill(page);
    await app.control(bill.billId, 'pay');
    await page.locator('#react-final').waitFor({ timeout: 15_000 });
    await snap('react');
  },
  async admin({ page, app, merchant, snap }) {
    // A paid order, a declined one and one waiting: the list shows each outcome, how it was learned and the notice.
    const made = [];
    for (const order of ['demo-mug-shot1', 'demo-tee-shot2', 'demo-poster-shot3']) made.push(await app.createBill(order));
    for (const [bill, action] of [[made[0], 'pay'], [made[1], 'decline']]) {
      if (bill.outcome === 'pending') await app.control(bill.billId, action);
      await merchant.notice((n) => n.body.data.billId === bill.billId);
    }
    await page.goto(`${app.url}/admin`);
    await page.fill('#token', ADMIN_TOKEN);
    await page.click('#token-form button[type=submit]');
    await page.locator('#bills tbody tr[data-bill-id]').first().waitFor();
    await page.locator(`#bills tr[data-bill-id="${made[0].billId}"] .learned`).waitFor();
    await page.locator('#customers[aria-busy="false"]').waitFor();
    await snap('admin');
    await page.locator(`#bills tr[data-bill-id="${made[0].billId}"] button.history`).click();
    await page.locator('#history-dialog section.notice table.log').waitFor();
    await snap('admin-history');
  },
};

/** Countdown over with no final status yet (the element's own polls held), then expired. */
async function checkingThenExpired({ page, snap }) {
  await page.route(/\/api\/bills\/[^/]+\/events/, (route) => route.abort());
  let holding = false;
  const held = [];
  await page.route(/\/api\/bills\/[^/?]+\?/, (route) => {
    if (holding && route.request().method() === 'GET') held.push(route);
    else void route.continue();
  });
  await page.click('#pay');
  await shownBill(page);
  holding = true;
  await page.locator(`${checkout} [part~="status"]`, { hasText: TEXT.checking }).waitFor({ timeout: 20_000 });
  await snap('shop-checking');
  holding = false;
  for (const route of held.splice(0)) await route.continue();
  await finalOutcome(page);
  await snap('shop-expired');
}

async function run(browser, app, name, flow, merchant) {
  for (const [size, options] of Object.entries(SIZES)) {
    const ctx = await context(browser, options);
    try {
      const { page } = await open(ctx, `${app.url}/`);
      const snap = async (shot) => {
        await page.evaluate('document.fonts.ready.then(() => true)');
        // Phones: the element, not the cart above it; the bills as cards, not the token form above them.
        if (size === 'phone' && shot.startsWith('shop-') && shot !== 'shop-cart') {
          await page.locator('#pay-title').evaluate((h) => h.scrollIntoView({ block: 'start' }));
        }
        if (size === 'phone' && shot === 'admin') {
          await page.locator('#bills').evaluate((t) => t.scrollIntoView({ block: 'start' }));
        }
        await page.screenshot({ path: `${OUT}${shot}-${size}.png` });
        console.log(`docs/screenshots/${shot}-${size}.png`);
      };
      await flow({ page, app, merchant, snap });
    } catch (error) {
      console.error(`${name} (${size}) failed: ${error instanceof Error ? error.message : error}`);
      process.exitCode = 1;
    } finally {
      await ctx.close();
    }
  }
}

/** The shop pending and paid in WebKit and Firefox, at both sizes: `shop-{pending,paid}-{engine}-{size}.png`. */
async function otherEngines(app) {
  const part = (name) => document.querySelector('bill-checkout')?.shadowRoot?.querySelector(`[part~="${name}"]`) ?? null;
  for (const engine of ['webkit', 'firefox']) {
    const browser = await launchEngine(engine);
    try {
      for (const size of Object.keys(SIZES)) {
        const page = await browser.newPage(size);
        const snap = async (shot) => {
          await page.evaluate(() => document.fonts.ready.then(() => true));
          if (size === 'phone') await page.evaluate(() => document.getElementById('pay-title')?.scrollIntoView({ block: 'start' }));
          await writeFile(`${OUT}${shot}-${engine}-${size}.png`, await page.screenshot());
          console.log(`docs/screenshots/${shot}-${engine}-${size}.png`);
        };
        try {
          await page.goto(`${app.url}/`);
          await page.click(() => document.querySelector('#pay:enabled'));
          await page.waitFor('the countdown', part, 'countdown');
          await snap('shop-pending');
          const { billId } = await page.waitFor('the bill', () => JSON.parse(sessionStorage.getItem('northwind:checkout') ?? '{}').billId ? JSON.parse(sessionStorage.getItem('northwind:checkout')) : null);
          await app.control(billId, 'pay');
          await page.waitFor('the paid heading', part, 'heading');
          await snap('shop-paid');
        } catch (error) {
          console.error(`${engine} (${size}) failed: ${error instanceof Error ? error.message : error}`);
          process.exitCode = 1;
        } finally {
          await page.close();
        }
      }
    } finally {
      await browser.close();
    }
  }
}

await mkdir(OUT, { recursive: true });
const browser = await launch();
// The merchant's backend, so that the admin page has webhook notices and their delivery logs to show.
const merchant = await startMerchantWebhook();
const app = await startApp({ cuttableNetwork: true, env: merchant.env });
const shortLived = await startApp({ sandbox: { billLifetimeMs: 5000, sweepIntervalMs: 250 } });
try {
  for (const [name, flow] of Object.entries(flows)) await run(browser, app, name, flow, merchant);
  await run(browser, shortLived, 'checking', checkingThenExpired);
  await otherEngines(app);
} finally {
  await browser.close();
  await app.stop();
  await shortLived.stop();
  await merchant.close();
}
