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
