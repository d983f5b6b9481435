// What crosses the boundary from browsers and other sites (issue 13): cross-site POSTs, order ids
// that are path segments, the return as a requery pump, and secrets in every escaped form.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { createLogger } from '../../../server/log.js';
import { STARTED_HERE, startHarness, TEST_ADMIN_TOKEN, TEST_KEY, TEST_TICKET_SECRET } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { serveOn } from '../support/servers.js';

const json = { 'Content-Type': 'application/json' };

async function code(res: Response): Promise<string | null> {
  const text = await res.text();
  try {
    return (JSON.parse(text) as { error?: { code: string } }).error?.code ?? null;
  } catch {
    return null;
  }
}

async function hookPaths(h: Harness, billId: string) {
  const stored = (await h.store.getByBillId(billId))!;
  const { hookUrls } = await import('../../../server/domain/create/hook-urls.js');
  const urls = await hookUrls(h.url, stored.merchantReference, stored.hookToken);
  return { callback: new URL(urls.callbackUrl).pathname, return: new URL(urls.redirectUrl).pathname };
}

test('cross-site: browser-facing and admin POSTs need JSON (415) and, when an Origin is sent, an allowed one (403)', async (t) => {
  const h = await startHarness(t, { env: { ALLOWED_ORIGINS: 'https://shop.example', ADMIN_TOKEN: TEST_ADMIN_TOKEN } });
  const body = '{"amount":"5"}';
  // What another site can make its visitors' browsers send without a CORS preflight.
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
    const headers: Record<string, string> = { Origin: 'https://evil.example' };
    if (type) headers['Content-Type'] = type;
    const res = await h.request('/api/bills', { method: 'POST', headers, body });
    assert.equal(res.status, 415, String(type));
    assert.equal(await code(res), 'unsupported_media_type');
  }
  const foreign = await h.request('/api/bills', { method: 'POST', headers: { ...json, Origin: 'https://evil.example' }, body });
  assert.equal(foreign.status, 403);
  assert.equal(await code(foreign), 'origin_not_allowed');
  assert.equal(h.sandbox.stats().calls.create, 0);

  // Allowed: a listed origin, the BFF's own origin, a server with no Origin, and JSON with a charset.
  for (const headers of [
    { ...json, Origin: 'https://shop.example' },
    { ...json, Origin: h.url },
    { 'Content-Type': 'application/json; charset=utf-8' },
  ]) {
    const res = await h.request('/api/bills', { method: 'POST', headers, body });
    assert.equal(res.status, 201, JSON.stringify(headers));
  }
  const bill = await h.create({ amount: '6' });
  const cancel = `/api/bills/${bill.billId}/cancel?token=${bill.token}`;
  assert.equal((await h.request(cancel, { method: 'POST', headers: { 'Content-Type': 'text/plain', Origin: 'https://evil.example' } })).status, 415);
  assert.equal((await h.request(cancel, { method: 'POST', headers: { ...json, Origin: 'https://evil.example' } })).status, 403);
  const admin = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  assert.equal((await h.request('/api/admin/bills', { method: 'POST', headers: { ...admin, 'Content-Type': 'text/plain' }, body: '{}' })).status, 415);
  assert.equal((await h.request('/api/admin/bills', { method: 'POST', headers: { ...admin, ...json, Origin: 'https://evil.example' }, body: '{}' })).status, 403);
  assert.equal((await h.request(`/api/admin/bills/${bill.billId}/cancel`, { method: 'POST', headers: admin })).status, 415);
  assert.equal((await h.request(cancel, { method: 'POST', headers: json, body: '{}' })).status, 200);
  assert.equal(h.sandbox.stats().calls.cancel, 1);

  // The service's callback takes whatever the service sends.
  const paid = await h.create({ amount: '7' });
  h.sandbox.pay(paid.billId);
  const paths = await hookPaths(h, paid.billId);
  const callback = await h.request(paths.callback, { method: 'POST', headers: { 'Content-Type': 'text/plain', Origin: 'https://evil.example' }, body: 'x' });
  assert.equal(callback.status, 200);
  await h.sandbox.idle();
});

test('order ids of only dots are refused; ORDER_LOOKUP_URL only ever sees one encoded segment under itself', async (t) => {
  const seen: string[] = [];
  const merchant = new Hono();
  merchant.get('*', (c) => {
    seen.push(new URL(c.req.url).pathname);
    // A merchant API whose root (or anything else) would answer a price if it were walked to.
    return c.json({ amount: '1.00' });
  });
  const served = await serveOn(merchant.fetch);
  t.after(() => served.close());
  const h = await startHarness(t, {
    env: { ORDER_LOOKUP_URL: `${served.url}/api/orders`, ORDER_TICKET_SECRET: TEST_TICKET_SECRET, CLIENT_AMOUNT_MIN: '', CLIENT_AMOUNT_MAX: '' },
  });
  for (const orderId of ['.', '..', '...']) {
    const res = await h.request('/api/bills', {
      method: 'POST', headers: json, body: JSON.stringify({ orderId, orderTicket: await h.ticket(orderId) }),
    });
    assert.equal(res.status, 400, orderId);
    assert.equal(await code(res), 'invalid_request');
  }
  assert.deepEqual(seen, []);
  await h.create({ orderId: 'a.b:c_d-1', orderTicket: await h.ticket('a.b:c_d-1') });
  assert.deepEqual(seen, ['/api/orders/a.b%3Ac_d-1']);
  await h.sandbox.idle();
});

test('the return is a hint: 200 hits cost at most one requery per refresh window, with no retries on its behalf', async (t) => {
  const h = await startHarness(t, { env: { REFRESH_WINDOW_MS: '2000', BILL_API_RETRIES: '3' } });
  const bill = await h.create({ amount: '5' });
  const paths = await hookPaths(h, bill.billId);
  const before = h.requeries(bill.billId);
  const start = h.clock.now();
  for (let i = 0; i < 200; i++) {
    // The browser that started the bill is sent on (303); another device gets the page that refreshes itself (200).
    const started = i % 2 === 0;
    const res = await h.request(paths.return, started ? { headers: STARTED_HERE } : {});
    assert.equal(res.status, started ? 303 : 200);
    h.clock.advance(25); // 200 hits over 5 s of the BFF's clock
  }
  const elapsed = h.clock.now() - start;
  const allowed = Math.ceil(elapsed / h.config.refreshWindowMs) + 1;
  const requeries = h.requeries(bill.billId) - before;
  assert.ok(requeries <= allowed, `${requeries} requeries for 200 returns, at most ${allowed}`);
  assert.ok(requeries >= 1);

  // A failing service is not asked again and again either: one attempt per window, no retries.
  h.sandbox.setFaults({ errorRate: { requery: 1 } });
  const failingFrom = h.requeries(bill.billId);
  const failingStart = h.clock.now();
  for (let i = 0; i < 200; i++) {
    await (await h.request(paths.return)).body?.cancel();
    h.clock.advance(25);
  }
  const failing = h.requeries(bill.billId) - failingFrom;
  const failingAllowed = Math.ceil((h.clock.now() - failingStart) / h.config.refreshWindowMs) + 1;
  assert.ok(failing <= failingAllowed, `${failing} attempts against a failing service, at most ${failingAllowed}`);
});

test('the return lands on RETURN_URL with the bill, its order and the requeried outcome', async (t) => {
  const h = await startHarness(t, {
    env: { RETURN_URL: 'https://shop.example/thanks', ORDER_TICKET_SECRET: TEST_TICKET_SECRET },
    hooks: { resolveOrder: async () => ({ amount: '3' }) },
  });
  const bill = await h.create({ orderId: 'order-77', orderTicket: await h.ticket('order-77') });
  // A poll has just asked the service (pending), and the payment's callback is lost: the return is
  // news all the same, so the device that paid is told paid, not pending.
  await (await h.request(`/api/bills/${bill.billId}?token=${bill.token}`)).body?.cancel();
  await h.refreshed();
  h.sandbox.setFaults({ callbackDropRate: 1 });
  h.sandbox.pay(bill.billId);
  await h.sandbox.idle();
  const before = h.requeries(bill.billId);
  const res = await h.request((await hookPaths(h, bill.billId)).return, { headers: STARTED_HERE });
  const to = new URL(res.headers.get('location')!);
  assert.equal(to.origin + to.pathname, 'https://shop.example/thanks');
  assert.deepEqual(Object.fromEntries(to.searchParams), { billId: bill.billId, orderId: 'order-77', outcome: 'paid' });
  assert.equal(h.requeries(bill.billId), before + 1);
});

test('logs mask a secret as written and JSON-escaped, and cut every value to 2 KB', () => {
  const lines: string[] = [];
  const secret = 'se"cr\\et/with-quote-and-backslash';
  const log = createLogger({ write: (l) => lines.push(l), secrets: [secret] });
  log.error('refused', {
    message: `the service said: ${secret}`,
    body: JSON.stringify({ echoed: secret }),
    nested: { deeper: { again: secret } },
    error: new Error(`bad ${secret}`),
    huge: 'x'.repeat(300_000),
  });
  assert.equal(lines.length, 1);
  const line = lines[0]!;
  const escaped = JSON.stringify(secret).slice(1, -1);
  const twice = JSON.stringify(escaped).slice(1, -1);
  for (const form of [secret, escaped, twice, 'se\\"cr', 'cr\\\\et']) assert.ok(!line.includes(form), `shows ${form}`);
  assert.ok(line.length < 12_000, `a line of ${line.length} characters`);
  const entry = JSON.parse(line) as Record<string, unknown>;
  assert.match(String(entry.message), /\[redacted\]/);
  assert.match(String(entry.huge), /more characters\]$/);
});

test('a service that echoes our key or secret in its message does not pass it to an admin response or a log', async (t) => {
  const secret = 'echo-"secret"-\\-0123456789';
  let echo = false;
  const h = await startHarness(t, {
    secret,
    env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN },
    upstreamHttp: (real) => async (url, request) => {
      if (!echo) return real(url, request);
      const message = `bad request from key ${TEST_KEY} signed with ${secret}`;
      return new Response(JSON.stringify({ code: 1003, message, data: null }), { status: 400, headers: json });
    },
  });
  echo = true;
  const res = await h.request('/api/admin/bills', {
    method: 'POST', headers: { ...json, Authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, body: '{}',
  });
  assert.equal(res.status, 400);
  const text = await res.text();
  assert.match(text, /bad request from key \[redacted\] signed with \[redacted\]/);
  const everything = [text, ...h.logs].join('\n');
  for (const form of [TEST_KEY, secret, JSON.stringify(secret).slice(1, -1)]) assert.ok(!everything.includes(form), `leaked ${form}`);
});
