import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { startHarness, TEST_ADMIN_TOKEN, TEST_TICKET_SECRET } from '../../support/harness.js';
import { serveOn } from '../../support/servers.js';

const json = { 'Content-Type': 'application/json' };

test('a browser amount within CLIENT_AMOUNT_MIN..MAX creates a bill whose hook URLs carry an unguessable token', async (t) => {
  const h = await startHarness(t);
  const bill = await h.create({ amount: '12.50' });
  assert.equal(bill.billAmount, '12.50');
  assert.equal(bill.outcome, 'pending');
  assert.match(bill.token, /^[A-Za-z0-9_-]{43}$/);
  assert.ok(bill.billUrl.startsWith(`${h.sandboxUrl}/pay/`));
  const stored = await h.store.getByBillId(bill.billId);
  assert.match(stored!.hookToken, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(stored!.hookToken, bill.token);
  h.sandbox.pay(bill.billId);
  await h.sandbox.idle();
  const url = h.sandbox.stats().callbacks[0]!.url;
  assert.equal(url, `${h.url}/api/hooks/callback/${bill.merchantReference}/${stored!.hookToken}`);
});

test('browser amounts are refused outside the bounds, and entirely when not allowed', async (t) => {
  const h = await startHarness(t);
  for (const [amount, code] of [['0.5', 'amount_out_of_range'], ['501', 'amount_out_of_range'], ['-3', 'invalid_amount'], ['1e9999', 'invalid_amount']]) {
    const res = await h.request('/api/bills', { method: 'POST', headers: json, body: JSON.stringify({ amount }) });
    assert.equal(res.status, 400, amount);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, code);
  }
  const strict = await startHarness(t, { env: { CLIENT_AMOUNT_MIN: '', CLIENT_AMOUNT_MAX: '' } });
  const res = await strict.request('/api/bills', { method: 'POST', headers: json, body: JSON.stringify({ amount: 10 }) });
  assert.equal(res.status, 400);
  assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'amount_not_allowed');
  assert.equal(strict.sandbox.stats().calls.create, 0);
});

test('invalid input answers a clear 400', async (t) => {
  const h = await startHarness(t);
  const cases: [string, Record<string, string>, string][] = [
    ['{"orderId":"no spaces allowed"}', json, 'invalid_request'],
    ['{"amount":', json, 'invalid_json'],
    ['{"amount":"5"}', { ...json, 'Idempotency-Key': 'has space' }, 'invalid_idempotency_key'],
  ];
  for (const [body, headers, code] of cases) {
    const res = await h.request('/api/bills', { method: 'POST', headers, body });
    assert.equal(res.status, 400);
    const error = ((await res.json()) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, code);
    assert.ok(error.message.length > 0);
  }
});

test('the same Idempotency-Key returns the same bill; with another request it answers 422', async (t) => {
  const h = await startHarness(t);
  const key = { 'Idempotency-Key': 'order-7-attempt' };
  const [a, b] = await Promise.all([h.create({ amount: '20' }, key), h.create({ amount: '20' }, key)]);
  const c = await h.create({ amount: '20.00' }, key);
  assert.equal(a.billId, b.billId);
  assert.equal(a.token, c.token);
  assert.equal(h.sandbox.stats().calls.create, 1);
  const res = await h.request('/api/bills', { method: 'POST', headers: { ...json, ...key }, body: '{"amount":"21"}' });
  assert.equal(res.status, 422);
  assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'idempotency_key_reused');
});

test('the same orderId returns its bill while pending and unexpired, a new one once final', async (t) => {
  const h = await startHarness(t, { hooks: { resolveOrder: async (id) => (id === 'ord-1' ? { amount: '42.10' } : null) } });
  const [a, b] = await Promise.all([h.create({ orderId: 'ord-1' }), h.create({ orderId: 'ord-1' })]);
  assert.equal(a.billId, b.billId);
  assert.equal(a.billAmount, '42.10');
  h.sandbox.decline(a.billId);
  await h.sandbox.idle();
  const c = await h.create({ orderId: 'ord-1' });
  assert.notEqual(c.billId, a.billId);
  assert.equal(h.sandbox.stats().calls.create, 2);
});

test('resolveOrder wins over a browser amount; an unknown order answers 404', async (t) => {
  const h = await startHarness(t, { hooks: { resolveOrder: async (id) => (id === 'ord-9' ? { amount: 99 } : null) } });
  const bill = await h.create({ orderId: 'ord-9', amount: '1' });
  assert.equal(bill.billAmount, '99');
  const res = await h.request('/api/bills', { method: 'POST', headers: json, body: '{"orderId":"nope"}' });
  assert.equal(res.status, 404);
  assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'order_not_found');
});

test('ORDER_LOOKUP_URL supplies the amount: GET {url}/{orderId}', async (t) => {
  const seen: string[] = [];
  const shop = new Hono();
  shop.get('/orders/:id', (c) => {
    seen.push(c.req.param('id'));
    return c.req.param('id') === 'A-17' ? c.json({ amount: '7.25', currency: 'USD' }) : c.json({}, 404);
  });
  const served = await serveOn(shop.fetch);
  t.after(() => served.close());
  const h = await startHarness(t, {
    env: { ORDER_LOOKUP_URL: `${served.url}/orders`, ORDER_TICKET_SECRET: TEST_TICKET_SECRET, CLIENT_AMOUNT_MIN: '', CLIENT_AMOUNT_MAX: '' },
  });
  const bill = await h.create({ orderId: 'A-17', orderTicket: await h.ticket('A-17'), amount: '1000' });
  assert.equal(bill.billAmount, '7.25');
  const res = await h.request('/api/bills', { method: 'POST', headers: json, body: JSON.stringify({ orderId: 'B-1', orderTicket: await h.ticket('B-1') }) });
  assert.equal(res.status, 404);
  assert.deepEqual(seen, ['A-17', 'B-1']);
});

test('a create whose answer is lost is settled by listing our merchantReference before it is tried again', async (t) => {
  const calls: string[] = [];
  const refs: string[] = [];
  let lose = 1;
  const h = await startHarness(t, {
    env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN },
    upstreamHttp: (real) => async (url, request) => {
      const path = new URL(url).pathname;
      calls.push(path);
      if (path.endsWith('/v1/bill/create')) refs.push((JSON.parse(String(request.body)) as { merchantReference: string }).merchantReference);
      const res = await real(url, request);
      if (path.endsWith('/v1/bill/create') && lose-- > 0) throw new TypeError('fetch failed: socket hang up');
      return res;
    },
  });
  const bill = await h.create({ amount: '15' }, { 'Idempotency-Key': 'lost-once' });
  // (The orphan's cancel brings its callback, and that a requery: the orphan is kept and followed.)
  assert.deepEqual(calls.filter((path) => !path.endsWith('/v1/bill/requery')), ['/v1/bill/create', '/v1/bills', '/v1/bill/cancel', '/v1/bill/create']);
  assert.equal(bill.merchantReference, refs[1]);
  assert.notEqual(refs[0], refs[1]);
  // The orphan the service made under the first reference was withdrawn.
  const res = await h.request('/api/admin/bills', {
    method: 'POST',
    headers: { ...json, Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    body: JSON.stringify({ filters: [{ name: 'merchantReference', value: refs[0], matchType: 'equal' }] }),
  });
  const list = (await res.json()) as { lists: { statusName: string; local: unknown }[] };
  assert.equal(list.lists.length, 1);
  assert.equal(list.lists[0]!.statusName, 'Cancelled');
  // The BFF keeps the orphan: no path forgets a billId it was given.
  assert.notEqual(list.lists[0]!.local, null);
  // The key still answers the bill that was made.
  const again = await h.create({ amount: '15' }, { 'Idempotency-Key': 'lost-once' });
  assert.equal(again.billId, bill.billId);
  assert.equal(h.sandbox.stats().calls.create, 2);
});

test('a create the service refuses answers 502 upstream_rejected, with nothing secret in it', async (t) => {
  const h = await startHarness(t);
  const res = await h.request('/api/bills', { method: 'POST', headers: json, body: '{"amount":"10.005"}' });
  assert.equal(res.status, 502);
  const text = await res.text();
  assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, 'upstream_rejected');
  assert.ok(!text.includes(h.config.upstream.secret) && !text.includes(h.config.upstream.key));
});

test('creates are rate limited per client', async (t) => {
  const h = await startHarness(t, { env: { CREATE_RATE_LIMIT_PER_MINUTE: '2' } });
  await h.create({ amount: '5' });
  await h.create({ amount: '6' });
  const res = await h.request('/api/bills', { method: 'POST', headers: json, body: '{"amount":"7"}' });
  assert.equal(res.status, 429);
  assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'rate_limited');
  assert.ok(Number(res.headers.get('Retry-After')) >= 1);
  h.clock.advance(30_000);
  await h.create({ amount: '7' });
  assert.equal(h.sandbox.stats().calls.create, 3);
});

test('after a restart, the reconciler settles a create left in creating: the orphan is withdrawn', async (t) => {
  const h = await startHarness(t);
  const ref = 'bc_leftover_1';
  await h.store.insertBill({ merchantReference: ref, orderId: null, idempotencyKey: null, amount: '9', orderAmount: null, orderCurrency: null, token: 't'.repeat(43), hookToken: 'h'.repeat(43), createdAt: h.clock.now() });
  // The service made the bill, but the process died before storing the answer.
  const orphan = await h.upstream.createBill({ amount: '9', merchantReference: ref, callbackUrl: `${h.url}/x`, redirectUrl: `${h.url}/y` });
  assert.equal((await h.internals.reconciler.runOnce()).settled, 0); // too young: a create may still be answering
  h.clock.advance(2 * h.config.upstream.timeoutMs + 1);
  assert.equal((await h.internals.reconciler.runOnce()).settled, 1);
  const kept = (await h.store.getByReference(ref))!;
  assert.deepEqual([kept.createState, kept.billId, kept.orphanedAt !== null, kept.withdrawConfirmedAt !== null], ['created', orphan.billId, true, true]);
  assert.equal((await h.upstream.requeryBill(orphan.billId)).statusName, 'Cancelled');
  await h.sandbox.idle();
});
