// The shop in a native app's webview (an Android WebView user agent, React Native's channel
// injected before the page's scripts, as react-native-webview does): the app learns the outcome
// from the element's bridge, across the trip to the pay page and back, exactly once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startApp, type App } from './support/app.js';
import { finalOutcome, launch, PHONE, shownBill } from './support/browser.js';

const WEBVIEW_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.0.0 Mobile Safari/537.36';

interface HostMessage { type: string; version: number; event: string; bill: { billId: string; outcome: string; token?: unknown } }

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

test('React Native webview: pay button → pay page → back, and the app is posted final/paid exactly once', async () => {
  const ctx = await browser.newContext({ ...PHONE, userAgent: WEBVIEW_UA, locale: 'en-US', timezoneId: 'UTC' });
  try {
    const received: string[] = [];
    await ctx.exposeBinding('__toApp', (_source, json: string) => void received.push(json));
    // As text: tsx names the functions of a test's source (`__name(…)`), which the page does not define.
    await ctx.addInitScript(`
      window.ReactNativeWebView = { postMessage: (message) => window.__toApp(message) };
      // What the merchant's page says when it knows it runs in its app.
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('bill-checkout:not([native-bridge])')) el.setAttribute('native-bridge', '');
      }).observe(document, { childList: true, subtree: true });
    `);
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.addInitScript(() => {
      const w = window as unknown as { __bills: unknown[] };
      w.__bills = [];
      document.addEventListener('bill-status', (e) => w.__bills.push((e as CustomEvent).detail));
    });
    await page.goto(`${app.url}/`);
    await page.click('#pay');
    const button = page.locator('bill-checkout [part~="pay-button"]');
    await button.waitFor({ timeout: 10_000 });
    const bill = await shownBill(page);

    await button.click();
    await page.waitForURL((u) => u.pathname.includes('/sandbox/pay/'));
    await page.click('button.pay');
    // sandbox → the BFF's return (this webview started the bill) → the shop, which resumes the bill.
    await page.waitForURL((u) => u.origin === app.url && u.pathname === '/');
    assert.equal(await finalOutcome(page), 'paid');

    const messages = received.map((json) => JSON.parse(json) as HostMessage);
    for (const m of messages) {
      assert.deepEqual(Object.keys(m).sort(), ['bill', 'event', 'type', 'version']);
      assert.equal(m.type, 'bill-checkout');
      assert.equal(m.version, 1);
      assert.equal(m.bill.billId, bill.billId, 'every message names the one bill');
      assert.equal(m.bill.token, undefined, 'the capability token never leaves the page');
    }
    assert.equal(messages[0]?.event, 'created', 'the first message says the bill was created');
    const finals = messages.filter((m) => m.event === 'final');
    assert.deepEqual(finals.map((m) => m.bill.outcome), ['paid'], 'final, paid, exactly once');
    assert.equal(messages.at(-1)?.event, 'final', 'nothing after the final');
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});
