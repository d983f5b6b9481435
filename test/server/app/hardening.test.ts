import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '../../../server/store/types.js';
import { startHarness, TEST_KEY, TEST_SECRET } from '../support/harness.js';

const json = { 'Content-Type': 'application/json' };
const ADMIN = 'admin-token-0123456789-0123456789abcdef0123';

test('CORS: allowed origins only, with X-Server-Time exposed', async (t) => {
  const h = await startHarness(t, { env: { ALLOWED_ORIGINS: 'https://shop.example,https://other.example' } });
  const preflight = await h.request('/api/bills', {
    method: 'OPTIONS',
    headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,idempotency-key' },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://shop.example');
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Idempotency-Key/i);
  const bill = await h.create({ amount: '5' });
  const read = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`, { headers: { Origin: 'https://other.example' } });
  assert.equal(read.headers.get('access-control-allow-origin'), 'https://other.example');
  assert.match(read.headers.get('access-control-expose-headers') ?? '', /X-Server-Time/i);
  assert.equal(read.headers.get('x-server-time'), String(h.clock.now()));
  const foreign = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`, { headers: { Origin: 'https://evil.example' } });
  assert.equal(foreign.headers.get('access-control-allow-origin'), null);
});

test('bodies over BODY_LIMIT_BYTES answer 413; security headers are set', async (t) => {
  const h = await startHarness(t, { env: { BODY_LIMIT_BYTES: '256' } });
  const res = await h.request('/api/bills', { method: 'POST', headers: json, body: JSON.stringify({ amount: '5', pad: 'x'.repeat(400) }) });
  assert.equal(res.status, 413);
  assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'payload_too_large');
  assert.equal(h.sandbox.stats().calls.create, 0);
  const hook = await h.request(`/api/hooks/callback/bc_x/y`, { method: 'POST', headers: json, body: 'x'.repeat(1000) });
  assert.equal(hook.status, 413);
  const health = await h.request('/healthz');
  assert.equal(health.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(health.headers.get('x-frame-options'), 'SAMEORIGIN');
  const missing = await h.request('/api/nothing');
  assert.equal(missing.status, 404);
  assert.deepEqual(await missing.json(), { error: { code: 'not_found', message: 'No such resource.' } });
});

test('healthz: 200 while the store answers, 503 when it does not', async (t) => {
  let down = false;
  const h = await startHarness(t, {
    wrapStore: (store) => new Proxy(store, {
      get(target, prop: keyof Store) {
        if (prop === 'ping' && down) return async () => { throw new Error('SQLITE_IOERR'); };
        const value = target[prop];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }),
  });
  const up = await h.request('/healthz');
  assert.equal(up.status, 200);
  assert.deepEqual(await up.json(), { ok: true });
  down = true;
  const res = await h.request('/healthz');
  assert.equal(res.status, 503);
  assert.ok(!(await res.text()).includes('SQLITE_IOERR'));
});

test('admin routes: off without ADMIN_TOKEN, Bearer required, list with local state, bind, cancel', async (t) => {
  const off = await startHarness(t);
  assert.equal((await off.request('/api/admin/bills', { method: 'POST', headers: { ...json, Authorization: `Bearer ${ADMIN}` }, body: '{}' })).status, 404);

  const h = await startHarness(t, { env: { ADMIN_TOKEN: ADMIN } });
  for (const auth of [undefined, 'Bearer wrong', `Basic ${ADMIN}`, `Bearer ${ADMIN}x`]) {
    const res = await h.request('/api/admin/bills', { method: 'POST', headers: { ...json, ...(auth ? { Authorization: auth } : {}) }, body: '{}' });
    assert.equal(res.status, 401, String(auth));
    assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="admin"');
  }
  const admin = { ...json, Authorization: `Bearer ${ADMIN}` };
  const a = await h.create({ amount: '5' });
  const b = await h.create({ amount: '6' });
  await h.request(`/api/bills/${a.billId}?token=${a.token}`);
  const page = await h.request('/api/admin/bills', {
    method: 'POST', headers: admin,
    body: JSON.stringify({ paging: { index: 1, size: 1 }, sort: { name: 'billAmount', order: 1 } }),
  });
  assert.equal(page.status, 200);
  const list = (await page.json()) as { lists: { billId: string; local: { outcome: string; notified: boolean } | null }[]; total: number };
  assert.equal(list.total, 2);
  assert.deepEqual(list.lists.map((r) => r.billId), [a.billId]);
  assert.deepEqual(list.lists[0]!.local, {
    outcome: 'pending', notified: false, notice: 'none', orderId: null, orderAmount: null, orderCurrency: null, duplicatePayment: false, orphanedAt: null, lostAt: null,
    finalReason: null, finalAt: null, createdAt: h.clock.now(),
  });
  const second = await h.request('/api/admin/bills', { method: 'POST', headers: admin, body: JSON.stringify({ paging: { index: 2, size: 1 }, sort: { name: 'billAmount', order: 1 } }) });
  assert.deepEqual(((await second.json()) as { lists: { billId: string }[] }).lists.map((r) => r.billId), [b.billId]);
  const bad = await h.request('/api/admin/bills', { method: 'POST', headers: admin, body: JSON.stringify({ paging: { index: 0, size: 1 } }) });
  assert.equal(bad.status, 400);

  const bind = await h.request('/api/admin/customers', { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Ada', email: 'ada@example.com' }) });
  assert.equal(bind.status, 200);
  const again = await h.request('/api/admin/customers', { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Ada', email: 'ada@example.com' }) });
  assert.equal(((await bind.json()) as { customerId: string }).customerId, ((await again.json()) as { customerId: string }).customerId);

  const cancel = await h.request(`/api/admin/bills/${b.billId}/cancel`, { method: 'POST', headers: admin });
  assert.equal(cancel.status, 200);
  assert.equal(((await cancel.json()) as { bill: { outcome: string } }).bill.outcome, 'cancelled');
  assert.equal((await h.request(`/api/admin/bills/${b.billId}/cancel`, { method: 'POST', headers: admin })).status, 409);
  await h.sandbox.idle();
});

test('no response or log line contains the key or a secret, even when the service refuses us', async (t) => {
  const webhookSecret = 'whsec_' + Buffer.from('a-webhook-secret-of-32-bytes!!!!').toString('base64');
  const h = await startHarness(t, { env: { ADMIN_TOKEN: ADMIN, MERCHANT_WEBHOOK_URL: 'http://127.0.0.1:9/hook', MERCHANT_WEBHOOK_SECRET: webhookSecret } });
  const bill = await h.create({ amount: '5' });
  await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
  await h.request(`/api/bills/${bill.billId}/cancel?token=${bill.token}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
  await h.request('/api/admin/bills', { method: 'POST', headers: { ...json, Authorization: `Bearer ${ADMIN}` }, body: '{"filters":[{"name":"nope","value":"1","matchType":"equal"}]}' });
  await h.request('/api/bills', { method: 'POST', headers: json, body: '{"amount":"1.001"}' });
  await h.internals.noticeWorker.runOnce(); // the webhook target refuses: logged
  // A service that no longer accepts our key.
  const refused = await startHarness(t, { env: { BILL_API_SECRET: 'another-secret-abcdef' } });
  const res = await refused.request('/api/bills', { method: 'POST', headers: json, body: '{"amount":"5"}' });
  // Surely not made: the same key may ask again (the refusal may be a credential being rotated).
  assert.equal(res.status, 503);
  const everything = [...h.bodies, ...h.logs, ...refused.bodies, ...refused.logs].join('\n');
  assert.ok(h.logs.length >= 3 && refused.logs.length > 0);
  for (const secret of [TEST_KEY, TEST_SECRET, 'another-secret-abcdef', webhookSecret, ADMIN]) {
    assert.ok(!everything.includes(secret), `leaked ${secret.slice(0, 6)}…`);
  }
});

test('every route answers with nosniff and X-Server-Time, and the browser routes with CORS', async (t) => {
  // Headers come from middleware on each route's own path (app.ts), so a new route could miss them.
  const h = await startHarness(t, { env: { ALLOWED_ORIGINS: 'https://shop.example' } });
  const bill = await h.create({ amount: '5' });
  const routes = h.app.routes.filter((r) => r.method !== 'ALL' && !r.path.includes('*'));
  assert.ok(routes.length >= 10, `only ${routes.length} routes found`);
  for (const { method, path } of routes) {
    const url = path.replace(':billId', bill.billId).replace(/:\w+/g, 'x') + `?token=${bill.token}`;
    const res = await h.request(url, { method, headers: { Origin: 'https://shop.example', ...json }, body: method === 'GET' ? undefined : '{}' });
    if (res.status !== 204) await res.body?.cancel();
    const label = `${method} ${path} (${res.status})`;
    assert.ok(res.status < 500, label);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', label);
    if (!path.startsWith('/api/')) continue;
    assert.equal(res.headers.get('x-server-time'), String(h.clock.now()), label);
    const browser = path.startsWith('/api/bills');
    assert.equal(res.headers.get('access-control-allow-origin'), browser ? 'https://shop.example' : null, label);
  }
  const preflight = await h.request(`/api/bills/${bill.billId}`, {
    method: 'OPTIONS', headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'GET' },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://shop.example');
});
