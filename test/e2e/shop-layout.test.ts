// The shop page's layout while a checkout starts (cumulative layout shift on a phone) and its ways
// to start again: exactly one in every final state.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type App } from './support/app.js';
import { context, DESKTOP, finalOutcome, launch, open, PHONE, shownBill } from './support/browser.js';

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

interface Shift { value: number; sources: string[] }

/**
 * Records every layout shift not caused by input, from the first paint on, in window.__shifts. Plain
 * text, not a function: tsx would wrap named functions in a helper the page does not have.
 */
const RECORD_SHIFTS = `
window.__shifts = [];
const describe = (node) => !(node instanceof Element) ? (node ? node.nodeName : '?')
  : node.localName + (node.id ? '#' + node.id : '') + (typeof node.className === 'string' && node.className ? '.' + node.className.split(' ').join('.') : '');
const take = (entries) => {
  for (const e of entries) {
    if (!e.hadRecentInput) window.__shifts.push({ value: e.value, sources: e.sources.map((s) => describe(s.node)) });
  }
};
const observer = new PerformanceObserver((list) => take(list.getEntries()));
observer.observe({ type: 'layout-shift', buffered: true });
window.__takeShifts = () => take(observer.takeRecords());
`;

/**
 * Lighthouse's mobile conditions (slow 4G, a 4× slower CPU): the page paints before its script has
 * run, as on a real phone, so what the script adds later is measured.
 */
async function throttleLikeLighthouse(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8 * 0.9, uploadThroughput: (750 * 1024) / 8 * 0.9,
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
}

/** The shifts so far, after the next two frames have been laid out and reported. */
async function shifts(page: Page): Promise<Shift[]> {
  return page.evaluate(async () => {
    await new Promise<void>((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok())));
    const w = window as unknown as { __shifts: Shift[]; __takeShifts: () => void };
    w.__takeShifts();
    return w.__shifts;
  });
}

/**
 * A phone's screen without `isMobile`: Chromium's mobile emulation marks every shift of the first
 * load as "had recent input" (Lighthouse works around the same flag), which would hide them all.
 */
const PHONE_SCREEN = { viewport: PHONE.viewport, deviceScaleFactor: PHONE.deviceScaleFactor, hasTouch: true };

for (const [name, device, payment, query] of [
  ['a phone (390×844)', PHONE_SCREEN, 'pay-button', ''],
  ['a desktop', DESKTOP, 'qr', ''],
  ['a phone, in Vietnamese', PHONE_SCREEN, 'pay-button', '?locale=vi'],
] as const) {
  test(`on ${name} the checkout appearing does not shift the page (CLS < 0.1)`, async () => {
    const ctx = await browser.newContext({ ...device, locale: 'en-US', timezoneId: 'UTC' });
    try {
      const page = await ctx.newPage();
      await throttleLikeLighthouse(page);
      await page.addInitScript(RECORD_SHIFTS);
      await page.goto(`${app.url}/${query}`);
      await page.locator('#order-id', { hasText: / demo-mug-/ }).waitFor();
      await page.locator('label.product').nth(1).click();
      await page.locator('#order-id', { hasText: / demo-tee-/ }).waitFor();
      await page.click('#pay');
      await page.locator(`bill-checkout [part~="${payment}"]`).waitFor({ timeout: 10_000 });
      await page.locator('bill-checkout [part~="countdown"]').waitFor();

      const seen = await shifts(page);
      const cls = seen.reduce((sum, s) => sum + s.value, 0);
      console.log(`CLS on ${name}: ${cls.toFixed(4)}${seen.map((s) => `\n  ${s.value.toFixed(4)} ${s.sources.join(', ')}`).join('')}`);
      assert.ok(cls < 0.1, `cumulative layout shift ${cls.toFixed(4)} is below 0.1`);
    } finally {
      await ctx.close();
    }
  });
}

/** Every visible control, in the page or inside the element, that starts again. */
async function startAgainControls(page: Page): Promise<string[]> {
  const named = /start again|start a new order|new order/i;
  const found: string[] = [];
  for (const role of ['button', 'link'] as const) {
    for (const control of await page.getByRole(role, { name: named }).all()) {
      if (await control.isVisible()) found.push(`${role} "${(await control.innerText()).trim()}"`);
    }
  }
  return found;
}

/** Presses the element's cancel button, and its "Yes" when it asks first. */
async function cancel(page: Page): Promise<void> {
  await page.locator('bill-checkout [part~="cancel-button"]').click();
  const yes = page.locator('bill-checkout [part~="cancel-confirm"] button').first();
  const heading = page.locator('bill-checkout [part~="heading"]');
  await yes.or(heading).first().waitFor();
  if (await yes.isVisible()) await yes.click();
}

test('cancelled: exactly one visible way to start again, and it starts a new bill for the same order', async () => {
  const ctx = await context(browser, PHONE);
  try {
    const { page, problems } = await open(ctx, `${app.url}/?product=poster`);
    await page.locator('#pay:enabled').click();
    const first = await shownBill(page);
    const orderId = await page.locator('bill-checkout').getAttribute('order-id');
    await cancel(page);
    assert.equal(await finalOutcome(page), 'cancelled');

    assert.deepEqual(await startAgainControls(page), ['button "Start again"']);
    await page.getByRole('button', { name: 'Start again' }).click();
    await page.locator('bill-checkout [part~="pay-button"]').waitFor();
    const second = await shownBill(page);
    assert.notEqual(second.billId, first.billId, 'a new bill');
    assert.equal(await page.locator('bill-checkout').getAttribute('order-id'), orderId, 'for the same order');
    assert.deepEqual(await startAgainControls(page), [], 'none while the new bill is pending');
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test("cancelled, then the order's ticket refused: the one way on is the shop's new order", async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const { page } = await open(ctx, `${app.url}/?product=tee`);
    await page.locator('#pay:enabled').click();
    await shownBill(page);
    await cancel(page);
    assert.equal(await finalOutcome(page), 'cancelled');

    // A tab left open past the ticket's hour: the BFF refuses to start the order again.
    await page.route('**/api/bills', (route) => route.request().method() === 'POST'
      ? route.fulfill({ status: 403, json: { error: { code: 'order_ticket_invalid', message: 'Order ticket expired.' } } })
      : route.continue());
    await page.getByRole('button', { name: 'Start again' }).click();
    await page.getByRole('button', { name: 'Start a new order' }).waitFor();
    assert.deepEqual(await startAgainControls(page), ['button "Start a new order"']);
  } finally {
    await ctx.close();
  }
});

test('paid: exactly one visible way to start again, the shop\'s new order', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const { page, problems } = await open(ctx, `${app.url}/?product=mug`);
    await page.locator('#pay:enabled').click();
    const bill = await shownBill(page);
    await app.control(bill.billId, 'pay');
    assert.equal(await finalOutcome(page), 'paid');
    assert.deepEqual(await startAgainControls(page), ['button "Start a new order"']);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('failed and expired: exactly one visible way to start again', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    for (const action of ['decline', 'expire'] as const) {
      const { page, problems } = await open(ctx, `${app.url}/?product=beans`);
      await page.locator('#pay:enabled').click();
      const bill = await shownBill(page);
      await app.control(bill.billId, action);
      assert.equal(await finalOutcome(page), action === 'decline' ? 'failed' : 'expired');
      assert.deepEqual(await startAgainControls(page), ['button "Start again"'], action);
      assert.deepEqual(problems, []);
      await page.evaluate(() => sessionStorage.clear());
      await page.close();
    }
  } finally {
    await ctx.close();
  }
});
