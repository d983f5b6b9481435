// The demo shop paying real bills on the embedded sandbox, in Chromium: QR on a desktop, the pay
// button on a phone, decline, cancel, and a reload in the middle of a payment.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startApp, type App } from './support/app.js';
import { billEvents, context, DESKTOP, finalOutcome, launch, open, PHONE, shownBill } from './support/browser.js';

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

const qr = 'bill-checkout [part~="qr"]';

test('QR flow: paying on the pay page in a second tab turns the shop to paid without a reload', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const { page, problems } = await open(ctx, `${app.url}/`);
    await page.click('#pay');
    await page.locator(qr).waitFor({ timeout: 10_000 });
    assert.equal(await page.locator(qr).getAttribute('role'), 'img');
    const bill = await shownBill(page);
    await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));

    const payTab = await ctx.newPage();
    await payTab.goto(bill.billUrl);
    await payTab.click('button.pay');

    assert.equal(await finalOutcome(page), 'paid');
    assert.equal(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere), true, 'no reload');
    const finals = (await billEvents(page)).filter((e) => e.type === 'bill-final');
    assert.deepEqual(finals.map((e) => [e.billId, e.outcome]), [[bill.billId, 'paid']]);
    assert.match(await page.locator('#order-note').innerText(), /paid/);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('button flow on a phone: the button opens the pay page, paying comes back to the shop, paid', async () => {
  const ctx = await context(browser, PHONE);
  try {
    const { page, problems } = await open(ctx, `${app.url}/`);
    await page.click('#pay');
    const button = page.locator('bill-checkout [part~="pay-button"]');
    await button.waitFor({ timeout: 10_000 });
    assert.equal(await page.locator(qr).count(), 0, 'a phone is shown the button, not the QR');
    const bill = await shownBill(page);

    await button.click();
    await page.waitForURL((u) => u.pathname.includes('/sandbox/pay/'));
    await page.click('button.pay');
    // sandbox → the BFF's return route → the shop (RETURN_URL), which asks the BFF again.
    await page.waitForURL((u) => u.origin === app.url && u.pathname === '/');
    assert.equal(await finalOutcome(page), 'paid');
    const events = await billEvents(page);
    assert.ok(events.every((e) => e.billId === bill.billId), 'the same bill, not a new one');
    assert.equal(events.filter((e) => e.type === 'bill-created').length, 0, 'no bill created on return');
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('the device that paid: back from the pay page, the BFF tells it what happened, with no cart', async () => {
  const desktop = await context(browser, DESKTOP);
  const phone = await context(browser, PHONE);
  try {
    const { page, problems } = await open(desktop, `${app.url}/`);
    await page.click('#pay');
    await page.locator(qr).waitFor({ timeout: 10_000 });
    const bill = await shownBill(page);
    const desktopFinal = finalOutcome(page);

    // The phone that scanned the code: a browser of its own, none of the desktop tab's sessionStorage.
    const posts: string[] = [];
    phone.on('request', (r) => { if (r.method() === 'POST') posts.push(new URL(r.url()).pathname); });
    const { page: phonePage, problems: phoneProblems } = await open(phone, bill.billUrl);
    // The return names the outcome the BFF knows as the browser passes by, and the callback's
    // requery may land a moment later: the pay page's redirect waits until the desktop shows paid.
    await phonePage.route('**/sandbox/pay/*/pay', async (route) => {
      const paid = await route.fetch({ maxRedirects: 0 });
      await desktopFinal;
      await route.fulfill({ response: paid });
    });
    await phonePage.click('button.pay');
    assert.equal(await desktopFinal, 'paid', 'the tab that started the bill turns paid');

    // pay page → the BFF's return route, which this browser did not start the bill in: the BFF's
    // own page, in the phone's language, with what happened, and no shop behind it.
    await phonePage.waitForURL((u) => u.origin === app.url && u.pathname.startsWith('/api/hooks/return/'));
    assert.equal((await phonePage.locator('h1').innerText()).trim(), 'Payment received');
    const body = await phonePage.locator('body').innerText();
    assert.match(body, /go back to the device where you started/);
    assert.match(body, /Amount[\s\S]*Reference/);
    assert.equal(await phonePage.locator('script').count(), 0, 'no script');
    assert.equal(await phonePage.locator('bill-checkout, #cart, #pay').count(), 0, 'no cart, no checkout');
    assert.deepEqual((await billEvents(phonePage)).filter((e) => e.type === 'bill-created'), []);
    assert.deepEqual(posts.filter((p) => p.startsWith('/api/') || p.startsWith('/demo/')), [], 'no order, no bill made there');

    const finals = (await billEvents(page)).filter((e) => e.type === 'bill-final');
    assert.deepEqual(finals.map((e) => [e.billId, e.outcome]), [[bill.billId, 'paid']]);
    assert.deepEqual([...problems, ...phoneProblems], []);
  } finally {
    await phone.close();
    await desktop.close();
  }
});

test('back from a payment page with an unknown outcome: a neutral text, the query shown as text only', async () => {
  const ctx = await context(browser, PHONE);
  try {
    const orderId = '<img src=x onerror="window.__pwned=1">';
    const query = new URLSearchParams({ billId: 'bill-typed-by-hand', orderId, outcome: 'refunded' });
    const { page, problems } = await open(ctx, `${app.url}/?${query}`);
    const result = page.locator('#result');
    await result.waitFor();
    assert.equal(await result.getAttribute('data-outcome'), 'unknown');
    assert.equal((await page.locator('h1').innerText()).trim(), 'Back from the payment page');
    assert.ok((await result.innerText()).includes(orderId), 'the order id as typed, as text');
    assert.equal(await page.locator('#result img').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    assert.doesNotMatch(await result.innerText(), /paid|refunded/i);
    assert.equal(await page.locator('#pay').isVisible(), false);

    // Its link starts a new order: the cart again, with an order from the server.
    await page.getByRole('link', { name: 'Start a new order' }).click();
    await page.locator('#order-id', { hasText: /^Order demo-mug-/ }).waitFor();
    assert.ok(await page.locator('#pay').isEnabled());
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test("the shop's server does not give an order: a visible message, no payment, and a way to try again", async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const page = await ctx.newPage();
    await page.route('**/demo/orders', (route) => route.fulfill({ status: 503, json: { error: { code: 'down', message: 'down' } } }));
    await page.goto(`${app.url}/?product=tee`);
    const error = page.locator('#order-error[role="alert"]');
    await error.filter({ hasText: 'could not start an order' }).waitFor();
    assert.ok(await page.locator('#pay').isDisabled(), 'nothing to pay without an order');
    assert.equal(await page.locator('bill-checkout').count(), 0);

    await page.unroute('**/demo/orders');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('#order-id', { hasText: /^Order demo-tee-/ }).waitFor();
    assert.equal(await error.innerText(), '');
    assert.ok(await page.locator('#pay').isEnabled());
  } finally {
    await ctx.close();
  }
});

test('decline on the pay page ends on failed', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const { page } = await open(ctx, `${app.url}/?product=tee`);
    await page.click('#pay');
    const bill = await shownBill(page);
    const payTab = await ctx.newPage();
    await payTab.goto(bill.billUrl);
    await payTab.click('button.decline');
    assert.equal(await finalOutcome(page), 'failed');
    assert.equal(await page.locator('bill-checkout [part~="start-again-button"]').count(), 1, 'a way to start again');
  } finally {
    await ctx.close();
  }
});

test('cancel while pending ends on cancelled, and the pay page then refuses to pay', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const { page } = await open(ctx, `${app.url}/?product=poster`);
    await page.click('#pay');
    const bill = await shownBill(page);
    await page.locator('bill-checkout [part~="cancel-button"]').click();
    // It asks once, inline, before cancelling.
    const confirm = page.locator('bill-checkout [part~="cancel-confirm"]');
    await confirm.getByRole('button', { name: 'Yes' }).click();
    assert.equal(await finalOutcome(page), 'cancelled');

    const payTab = await ctx.newPage();
    await payTab.goto(bill.billUrl);
    assert.equal(await payTab.locator('button.pay').count(), 0);
  } finally {
    await ctx.close();
  }
});

test('a reload in the middle of a payment resumes the same bill', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const { page } = await open(ctx, `${app.url}/?product=beans`);
    await page.click('#pay');
    const first = await shownBill(page);
    const orderBefore = await page.locator('#order-id').innerText();
    const stored = await page.evaluate(() => JSON.parse(sessionStorage.getItem('northwind:checkout') ?? 'null') as unknown);
    assert.deepEqual(stored, {
      product: 'beans', orderId: orderBefore.replace(/^Order /, ''),
      orderTicket: await page.locator('bill-checkout').getAttribute('order-ticket'), billId: first.billId,
    }, 'the order, its ticket and the bill are kept in this tab');
    assert.match((stored as { orderTicket: string }).orderTicket, /^\d+\./);

    await page.reload();
    const again = await shownBill(page);
    assert.equal(again.billId, first.billId);
    assert.equal(await page.locator('#order-id').innerText(), orderBefore);
    assert.equal((await billEvents(page)).filter((e) => e.type === 'bill-created').length, 0, 'nothing created after the reload');

    await app.control(first.billId, 'pay');
    assert.equal(await finalOutcome(page), 'paid');
  } finally {
    await ctx.close();
  }
});
