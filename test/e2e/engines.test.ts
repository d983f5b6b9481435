// The payment in every engine customers pay in (Chromium, WebKit, Firefox; ENGINES picks a subset):
// the shop's QR on a desktop, read by zbarimg off the engine's own screenshot, then paid; the pay
// button on a phone, through the pay page and back to the shop; the script-tag page under its CSP;
// Back to a shop page the engine kept (bfcache); the network lost and found again; a payment the
// service confirms before it is final (a processing status): the confirming screen, then paid.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { en } from '../../widget/strings.js';
import { selectedEngines } from '../engines/engines.mjs';
import { startApp, type App } from './support/app.js';
import { launchEngine, type EngineBrowser, type EnginePage } from './support/engine-page.js';

const run = promisify(execFile);
let app: App;
/** The same app behind a relay whose network the test cuts. */
let cuttable: App;
let shots: string;

before(async () => {
  // Status 6 is the sandbox's processing one (its processingStep fault): never there without the fault.
  [app, cuttable] = await Promise.all([startApp({ env: { BILL_PROCESSING_STATUSES: '6' } }), startApp({ cuttableNetwork: true })]);
  shots = await mkdtemp(join(tmpdir(), 'engine-shots-'));
});
after(async () => {
  await Promise.all([app?.stop(), cuttable?.stop()]);
  if (shots) await rm(shots, { recursive: true, force: true });
});

// Page functions: serialised into the page, so each stands alone.
const part = (name: string) => document.querySelector('bill-checkout')?.shadowRoot?.querySelector(`[part~="${name}"]`) ?? null;
/** The element's retrying line, if it shows one of these texts. */
const retrying = (texts: string[]) => [...document.querySelector('bill-checkout')?.shadowRoot?.querySelectorAll('p') ?? []]
  .map((p) => p.textContent?.trim() ?? '').find((text) => texts.includes(text)) ?? null;
const heading = () => document.querySelector('bill-checkout')?.shadowRoot?.querySelector('[part~="heading"]')?.textContent?.trim() ?? '';
/** The status line when it says `text`, else null. */
const statusSays = (text: string) => document.querySelector('bill-checkout')?.shadowRoot?.querySelector('[part~="status"]')?.textContent?.trim() === text ? text : null;
/** The parts of the card among `names`. */
const partsShown = (names: string[]) => names.filter((name) => document.querySelector('bill-checkout')?.shadowRoot?.querySelector(`[part~="${name}"]`));
/** The bill and token the element keeps for a reload. */
const savedBill = () => Object.keys(sessionStorage).filter((key) => key.startsWith('bill-checkout:'))
  .map((key) => JSON.parse(sessionStorage.getItem(key)!) as { billId?: string; token?: string }).find((saved) => saved.token) ?? null;
const payEnabled = () => document.querySelector<HTMLButtonElement>('#pay:enabled');
const checkoutInStorage = () => JSON.parse(sessionStorage.getItem('northwind:checkout') ?? 'null') as { orderId: string; billId?: string } | null;

/**
 * Records CSP violations and uncaught errors from now on, and CSP reports the engine buffered before
 * (ReportingObserver, where there is one): WebDriver classic cannot run a script before the page's own.
 */
const watchProblems = () => {
  const w = window as unknown as { __problems?: string[] };
  if (w.__problems) return;
  const problems: string[] = (w.__problems = []);
  document.addEventListener('securitypolicyviolation', (e) => problems.push(`csp: ${e.violatedDirective} ${e.blockedURI}`));
  addEventListener('error', (e) => problems.push(`error: ${e.message}`));
  addEventListener('unhandledrejection', (e) => problems.push(`unhandled: ${String(e.reason)}`));
  if ('ReportingObserver' in window) {
    new ReportingObserver((reports) => {
      for (const r of reports) problems.push(`csp report: ${JSON.stringify(r.body)}`);
    }, { types: ['csp-violation'], buffered: true }).observe();
  }
};
const problems = () => (window as unknown as { __problems?: string[] }).__problems ?? ['not watched'];

/** What zbarimg reads off a PNG, as a phone's camera app would off the screen. */
async function decodeQr(png: Buffer, name: string): Promise<string> {
  const file = join(shots, `${name}.png`);
  await writeFile(file, png);
  const { stdout } = await run('zbarimg', ['--quiet', '--raw', file]);
  return stdout.trim();
}

async function withPage(browser: EngineBrowser, size: 'desktop' | 'phone', body: (page: EnginePage) => Promise<void>): Promise<void> {
  const page = await browser.newPage(size);
  try {
    await body(page);
  } finally {
    await page.close();
  }
}

/** The shop at `url` on a desktop with a bill created and its QR shown, problems watched; answers the bill's id. */
async function qrShown(page: EnginePage, url: string): Promise<string> {
  await page.goto(`${url}/`);
  await page.evaluate(watchProblems);
  await page.click(payEnabled);
  await page.waitFor('the QR code', part, 'qr');
  const { billId } = await page.waitFor('the bill in the shop', checkoutInStorage);
  assert.ok(billId, 'the shop knows the bill it created');
  return billId;
}

for (const engine of selectedEngines()) {
  describe(`the payment in ${engine}`, () => {
    let browser: EngineBrowser;
    before(async () => {
      browser = await launchEngine(engine);
    });
    after(() => browser?.close());

    test('QR on a desktop: zbarimg reads the bill URL off the screen; paid shows without a reload', async () => {
      await withPage(browser, 'desktop', async (page) => {
        const billId = await qrShown(page, app.url);

        const read = await decodeQr(await page.screenshot(), `${engine}-qr`);
        assert.equal(read, `${app.sandboxUrl}/pay/${encodeURIComponent(billId)}`, 'the QR code says the bill\'s pay page');

        await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));
        await app.control(billId, 'pay');
        assert.equal(await page.waitFor('the paid heading', heading), en.paid);
        assert.equal(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere), true, 'no reload');
        assert.deepEqual(await page.evaluate(problems), []);
      });
    });

    test('pay button on a phone: through the pay page and back to the shop, the same bill paid', async () => {
      await withPage(browser, 'phone', async (page) => {
        await page.goto(`${app.url}/`);
        await page.click(payEnabled);
        await page.waitFor('the pay button', part, 'pay-button');
        assert.equal(await page.evaluate(part, 'qr'), null, 'a phone is shown the button, not the QR');
        const { orderId, billId } = await page.waitFor('the bill in the shop', checkoutInStorage);

        await page.click(part, 'pay-button');
        await page.waitFor('the pay page', () => location.pathname.includes('/sandbox/pay/') && document.querySelector('button.pay'));
        await page.click(() => document.querySelector('button.pay'));
        // sandbox → the BFF's return route → the shop (RETURN_URL), which shows the same bill.
        await page.waitFor('the shop again', (origin) => location.origin === origin && location.pathname === '/', app.url);
        await page.evaluate(watchProblems);
        assert.equal(await page.waitFor('the paid heading', heading), en.paid);
        assert.equal((await page.evaluate(checkoutInStorage))?.billId, billId, 'the same bill, not a new one');
        const paid = await app.createBill(orderId);
        assert.deepEqual([paid.billId, paid.outcome], [billId, 'paid'], 'the order was paid once, by that bill');
        assert.deepEqual(await page.evaluate(problems), []);
      });
    });

    test('script-tag page under a strict CSP: styled, the QR drawn, paid, no violation', async () => {
      await withPage(browser, 'desktop', async (page) => {
        await page.goto(`${app.url}/plain.html`);
        await page.evaluate(watchProblems);
        await page.waitFor('the QR code', part, 'qr');
        // Styles come as constructed sheets, which `style-src 'self'` allows: an inline <style> would be refused.
        assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('bill-checkout')!.shadowRoot!.querySelector('[part~="base"]')!).display), 'grid');
        const read = await decodeQr(await page.screenshot(), `${engine}-script-tag`);
        const billId = decodeURIComponent(read.split('/pay/')[1] ?? '');
        assert.ok(billId, `zbarimg read "${read}"`);
        await app.control(billId, 'pay');
        assert.equal(await page.waitFor('the paid heading', heading), en.paid);
        assert.deepEqual(await page.evaluate(problems), []);
      });
    });

    test('Back to the shop after the bill was paid elsewhere: the restored page shows paid', async () => {
      await withPage(browser, 'desktop', async (page) => {
        const billId = await qrShown(page, app.url);
        await page.evaluate(() => {
          const w = window as unknown as { kept?: boolean };
          w.kept = false;
          addEventListener('pageshow', (e) => (w.kept = e.persisted));
        });
        // Another page of the shop (the same opener policy: the pay page's differs, and WebKitGTK's
        // WebDriver loses the window on Back across that switch).
        await page.click(() => document.querySelector('a[href="./variants.html"]'));
        await page.waitFor('the variants page', () => location.pathname.endsWith('/variants.html') && document.readyState === 'complete');
        await app.control(billId, 'pay');
        await page.back();
        await page.waitFor('the shop', () => location.pathname === '/' && document.readyState === 'complete');
        assert.equal(await page.waitFor('the paid heading', heading), en.paid);
        // Chromium and WebKit keep the page and restore it (pageshow, persisted): the element starts
        // over at once. Firefox ESR loads it anew here, and the shop resumes the bill from storage.
        const kept = await page.evaluate(() => (window as unknown as { kept?: boolean }).kept ?? null);
        assert.equal(kept, engine === 'firefox' ? null : true, 'restored from the back/forward cache');
      });
    });

    test('a payment the service confirms first: the confirming screen, nothing to pay with, then paid', async () => {
      await withPage(browser, 'desktop', async (page) => {
        const billId = await qrShown(page, app.url);
        await app.faults({ processingStep: true });
        try {
          // Processing at the service, without a callback: the BFF learns it by asking (its watchers' refreshes).
          await app.control(billId, 'pay');
          await page.waitFor('the confirming line', statusSays, en.confirming);
          assert.deepEqual(await page.evaluate(partsShown, ['qr', 'pay-button', 'copy-button', 'toggle-button', 'cancel-button', 'countdown', 'heading']), []);
          assert.deepEqual(await page.evaluate(problems), []);
          // The page without JavaScript says the same, with no pay link.
          const saved = await page.evaluate(savedBill);
          assert.equal(saved?.billId, billId);
          const status = await (await fetch(`${app.url}/api/bills/${encodeURIComponent(billId)}/status.html?token=${encodeURIComponent(saved.token!)}`)).text();
          assert.ok(status.includes(en.confirming) && !status.includes('class="pay"'), status);

          await app.control(billId, 'confirm');
          assert.equal(await page.waitFor('the paid heading', heading), en.paid);
          assert.equal(await page.evaluate(statusSays, en.confirming), null);
        } finally {
          await app.faults({ processingStep: false });
        }
      });
    });

    test('network lost while paying: a retrying line, nothing final, then paid once it is back', async () => {
      const network = cuttable.network!;
      await withPage(browser, 'desktop', async (page) => {
        const billId = await qrShown(page, cuttable.url);
        network.drop();
        try {
          // Each engine's EventSource fails differently (an error, then its own reconnects): the
          // element closes it on the first error and polls, so all of them say the same thing.
          await page.waitFor('a retrying line', retrying, [en.unreachable, en.reconnecting]);
          await cuttable.control(billId, 'pay');
          assert.equal(await page.evaluate(heading), '', 'nothing final while cut off');
        } finally {
          network.restore();
        }
        assert.equal(await page.waitFor('the paid heading', heading), en.paid);
        assert.equal(await page.evaluate(retrying, [en.unreachable, en.reconnecting]), null, 'the retrying line is gone');
      });
    });
  });
}
