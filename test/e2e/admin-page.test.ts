// The merchant's admin page (admin/, built into dist/admin and served by the BFF at /admin with
// ADMIN_TOKEN set) over the BFF's admin routes: token, order search, filter, paging, sort, stored
// outcome and how it was learned, the bill's history and its notices' delivery logs, replays, the
// webhook endpoint, cancel, bound customers; at 1280 px and on a phone.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import axe from 'axe-core';
import type { Browser, Locator, Page } from 'playwright-core';
import type { AdminBillDetail, NoticeList } from '../../contract/admin.js';
import { ADMIN_STRINGS } from '../../admin/strings.js';
import { ADMIN_TOKEN, startApp, type App } from './support/app.js';
import { context, DESKTOP, launch, open, PHONE } from './support/browser.js';
import { startMerchantWebhook, type MerchantWebhook } from './support/merchant-webhook.js';

const a = ADMIN_STRINGS.en;
const REASON = new RegExp(`^(${Object.values(a.reasons).join('|')}) · \\d`);

let app: App;
let browser: Browser;
let merchant: MerchantWebhook;
const bills: { billId: string; token: string; product: string; orderId: string }[] = [];

async function adminGet<T>(path: string): Promise<T> {
  const res = await fetch(`${app.url}/api/admin/${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(res.status, 200, `GET /api/admin/${path}`);
  return (await res.json()) as T;
}

/**
 * The merchant's backend got the bill's notice (so the bill is final and stored); then the BFF
 * records the delivery, a moment after the merchant answered: read until it has.
 */
async function delivered(billId: string): Promise<void> {
  await merchant.notice((n) => n.body.data.billId === billId && n.status === 200);
  for (let i = 0; i < 200; i++) {
    const detail = await adminGet<AdminBillDetail>(`bills/${encodeURIComponent(billId)}`);
    if (detail.local.notice === 'delivered') return;
  }
  throw new Error(`the delivery of ${billId}'s notice was never recorded`);
}

before(async () => {
  merchant = await startMerchantWebhook();
  app = await startApp({ env: merchant.env });
  browser = await launch();
  // 7 bills: 3 mugs (12.50), 2 tees (24.00), 2 posters (8.75); one mug paid, one tee declined.
  for (const [product, n] of [['mug', 3], ['tee', 2], ['poster', 2]] as const) {
    for (let i = 0; i < n; i++) {
      const orderId = `demo-${product}-admin${i}`;
      bills.push({ ...(await app.createBill(orderId)), product, orderId });
    }
  }
  const mug = bills.find((b) => b.product === 'mug')!;
  const tee = bills.find((b) => b.product === 'tee')!;
  await app.control(mug.billId, 'pay');
  await app.control(tee.billId, 'decline');
  await delivered(mug.billId);
  await delivered(tee.billId);
});
after(async () => {
  await browser?.close();
  await app?.stop();
  await merchant?.close();
});

const rows = (page: Page) => page.locator('#bills tbody tr[data-bill-id]');
const row = (page: Page, billId: string) => rows(page).filter({ has: page.locator(`td:text-is("${billId}")`) });

/** The index of the table's column headed `name`. */
async function column(page: Page, name: string): Promise<number> {
  const index = (await page.locator('#bills thead th').allInnerTexts()).map((t) => t.trim()).indexOf(name);
  assert.ok(index >= 0, `a column headed "${name}"`);
  return index;
}

async function cell(page: Page, billId: string, name: string): Promise<Locator> {
  return row(page, billId).locator('td').nth(await column(page, name));
}

async function useToken(page: Page, value = ADMIN_TOKEN): Promise<void> {
  await page.fill('#token', value);
  await page.click('#token-form button[type=submit]');
}

async function search(page: Page, setup: () => Promise<void>, submit = () => page.click('#query-form button[type=submit]')): Promise<void> {
  await setup();
  const answered = page.waitForResponse((r) => r.url().endsWith('/api/admin/bills'));
  await submit();
  await answered;
  // The response has arrived; wait for the page to have shown it.
  await page.locator('#bills[aria-busy="false"]').waitFor();
}

async function axeViolations(page: Page, scope?: string): Promise<string[]> {
  await page.evaluate(axe.source);
  return page.evaluate(async (where) => {
    const found = await (window as unknown as { axe: typeof axe }).axe.run(where ?? document, { resultTypes: ['violations'] });
    return found.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }, scope);
}

test('admin page: served at /admin from the build, with the pages\' CSP; its scripts and styles load under it', async () => {
  const page = await fetch(`${app.url}/admin`);
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(page.headers.get('content-security-policy') ?? '', /^default-src 'self';/);
  assert.equal(page.headers.get('x-frame-options'), 'SAMEORIGIN');
  const html = await page.text();
  assert.doesNotMatch(html, /Northwind|data:/, 'no demo brand, no data: URL');
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  assert.ok(assets.some((a) => /^\/admin\/assets\/.+\.js$/.test(a)) && assets.some((a) => /^\/admin\/assets\/.+\.css$/.test(a)), assets.join(' '));
  for (const asset of assets) {
    const res = await fetch(`${app.url}${asset}`);
    assert.equal(res.status, 200, asset);
    assert.match(res.headers.get('content-type') ?? '', asset.endsWith('.css') ? /^text\/css/ : /^text\/javascript/, asset);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable', asset);
    await res.body?.cancel();
  }
  assert.equal((await fetch(`${app.url}/admin.html`)).status, 404, 'the demo\'s old address is gone');

  // In a browser: nothing refused by the CSP, no error, the page drawn.
  const ctx = await context(browser, DESKTOP);
  try {
    const { page: shown, problems } = await open(ctx, `${app.url}/admin`);
    await shown.locator('main:not([data-rendering])').waitFor();
    assert.equal(await shown.locator('h1').innerText(), 'Bills');
    assert.equal(await shown.title(), 'bill-checkout: Admin');
    assert.equal(await shown.locator('#token-state').innerText(), 'No token yet: bills are not shown.');
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('admin page: token, filter, paging, sort, stored outcome, merchant notified, cancel', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const { page, problems } = await open(ctx, `${app.url}/admin`);
    assert.equal(await rows(page).count(), 0, 'nothing shown without a token');

    await useToken(page, 'not-the-token');
    await page.locator('#list-error', { hasText: 'refused' }).waitFor();

    await useToken(page);
    await page.locator('#page-info', { hasText: '7 bills' }).waitFor();
    assert.equal(await rows(page).count(), 7);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('bill-checkout:admin-token')), ADMIN_TOKEN);
    assert.equal(await page.locator('#token').inputValue(), '', 'the token is not left in the field');
    assert.equal(await page.locator('#token-state').innerText(), 'A token is set for this tab.');

    // Stored outcome, how it was learned, and the merchant's notice, per row, from the BFF's store.
    const [mug, tee] = [bills[0]!, bills.find((b) => b.product === 'tee')!];
    assert.match(await row(page, mug.billId).innerText(), /Paid[\s\S]*paid/);
    assert.match(await (await cell(page, mug.billId, 'Stored outcome')).locator('.learned').innerText(), REASON);
    assert.equal(await (await cell(page, mug.billId, 'Merchant notified')).innerText(), 'Delivered');
    assert.equal(await (await cell(page, tee.billId, 'Merchant notified')).innerText(), 'Delivered', 'a failed payment is told too');
    // A pending bill has no notice yet: a dash that explains itself, not "no".
    const pendingNotice = await cell(page, bills[1]!.billId, 'Merchant notified');
    assert.equal(await pendingNotice.locator('[aria-hidden=true]').innerText(), '—');
    assert.equal(await pendingNotice.locator('[title]').getAttribute('title'), a.noticeNone);
    assert.equal(await pendingNotice.locator('.visually-hidden').textContent(), a.noticeNone);

    // equal filter on the amount (compared as decimals by the service); money in the currency's digits
    await search(page, async () => {
      await page.selectOption('#filters [name=filterName]', 'billAmount');
      await page.selectOption('#filters [name=matchType]', 'equal');
      await page.fill('#filters [name=filterValue]', '24.00');
    });
    assert.equal(await rows(page).count(), 2);
    for (const b of bills.filter((x) => x.product === 'tee')) {
      assert.equal(await (await cell(page, b.billId, 'Amount')).innerText(), '$24.00');
    }

    // like filter: case-insensitive substring of our merchant references (bc_…)
    await search(page, async () => {
      await page.selectOption('#filters [name=filterName]', 'merchantReference');
      await page.selectOption('#filters [name=matchType]', 'like');
      await page.fill('#filters [name=filterValue]', 'BC');
    });
    assert.equal(await rows(page).count(), 7);

    // paging: 5 a page
    await search(page, async () => {
      await page.fill('#filters [name=filterValue]', '');
      await page.selectOption('#page-size', '5');
    });
    assert.equal(await rows(page).count(), 5);
    assert.match(await page.locator('#page-info').innerText(), /Page 1 of 2 · 7 bills/);
    const firstPage = await rows(page).evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.billId));
    await page.click('#next');
    await page.locator('#page-info', { hasText: 'Page 2 of 2' }).waitFor();
    assert.equal(await rows(page).count(), 2);
    const secondPage = await rows(page).evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.billId));
    assert.equal(new Set([...firstPage, ...secondPage]).size, 7, 'the two pages hold all seven bills');
    assert.ok(await page.locator('#next').isDisabled());

    // sort by amount, both ways
    await search(page, async () => {
      await page.selectOption('#page-size', '10');
      await page.selectOption('#sort-name', 'billAmount');
      await page.selectOption('#sort-order', '1');
    });
    const amount = await column(page, 'Amount');
    assert.equal(await rows(page).first().locator('td').nth(amount).innerText(), '$8.75');
    await search(page, async () => {
      await page.selectOption('#sort-order', '-1');
    });
    assert.equal(await rows(page).first().locator('td').nth(amount).innerText(), '$24.00');

    // cancel: only pending bills offer it; every row offers its history
    assert.equal(await row(page, mug.billId).getByRole('button', { name: /^Cancel/ }).count(), 0, 'a paid bill has no cancel');
    assert.equal(await row(page, mug.billId).getByRole('button', { name: `History of bill ${mug.billId}` }).count(), 1);
    const pending = bills.find((b) => b.product === 'poster')!;
    const cancelled = page.waitForResponse((r) => r.url().includes(`/api/admin/bills/${pending.billId}/cancel`));
    await row(page, pending.billId).getByRole('button', { name: `Cancel bill ${pending.billId}` }).click();
    assert.equal((await cancelled).status(), 200);
    await row(page, pending.billId).filter({ hasText: 'Cancelled' }).waitFor();
    assert.equal(await row(page, pending.billId).getByRole('button', { name: /^Cancel/ }).count(), 0);
    assert.match(await (await cell(page, pending.billId, 'Stored outcome')).locator('.learned').innerText(), REASON);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('admin page: each row names its order, and a duplicate payment is flagged for a refund', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const { page, problems } = await open(ctx, `${app.url}/admin`);
    await useToken(page);
    await page.locator('#page-info', { hasText: '7 bills' }).waitFor();

    // The paid mug's row names the order it paid (the BFF's store, not the service's list).
    const paid = bills[0]!;
    assert.equal((await (await cell(page, paid.billId, 'Order')).innerText()).trim(), paid.orderId);
    assert.equal(await (await cell(page, paid.billId, 'Stored outcome')).locator('.pill').innerText(), 'paid');
    for (const b of bills) assert.equal((await (await cell(page, b.billId, 'Order')).innerText()).trim(), b.orderId);
    assert.equal(await page.getByText('Duplicate payment').count(), 0, 'no duplicate payment here');

    // The same list with the paid bill marked a duplicate payment (the sandbox's one-payment-per-order
    // rule makes a real one hard to come by in a browser test): the row says what to do about it.
    await page.route('**/api/admin/bills', async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { lists: { billId: string; local: { duplicatePayment: boolean } | null }[] };
      for (const r of body.lists) if (r.billId === paid.billId && r.local) r.local.duplicatePayment = true;
      await route.fulfill({ response: res, json: body });
    });
    await search(page, async () => {});
    const badge = (await cell(page, paid.billId, 'Stored outcome')).getByText('Duplicate payment: refund');
    assert.ok(await badge.isVisible(), 'the duplicate payment badge is shown next to the outcome');
    assert.equal(await page.getByText('Duplicate payment').count(), 1, 'only on that row');

    // The table stays accessible with the new column and the badge.
    assert.deepEqual(await axeViolations(page, '#bills'), []);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('admin page: "I paid for order …": found by its order id, its history, its notice replayed', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const { page, problems } = await open(ctx, `${app.url}/admin`);
    await useToken(page);
    await page.locator('#page-info', { hasText: '7 bills' }).waitFor();
    const paid = bills[0]!;

    // Part of an order id finds every bill of the orders that match.
    await search(page, async () => {
      await page.fill('#order-search', 'MUG-admin');
      await page.check('#order-partial');
    });
    assert.deepEqual((await rows(page).evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.billId))).sort(),
      bills.filter((b) => b.product === 'mug').map((b) => b.billId).sort());

    // The whole id, Enter in the box: that order's bill, nothing else.
    const asked = page.waitForRequest((r) => r.url().endsWith('/api/admin/bills'));
    await search(page, async () => {
      await page.uncheck('#order-partial');
      await page.fill('#order-search', paid.orderId);
    }, () => page.press('#order-search', 'Enter'));
    assert.deepEqual((await asked).postDataJSON().filters, [{ name: 'orderId', value: paid.orderId, matchType: 'equal' }]);
    assert.equal(await rows(page).count(), 1);
    assert.match(await page.locator('#page-info').innerText(), /1 bill$/);
    assert.equal(await (await cell(page, paid.billId, 'Order')).innerText(), paid.orderId);
    assert.equal(await (await cell(page, paid.billId, 'Amount')).innerText(), '$12.50');
    assert.equal(await (await cell(page, paid.billId, 'Merchant notified')).innerText(), 'Delivered');
    const learned = await (await cell(page, paid.billId, 'Stored outcome')).locator('.learned').innerText();
    assert.match(learned, REASON);

    // Its history, in a modal dialog named by the bill, focus inside.
    const opener = row(page, paid.billId).getByRole('button', { name: `History of bill ${paid.billId}` });
    const loaded = page.waitForResponse((r) => r.url().endsWith(`/api/admin/bills/${paid.billId}`));
    await opener.click();
    await loaded;
    const dialog = page.getByRole('dialog', { name: `Bill ${paid.billId}` });
    await dialog.waitFor();
    await dialog.locator('#history-body[aria-busy="false"]').waitFor();
    assert.ok(await dialog.evaluate((d) => d.contains(document.activeElement)), 'focus is in the dialog');
    const steps = dialog.locator('table.history tbody tr');
    assert.match(await steps.first().innerText(), /Created/);
    const paidStep = steps.filter({ hasText: 'Status changed' }).filter({ hasText: 'paid' });
    assert.equal(await paidStep.count(), 1, 'one step to paid');
    const paidReason = (await paidStep.locator('td').nth(3).innerText()).trim();
    assert.ok(Object.values(a.reasons).includes(paidReason), `a reason: ${paidReason}`);
    assert.equal(learned.split(' · ')[0], paidReason, 'the row says what the history says');
    assert.match(await dialog.locator('.facts').first().innerText(), new RegExp(`Reference\\s+bc_`));

    // Its webhook notice and delivery log: the merchant's answer as it was.
    const sent = await merchant.notice((n) => n.body.data.billId === paid.billId);
    const notice = dialog.locator(`section.notice[data-notice-id="${sent.id}"]`);
    assert.match(await notice.locator('h4').innerText(), new RegExp(`^Webhook ${sent.id}$`));
    const log = notice.locator('table.log tbody tr');
    assert.equal(await log.count(), 1);
    assert.match(await log.first().innerText(), /^1\s+\S[\s\S]*OK\s+200\s+\d+\sms\s+ok: recorded by the test merchant/);

    // Replayed: the new attempt is in the log, marked, and said in the live region.
    const replayed = page.waitForResponse((r) => r.url().endsWith(`/api/admin/notices/${encodeURIComponent(sent.id)}/replay`));
    await notice.getByRole('button', { name: `Replay notice ${sent.id}` }).click();
    assert.equal((await replayed).status(), 200);
    await dialog.locator('#history-status', { hasText: 'Replayed: attempt 2, HTTP 200.' }).waitFor();
    assert.equal(await log.count(), 2);
    assert.match(await log.nth(1).innerText(), /^2 replay\s[\s\S]*OK\s+200/);
    assert.equal(merchant.received.filter((n) => n.id === sent.id).length, 2, 'the merchant got it again, with the same webhook-id');

    assert.deepEqual(await axeViolations(page), [], 'axe-clean with the dialog open');

    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.ok(await opener.evaluate((b) => b === document.activeElement), 'focus goes back to the History button');
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('admin page: a refused token is forgotten, and the page says so', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    // A token kept from before the BFF's ADMIN_TOKEN was changed.
    await ctx.addInitScript(() => {
      if (!sessionStorage.getItem('seeded')) {
        sessionStorage.setItem('seeded', '1');
        sessionStorage.setItem('bill-checkout:admin-token', 'an-old-token');
      }
    });
    const refusals: number[] = [];
    ctx.on('response', (r) => { if (r.url().includes('/api/admin/') && r.status() === 401) refusals.push(r.status()); });
    const { page, problems } = await open(ctx, `${app.url}/admin`);
    await page.locator('#list-error', { hasText: 'The admin token was refused.' }).waitFor();
    await page.locator('#token-state', { hasText: a.tokenForgotten }).waitFor();
    assert.notEqual(await page.locator('#token-state').innerText(), 'A token is set for this tab.');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('bill-checkout:admin-token')), null);
    assert.ok(refusals.length >= 1);
    assert.equal(await rows(page).count(), 0);

    // Nothing is sent again with it: the next page load has no token to send.
    const before = refusals.length;
    await page.reload();
    await page.locator('#token-state', { hasText: 'No token yet: bills are not shown.' }).waitFor();
    assert.equal(refusals.length, before);

    // A good one works at once.
    await useToken(page);
    await page.locator('#page-info', { hasText: /\d+ bills/ }).waitFor();
    assert.equal(await page.locator('#list-error').innerText(), '');
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('admin page: fits 1280 px without scrolling sideways, and a phone with every action in view', async () => {
  for (const [size, options] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    const ctx = await context(browser, options);
    try {
      const { page, problems } = await open(ctx, `${app.url}/admin`);
      await useToken(page);
      await page.locator('#page-info', { hasText: /\d+ bills/ }).waitFor();
      const width = options.viewport.width;
      const overflow = () => page.evaluate(() => Array.from(document.querySelectorAll('.table-wrap'), (w) => w.scrollWidth - w.clientWidth));
      assert.deepEqual((await overflow()).filter((d) => d > 0), [], `${size}: no table scrolls sideways`);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${size}: nor does the page`);

      const buttons = page.locator('#bills tbody button');
      assert.ok(await buttons.count() >= 7, 'History on every row, Cancel on the pending');
      for (const box of await Promise.all((await buttons.all()).map((b) => b.boundingBox()))) {
        assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${size}: an action button inside the viewport (${JSON.stringify(box)})`);
      }
      if (size === 'desktop') {
        for (const name of ['Time', 'Amount', 'Merchant notified']) {
          const th = page.locator('#bills thead th').nth(await column(page, name));
          const box = await th.boundingBox();
          assert.ok(box && box.x + box.width <= width, `the ${name} column is in view`);
        }
      } else {
        assert.equal(await rows(page).first().evaluate((tr) => getComputedStyle(tr).display), 'block', 'rows are cards');
        // The column's name beside each value, shown to the eye only (CSS alt text '').
        assert.equal(await rows(page).first().locator('td').first().evaluate((td) => getComputedStyle(td, '::before').content), '"Bill" / ""');
      }

      // The history dialog fits too, its buttons in view.
      const paid = bills[0]!;
      await row(page, paid.billId).getByRole('button', { name: `History of bill ${paid.billId}` }).click();
      const dialog = page.getByRole('dialog');
      await dialog.locator('#history-body[aria-busy="false"]').waitFor();
      await dialog.locator('section.notice').first().waitFor();
      assert.ok(await dialog.evaluate((d) => d.scrollWidth <= d.clientWidth), `${size}: the dialog does not scroll sideways`);
      for (const button of await dialog.getByRole('button').all()) {
        await button.scrollIntoViewIfNeeded();
        const box = await button.boundingBox();
        assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${size}: ${await button.innerText()} inside the viewport`);
      }
      assert.deepEqual(await axeViolations(page), [], `${size}: axe-clean, the dialog open`);
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'hidden' });
      assert.deepEqual(await axeViolations(page), [], `${size}: axe-clean`);
      assert.deepEqual(problems, []);
    } finally {
      await ctx.close();
    }
  }
});

test('admin page: webhook deliveries: the endpoint, a 410 disables it, re-enable, failed notices, replay all', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const { page, problems } = await open(ctx, `${app.url}/admin`);
    await useToken(page);
    const endpoint = page.locator('#webhook-endpoint');
    await endpoint.getByText(merchant.url).waitFor();
    assert.match(await endpoint.innerText(), /State\s+Enabled/);
    assert.match(await endpoint.innerText(), /Signing secrets\s+1/);
    await page.locator('#failed-notices tbody', { hasText: 'No failed notices.' }).waitFor();

    // The merchant retires its endpoint (410 Gone) while a notice is replayed: the endpoint is disabled.
    const tee = bills.find((b) => b.product === 'tee')!;
    const sent = await merchant.notice((n) => n.body.data.billId === tee.billId);
    await page.locator('#page-info', { hasText: /\d+ bills/ }).waitFor();
    await row(page, tee.billId).getByRole('button', { name: /^History/ }).click();
    const dialog = page.getByRole('dialog');
    const replay = dialog.getByRole('button', { name: `Replay notice ${sent.id}` });
    await replay.waitFor();
    merchant.answer(410);
    await replay.click();
    await dialog.locator('#history-status', { hasText: /^Replayed: attempt \d+, HTTP 410\.$/ }).waitFor();
    await endpoint.getByRole('button', { name: 'Re-enable' }).waitFor();
    assert.match(await endpoint.innerText(), /Disabled since .+: HTTP 410 Gone/);

    // While it is disabled a replay is refused, and the page says what to do.
    await replay.click();
    await dialog.locator('#history-error', { hasText: a.endpointOff }).waitFor();
    await page.keyboard.press('Escape');
    await page.click('#replay-range button[type=submit]');
    await page.locator('#webhook-error', { hasText: a.endpointOff }).waitFor();

    merchant.answer(200);
    await endpoint.getByRole('button', { name: 'Re-enable' }).click();
    await page.locator('#webhook-result', { hasText: a.reenabled }).waitFor();
    await endpoint.getByText('Enabled').waitFor();
    assert.equal(await endpoint.getByRole('button', { name: 'Re-enable' }).count(), 0);

    // Replay all failed in the range: the answer's count.
    const all = page.waitForResponse((r) => r.url().includes('/api/admin/notices/replay?'));
    await page.click('#replay-range button[type=submit]');
    const query = new URL((await all).url()).searchParams;
    assert.ok(Number(query.get('from')) < Date.now() && Number(query.get('to')) > Date.now(), 'from and to in ms around now');
    await page.locator('#webhook-result', { hasText: /^\d+ notices? replayed\.$/ }).waitFor();

    // A notice that ran out of retries (three days of them: shown here by marking one failed).
    await page.route((u) => u.pathname === '/api/admin/notices' && u.searchParams.get('state') === 'failed', async (route) => {
      const res = await route.fetch({ url: route.request().url().replace('state=failed', 'state=delivered') });
      const body = (await res.json()) as NoticeList;
      body.notices = body.notices.filter((n) => n.id === sent.id).map((n) => ({ ...n, state: 'failed', lastError: 'HTTP 503' }));
      await route.fulfill({ response: res, json: body });
    });
    await page.click('#refresh-notices');
    const failedRow = page.locator(`#failed-notices tbody tr[data-notice-id="${sent.id}"]`);
    await failedRow.waitFor();
    assert.match(await failedRow.innerText(), new RegExp(`${sent.id}\\s+${tee.billId}[\\s\\S]*HTTP 503`));
    const replayedOne = page.waitForResponse((r) => r.url().endsWith(`/api/admin/notices/${encodeURIComponent(sent.id)}/replay`));
    await failedRow.getByRole('button', { name: `Replay notice ${sent.id}` }).click();
    assert.equal((await replayedOne).status(), 200);
    await page.locator('#webhook-result', { hasText: /^Replayed: attempt \d+, HTTP 200\.$/ }).waitFor();
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
  } finally {
    merchant.answer(200);
    await ctx.close();
  }
});

test('admin page: bind a customer by its key, once; the list of bound customers', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const { page, problems } = await open(ctx, `${app.url}/admin`);
    await useToken(page);
    await page.locator('#customers tbody', { hasText: a.noCustomers }).waitFor();
    await page.fill('#bind-form [name=customerKey]', 'cust-ada-1');
    await page.fill('#bind-form [name=name]', 'Ada Lovelace');
    await page.fill('#bind-form [name=email]', 'ada@example.com');
    await page.click('#bind-form button[type=submit]');
    const first = await page.locator('#bind-result', { hasText: 'Bound now: customer id' }).innerText();
    const id = /customer id (\S+)\.$/.exec(first)?.[1];
    assert.ok(id, first);
    await page.locator('#customers tbody tr', { hasText: 'cust-ada-1' }).filter({ hasText: id }).waitFor();

    await page.click('#bind-form button[type=submit]');
    await page.locator('#bind-result', { hasText: `Already bound: the same customer id ${id}; the service was not called.` }).waitFor();
    assert.equal(await page.locator('#customers tbody tr', { hasText: 'cust-ada-1' }).count(), 1);
    assert.deepEqual(await axeViolations(page, '#bind-form, #customers'), []);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});
