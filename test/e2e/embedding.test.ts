// The element the ways a merchant embeds it: button mode, a theme, one script tag, React 19.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type App } from './support/app.js';
import { billEvents, context, DESKTOP, finalOutcome, launch, open, shownBill } from './support/browser.js';

let app: App;
let browser: Browser;

before(async () => {
  app = await startApp();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await app?.stop();
});

test('variants page: button mode on a desktop, and a theme set only through custom properties', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const { page, problems } = await open(ctx, `${app.url}/variants.html`);
    const button = page.locator('#button-slot bill-checkout [part~="pay-button"]');
    await button.waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('#button-slot bill-checkout [part~="qr"]').count(), 0);
    // Through the BFF's pay link, which sends the browser on to billUrl.
    assert.match(await button.getAttribute('href') ?? '', /\/api\/bills\/[^/]+\/pay\?token=/);

    const themed = page.locator('#theme-slot bill-checkout');
    await themed.locator('[part~="qr"]').waitFor({ timeout: 10_000 });
    const look = await themed.locator('[part~="base"]').evaluate((el) => {
      const s = getComputedStyle(el);
      return { background: s.backgroundColor, color: s.color, font: s.fontFamily };
    });
    assert.equal(look.background, 'rgb(16, 22, 43)');
    assert.equal(look.color, 'rgb(243, 240, 255)');
    assert.match(look.font, /Georgia/);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('one script tag: the page loads only /bill-checkout.js and the element pays', async () => {
  const res = await fetch(`${app.url}/bill-checkout.js`);
  assert.equal(res.status, 200, 'server/main.ts serves dist/bill-checkout.js at /bill-checkout.js');
  assert.match(res.headers.get('content-type') ?? '', /javascript/);

  const ctx = await context(browser, DESKTOP);
  try {
    const scripts: string[] = [];
    ctx.on('request', (r) => { if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname); });
    const { page, problems } = await open(ctx, `${app.url}/plain.html`);
    await page.locator('bill-checkout [part~="qr"]').waitFor({ timeout: 10_000 });
    assert.deepEqual(scripts, ['/bill-checkout.js']);
    const bill = await shownBill(page);
    await app.control(bill.billId, 'pay');
    assert.equal(await finalOutcome(page), 'paid');
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('script-tag page: every load carries a fresh order and its ticket from the server', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const loads = [await open(ctx, `${app.url}/plain.html`), await open(ctx, `${app.url}/plain.html`)];
    const orders = [];
    for (const { page } of loads) {
      const el = page.locator('bill-checkout');
      orders.push({ orderId: await el.getAttribute('order-id'), ticket: await el.getAttribute('order-ticket') });
    }
    for (const { orderId, ticket } of orders) {
      assert.match(orderId ?? '', /^demo-poster-[a-z0-9]+$/, 'the placeholder was filled with an order id');
      assert.match(ticket ?? '', /^\d+\.[A-Za-z0-9_-]{43}$/, 'and with its ticket');
    }
    assert.notEqual(orders[0]!.orderId, orders[1]!.orderId, 'two visits, two orders');

    // Each element started its own bill with its ticket; the second one pays.
    const [first, second] = await Promise.all(loads.map(({ page }) => shownBill(page)));
    assert.notEqual(first!.billId, second!.billId);
    await app.control(second!.billId, 'pay');
    assert.equal(await finalOutcome(loads[1]!.page), 'paid');
    assert.equal(await statusOf(loads[0]!.page), 'pending', 'the other visit is not paid by it');
    for (const { problems } of loads) assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

/** The outcome of the last bill-status event the page's element sent. */
async function statusOf(page: Page): Promise<string> {
  const events = (await billEvents(page)).filter((e) => e.type === 'bill-status');
  return events[events.length - 1]?.outcome ?? 'none';
}

test('React 19: properties reach the element and its custom events reach React', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const { page, problems } = await open(ctx, `${app.url}/react.html`);
    const el = page.locator('#root bill-checkout');
    await el.locator('[part~="qr"]').waitFor({ timeout: 10_000 });

    // orderId, orderTicket and cancellable were given as properties, not attributes.
    const props = await el.evaluate((node) => {
      const e = node as HTMLElement & { orderId?: string; orderTicket?: string; cancellable?: boolean };
      return {
        orderId: e.orderId, orderTicket: e.orderTicket, cancellable: e.cancellable,
        attributes: [e.getAttribute('order-id'), e.getAttribute('order-ticket')],
      };
    });
    assert.deepEqual(props.attributes, [null, null]);
    assert.match(props.orderId ?? '', /^demo-mug-[a-z0-9]+$/, "an order the shop's server minted");
    assert.match(props.orderTicket ?? '', /^\d+\.[A-Za-z0-9_-]{43}$/);
    assert.equal(props.cancellable, true);
    assert.match(await page.locator('#root .order-id').innerText(), new RegExp(`Order ${props.orderId} `));
    assert.equal(await el.locator('[part~="cancel-button"]').count(), 1);

    const log = page.locator('#event-log li');
    await log.filter({ hasText: 'bill-created: pending' }).waitFor();
    const bill = await shownBill(page);
    await app.control(bill.billId, 'pay');
    await page.locator('#react-final', { hasText: 'paid' }).waitFor({ timeout: 20_000 });
    const lines = await log.allInnerTexts();
    assert.deepEqual(lines.filter((l) => l.startsWith('bill-final')), ['bill-final: paid']);
    assert.equal(lines[0], 'bill-created: pending');
    assert.equal((await billEvents(page)).filter((e) => e.type === 'bill-final').length, 1);

    // "New order": another order from the server, and a new bill for it.
    await page.getByRole('button', { name: 'New order' }).click();
    await page.locator('#root .order-id').filter({ hasNotText: props.orderId! }).waitFor();
    await log.filter({ hasText: 'bill-created: pending' }).waitFor();
    const next = await el.evaluate((node) => (node as HTMLElement & { orderId?: string }).orderId);
    assert.match(next ?? '', /^demo-mug-[a-z0-9]+$/);
    assert.notEqual(next, props.orderId);
    assert.notEqual((await shownBill(page)).billId, bill.billId);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});
