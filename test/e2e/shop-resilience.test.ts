// The shop when time runs out or the network goes away: honest states only.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page, Route } from 'playwright-core';
import { startApp, type App } from './support/app.js';
import { billEvents, context, DESKTOP, finalOutcome, launch, open, RETRYING, shownBill, TEXT } from './support/browser.js';

let browser: Browser;
const apps: App[] = [];

before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
  for (const app of apps) await app.stop();
});

async function app(options: Parameters<typeof startApp>[0] = {}): Promise<App> {
  const a = await startApp(options);
  apps.push(a);
  return a;
}


/**
 * Live events off, so status comes from polls, which the test holds once `hold()` is called:
 * only the element's own countdown can change what it shows. `release()` lets them all go.
 */
async function holdPolls(page: Page) {
  await page.route(/\/api\/bills\/[^/]+\/events/, (route) => route.abort());
  let holding = false;
  const held: Route[] = [];
  await page.route(/\/api\/bills\/[^/?]+\?/, (route) => {
    if (holding && route.request().method() === 'GET') held.push(route);
    else void route.continue();
  });
  return {
    held,
    hold: () => void (holding = true),
    async release() {
      holding = false;
      for (const route of held.splice(0)) await route.continue();
    },
  };
}

test('expiry: the countdown ends on "checking", and only the BFF\'s answer turns it to expired', async () => {
  // A service whose bills live 5 s (the sandbox, outside main.ts, reached through BILL_API_BASE_URL).
  const shop = await app({ sandbox: { billLifetimeMs: 5000, sweepIntervalMs: 250 } });
  const ctx = await context(browser, DESKTOP);
  try {
    const { page } = await open(ctx, `${shop.url}/`);
    const polls = await holdPolls(page);

    await page.click('#pay');
    const bill = await shownBill(page);
    polls.hold();

    await page.locator('bill-checkout [part~="status"]', { hasText: TEXT.checking }).waitFor({ timeout: 15_000 });
    assert.equal(await page.locator('bill-checkout [part~="heading"]').count(), 0, 'no final state before the BFF says so');
    assert.ok(polls.held.length > 0, 'the element asked the BFF when time was up');
    assert.equal((await billEvents(page)).filter((e) => e.type === 'bill-final').length, 0);

    await polls.release();
    assert.equal(await finalOutcome(page), 'expired');
    const finals = (await billEvents(page)).filter((e) => e.type === 'bill-final');
    assert.deepEqual(finals.map((e) => [e.billId, e.outcome]), [[bill.billId, 'expired']]);
  } finally {
    await ctx.close();
  }
});

test("a service whose clock runs 90 s ahead: the countdown ends within 2 s of its expiredOn on its clock, not 90 s later", async () => {
  const aheadMs = 90_000;
  const shop = await app({ sandbox: { billLifetimeMs: 8000, sweepIntervalMs: 250, clockOffsetMs: aheadMs } });
  const ctx = await context(browser, DESKTOP);
  try {
    const { page } = await open(ctx, `${shop.url}/`);
    const polls = await holdPolls(page);
    const created = page.waitForResponse((res) => res.request().method() === 'POST' && /\/api\/bills$/.test(new URL(res.url()).pathname));
    await page.click('#pay');
    const { expiredOn } = (await (await created).json()) as { expiredOn: number };
    await shownBill(page);
    polls.hold();
    await page.locator('bill-checkout [part~="status"]', { hasText: TEXT.checking }).waitFor({ timeout: 15_000 });
    // expiredOn is on the service's clock: on ours it is aheadMs earlier.
    const late = Date.now() - (expiredOn - aheadMs);
    assert.ok(Math.abs(late) <= 2000, `the countdown ended ${late} ms after the service's expiredOn`);
    await polls.release();
  } finally {
    await ctx.close();
  }
});

test('network dropped for a while: a retrying state, no false final state, then the real outcome', async () => {
  // The browser reaches the BFF through a relay the test cuts: open streams are reset, new
  // connections refused, as when a phone loses its network.
  const shop = await app({ cuttableNetwork: true });
  const network = shop.network!;
  const ctx = await context(browser, DESKTOP);
  try {
    const { page } = await open(ctx, `${shop.url}/?product=tee`);
    await page.click('#pay');
    const bill = await shownBill(page);

    network.drop();
    await page.locator('bill-checkout p', { hasText: RETRYING }).first().waitFor({ timeout: 30_000 });

    // Paid while this browser is cut off: it must not guess, and must not show anything final.
    await shop.control(bill.billId, 'pay');
    assert.equal(await page.locator('bill-checkout [part~="heading"]').count(), 0);

    network.restore();
    assert.equal(await finalOutcome(page, 'bill-checkout', 45_000), 'paid');

    const events = await billEvents(page);
    assert.ok(events.every((e) => e.billId === bill.billId));
    assert.ok(events.every((e) => e.outcome === 'pending' || e.outcome === 'paid'), JSON.stringify(events));
    assert.equal(events.filter((e) => e.type === 'bill-final').length, 1);
  } finally {
    await ctx.close();
  }
});
