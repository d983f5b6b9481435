// The device that paid (issue 15): the browser that created a bill carries a cookie back to its
// return URL and goes on to RETURN_URL; another device (a phone that scanned the QR code) is told
// the outcome by a page of the BFF in its language, or sent to RETURN_OTHER_DEVICE_URL.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { hookUrls } from '../../../server/domain/create/hook-urls.js';
import { headerLanguage } from '../../../contract/languages.js';
import { formatAmount } from '../../../contract/decimal.js';
import { RETURN_PAGE_TEXTS, returnPage } from '../../../server/http/return-page.js';
import type { Context } from 'hono';
import { startedMarks } from '../../../server/http/started-here.js';
import type { CreatedBillView } from '../../../contract/bill-view.js';
import { STARTED_HERE, startHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };

async function returnPathOf(h: Harness, billId: string): Promise<string> {
  const stored = (await h.store.getByBillId(billId))!;
  return new URL((await hookUrls(h.url, stored.merchantReference, stored.hookToken)).redirectUrl).pathname;
}

async function createWithCookie(h: Harness, body: Record<string, unknown> = { amount: '12.50' }) {
  const res = await h.request('/api/bills', { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(body) });
  assert.equal(res.status, 201);
  return { bill: (await res.json()) as CreatedBillView, cookie: res.headers.get('set-cookie') };
}

async function paid(h: Harness, billId: string): Promise<void> {
  const delivered = new Promise<void>((resolve) => h.sandbox.events.addEventListener('callback', () => resolve(), { once: true }));
  h.sandbox.pay(billId);
  await delivered;
  await h.sandbox.idle();
}

test('the create marks its browser with a cookie scoped to that bill\'s return URL', async (t) => {
  const h = await startHarness(t);
  const { bill, cookie } = await createWithCookie(h);
  assert.ok(cookie, 'Set-Cookie');
  const [pair, ...attributes] = cookie.split('; ');
  assert.equal(pair, 'bc_started=1');
  const attr = new Map(attributes.map((a) => [a.split('=')[0]!.toLowerCase(), a.split('=')[1] ?? true]));
  assert.equal(attr.get('path'), `/api/hooks/return/${bill.merchantReference}`);
  assert.ok((await returnPathOf(h, bill.billId)).startsWith(`${attr.get('path') as string}/`), 'the path covers the return URL');
  assert.equal(attr.get('httponly'), true);
  assert.equal(attr.get('samesite'), 'Lax');
  assert.equal(attr.has('secure'), false, 'PUBLIC_URL is http here');
  const maxAge = Number(attr.get('max-age'));
  assert.ok(maxAge >= 86_400 && maxAge <= 400 * 86_400, `Max-Age ${maxAge}`);
  assert.equal(attr.size, 4);

  // On https, Secure; PUBLIC_URL's path prefix is part of the return URL, so of the cookie's path.
  let secure: string | undefined;
  const answer = { header: (name: string, value: string) => void (name === 'Set-Cookie' && (secure = value)), req: { header: () => undefined } };
  startedMarks({ publicUrl: 'https://pay.shop.example/checkout', production: true, expiryGraceMs: 600_000, returnUrl: 'https://shop.example/' }, () => 0)
    .mark(answer as unknown as Context, { merchantReference: 'bc_abc', expiredOn: 10_000_000_000 });
  assert.equal(secure, 'bc_started=1; Path=/checkout/api/hooks/return/bc_abc; Max-Age=10000600; HttpOnly; SameSite=Lax; Secure');
});

test('the return with the cookie goes on to RETURN_URL (303); without it, a page in Thai that says paid', async (t) => {
  const h = await startHarness(t, { env: { RETURN_URL: 'https://shop.example/thanks' } });
  const { bill } = await createWithCookie(h, { amount: '234.50' });
  await paid(h, bill.billId);
  const path = await returnPathOf(h, bill.billId);

  const started = await h.request(path, { headers: STARTED_HERE });
  assert.equal(started.status, 303);
  const to = new URL(started.headers.get('location')!);
  assert.equal(`${to.origin}${to.pathname}`, 'https://shop.example/thanks');
  assert.deepEqual(Object.fromEntries(to.searchParams), { billId: bill.billId, outcome: 'paid' });

  const other = await h.request(path, { headers: { 'Accept-Language': 'th-TH,th;q=0.9' } });
  assert.equal(other.status, 200);
  assert.match(other.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/i);
  const html = await other.text();
  assert.match(html, /^<!doctype html><html lang="th">/);
  assert.ok(html.includes(RETURN_PAGE_TEXTS.th.heading.paid), 'the Thai "paid" heading');
  assert.ok(html.includes(RETURN_PAGE_TEXTS.th.back), 'go back to the device where you started');
  assert.ok(html.includes(formatAmount('234.5', 'th', 'USD')) && html.includes('234.50'), 'the amount with its currency');
  assert.ok(html.includes(bill.merchantReference));
  assert.ok(!/<script/i.test(html), 'no script');
  assert.ok(!html.includes('http-equiv="refresh"'), 'a final outcome does not reload');
  assert.ok(html.includes('name="viewport"') && html.includes('name="color-scheme" content="light dark"'));
  assert.equal(other.headers.get('cache-control'), 'no-store');
  assert.equal(other.headers.get('referrer-policy'), 'no-referrer');
  const csp = other.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|script-src/);
  // The one inline style is allowed by its hash, nothing else.
  const style = /<style>(.*?)<\/style>/s.exec(html)![1]!;
  assert.match(csp, new RegExp(`style-src 'sha256-${createHash('sha256').update(style).digest('base64').replace(/[+/]/g, '\\$&')}'`));
});

test('a pending bill: the other device is told it is being checked, and the page reloads itself', async (t) => {
  const h = await startHarness(t);
  const { bill } = await createWithCookie(h);
  const res = await h.request(await returnPathOf(h, bill.billId), { headers: { 'Accept-Language': 'fr-FR, de;q=0.5' } });
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.match(html, /<html lang="en">/);
  assert.ok(html.includes('<meta http-equiv="refresh" content="5">'));
  assert.ok(html.includes(RETURN_PAGE_TEXTS.en.heading.pending));
  assert.ok(html.includes(RETURN_PAGE_TEXTS.en.lead.pending));
});

test('RETURN_OTHER_DEVICE_URL: the other device is sent there (303) with the same parameters and device=other', async (t) => {
  const h = await startHarness(t, {
    env: { RETURN_URL: 'https://shop.example/thanks', RETURN_OTHER_DEVICE_URL: 'https://shop.example/paid-elsewhere?from=checkout' },
  });
  const { bill } = await createWithCookie(h);
  await paid(h, bill.billId);
  const path = await returnPathOf(h, bill.billId);
  const other = await h.request(path);
  assert.equal(other.status, 303);
  const to = new URL(other.headers.get('location')!);
  assert.equal(`${to.origin}${to.pathname}`, 'https://shop.example/paid-elsewhere');
  assert.deepEqual(Object.fromEntries(to.searchParams), { from: 'checkout', billId: bill.billId, outcome: 'paid', device: 'other' });
  const started = await h.request(path, { headers: { Cookie: 'other=x; bc_started=1' } });
  assert.equal(new URL(started.headers.get('location')!).pathname, '/thanks');
});

test('RETURN_OTHER_DEVICE_URL must be an http(s) URL', async (t) => {
  await assert.rejects(startHarness(t, { env: { RETURN_OTHER_DEVICE_URL: 'javascript:alert(1)' } }), /RETURN_OTHER_DEVICE_URL must be an http\(s\) URL/);
});

test('CORS: an allowed origin may send credentials (the create keeps its cookie); a foreign one is not told so; with * the origin is named, never *', async (t) => {
  const h = await startHarness(t, { env: { ALLOWED_ORIGINS: 'https://shop.example' } });
  const shop = { Origin: 'https://shop.example' };
  const create = await h.request('/api/bills', { method: 'POST', headers: { ...JSON_TYPE, ...shop }, body: '{"amount":"5"}' });
  assert.equal(create.status, 201);
  assert.equal(create.headers.get('access-control-allow-origin'), 'https://shop.example');
  assert.equal(create.headers.get('access-control-allow-credentials'), 'true');
  assert.match(create.headers.get('set-cookie') ?? '', /^bc_started=1;/);
  const preflight = await h.request('/api/bills', {
    method: 'OPTIONS', headers: { ...shop, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-credentials'), 'true');

  const foreign = await h.request('/api/bills', {
    method: 'OPTIONS', headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
  });
  assert.equal(foreign.headers.get('access-control-allow-origin'), null);
  assert.equal(foreign.headers.get('access-control-allow-credentials'), null);

  const any = await startHarness(t, { env: { ALLOWED_ORIGINS: '*' } });
  const open = await any.request('/api/bills', { method: 'POST', headers: { ...JSON_TYPE, Origin: 'https://anyone.example' }, body: '{"amount":"5"}' });
  // A browser refuses a credentialed answer that allows `*`: the page's origin is named instead.
  assert.equal(open.status, 201);
  assert.equal(open.headers.get('access-control-allow-origin'), 'https://anyone.example');
  assert.equal(open.headers.get('access-control-allow-credentials'), 'true');
  assert.match(open.headers.get('vary') ?? '', /origin/i);
});

test('the page: language by Accept-Language, exact amounts, every text escaped', async () => {
  assert.equal(headerLanguage(undefined), 'en');
  assert.equal(headerLanguage('th-TH,th;q=0.9'), 'th');
  assert.equal(headerLanguage('fr;q=1, vi;q=0.8, id;q=0.9'), 'id');
  assert.equal(headerLanguage('zh-Hans-CN'), 'zh-CN');
  assert.equal(headerLanguage('zh-TW, ms;q=0.5'), 'ms', 'Traditional Chinese is not served Simplified');
  assert.equal(headerLanguage('id;q=0, en-GB'), 'en');
  assert.equal(headerLanguage('*'), 'en');

  // Intl puts no-break spaces between a currency code and the number.
  const money = (amount: string, currency: string, language: string) =>
    formatAmount(amount, language, currency).replace(/\u00a0/g, ' ');
  assert.equal(money('12345678901234567890.123456789', 'THB', 'th'), '฿12,345,678,901,234,567,890.123456789');
  assert.equal(money('1.5', 'KWD', 'en'), 'KWD 1.500');
  assert.equal(money('10000.5', 'IDR', 'id'), 'Rp 10.000,5');
  assert.equal(formatAmount('3', 'en'), '3');
  assert.equal(formatAmount('3', 'en', 'not a code'), '3 not a code');

  const page = await returnPage({
    outcome: 'cancelled', amount: '7', currency: '<b>', merchantReference: 'bc_"&\'', language: 'vi', testMode: true,
  });
  assert.ok(page.html.includes('7 &#60;b&#62;'));
  assert.ok(page.html.includes('bc_&#34;&#38;&#39;'));
  assert.ok(page.html.includes(RETURN_PAGE_TEXTS.vi.heading.cancelled));
  assert.ok(page.html.includes(RETURN_PAGE_TEXTS.vi.test), 'the sandbox says it is not live');
  assert.ok(!page.html.includes('<b>'));
});
