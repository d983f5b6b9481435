// The drop-in loaded by a merchant page on another origin, as from a CDN: /bill-checkout.js, and
// the versioned immutable URL pinned with its SRI hash, each completing a payment in Chromium.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { orderTicket } from '../../server/domain/orders/order-ticket.js';
import { dropInRelease } from '../../server/process/static-files.js';
import { ORDER_TICKET_SECRET, startApp, type App } from './support/app.js';
import { context, DESKTOP, finalOutcome, launch, open, shownBill } from './support/browser.js';

const ROOT = resolve(import.meta.dirname, '../..');

let app: App;
let browser: Browser;
let shop: Server;
let shopOrigin = '';
/** The merchant's page for the next request to /checkout: set by each test. */
let page = '';

before(async () => {
  shop = createServer((req, res) => {
    res.writeHead(req.url === '/checkout' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url === '/checkout' ? page : 'not found');
  });
  await new Promise<void>((ok) => shop.listen(0, '127.0.0.1', ok));
  // Another port is another origin: the BFF and its element are cross-origin to this shop.
  shopOrigin = `http://localhost:${(shop.address() as AddressInfo).port}`;
  app = await startApp({ env: { ALLOWED_ORIGINS: shopOrigin } });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await app?.stop();
  await new Promise<void>((ok) => shop.close(() => ok()));
});

async function checkoutPage(script: string, orderId: string): Promise<string> {
  const ticket = await orderTicket(orderId, ORDER_TICKET_SECRET, 600_000);
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>Merchant shop</title>
<main><h1>Checkout</h1>
<bill-checkout endpoint="${app.url}/api" order-id="${orderId}" order-ticket="${ticket}" mode="qr"></bill-checkout></main>
${script}</html>`;
}

async function pays(orderId: string, script: string): Promise<string[]> {
  page = await checkoutPage(script, orderId);
  const ctx = await context(browser, DESKTOP);
  try {
    const { page: tab, problems } = await open(ctx, `${shopOrigin}/checkout`);
    await tab.locator('bill-checkout [part~="qr"]').waitFor({ timeout: 15_000 });
    const bill = await shownBill(tab);
    await app.control(bill.billId, 'pay');
    assert.equal(await finalOutcome(tab), 'paid');
    return problems;
  } finally {
    await ctx.close();
  }
}

test('a page on another allowed origin loads /bill-checkout.js from the BFF and completes a payment', async () => {
  const problems = await pays('demo-mug-cors1', `<script type="module" src="${app.url}/bill-checkout.js"></script>`);
  assert.deepEqual(problems, []);
});

test('the versioned URL with its integrity hash (from dist/bill-checkout.sri.txt) loads and pays; a wrong hash is refused', async () => {
  const code = await readFile(join(ROOT, 'dist/bill-checkout.js'));
  const { versionedName, integrity } = dropInRelease(code);
  assert.equal((await readFile(join(ROOT, 'dist/bill-checkout.sri.txt'), 'utf8')).trim(), integrity, 'the build printed the hash the server answers for');
  assert.equal(await readFile(join(ROOT, 'dist', versionedName), 'utf8'), code.toString(), 'the build wrote the versioned copy');
  const pinned = (hash: string) =>
    `<script type="module" src="${app.url}/${versionedName}" integrity="${hash}" crossorigin="anonymous"></script>`;
  const problems = await pays('demo-mug-cors2', pinned(integrity));
  assert.deepEqual(problems, []);

  // A hash that does not match: the browser does not run the script, so the element never defines.
  page = await checkoutPage(pinned(`sha384-${Buffer.alloc(48).toString('base64')}`), 'demo-mug-cors3');
  const ctx = await context(browser, DESKTOP);
  try {
    const tab = await ctx.newPage();
    const refused = tab.waitForEvent('console', (m) => /integrity/i.test(m.text()));
    await tab.goto(`${shopOrigin}/checkout`);
    await refused;
    assert.equal(await tab.evaluate(() => customElements.get('bill-checkout') === undefined), true);
  } finally {
    await ctx.close();
  }
});
