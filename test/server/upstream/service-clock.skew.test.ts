// Correct under any service's clock and timing (issue 32), over real HTTP against BFFs with
// NODE_ENV=production: a clock behind, a Date header in local time, expiredOn in seconds, a read
// replica a second behind, a callback that beats its create answer, a small maximum page size, a
// create answered with a redirect. Each case is a sandbox fault (sandbox/README.md, "Faults").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BillView, CreatedBillView } from '../../../contract/bill-view.js';
import type { BillNotice } from '../../../server/domain/bill-view.js';
import type { ServiceClock } from '../../../server/upstream/service-clock.js';
import type { ClockContradiction, HttpResponse } from '../../../server/upstream/types.js';
import { startHarness, TEST_TICKET_SECRET } from '../support/harness.js';
import type { Harness, HarnessOptions } from '../support/harness.js';
import { readSse } from '../support/sse.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const production = { NODE_ENV: 'production', RETURN_URL: 'https://shop.example/thanks' };
const withOrders = { ...production, ORDER_TICKET_SECRET: TEST_TICKET_SECRET, CLIENT_AMOUNT_MIN: '', CLIENT_AMOUNT_MAX: '' };
const resolveOrder = async (orderId: string) => (orderId.startsWith('order-') ? { amount: '25.00' } : null);

async function post(h: Harness, body: Record<string, unknown>) {
  const res = await h.request('/api/bills', { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(body) });
  return { status: res.status, res, json: (await res.json()) as CreatedBillView & { error?: { code: string; message: string } } };
}

/** The next status event on a bill's stream that satisfies `until`, and when it came (ms, performance.now). */
async function streamUntil(h: Harness, bill: CreatedBillView, until: (view: BillView) => boolean, limitMs: number) {
  const res = await h.request(`/api/bills/${bill.billId}/events?token=${bill.token}`);
  const sse = readSse(res);
  const timer = setTimeout(() => void sse.cancel(), limitMs);
  try {
    for (;;) {
      const view = await sse.next();
      if (view === null) return null;
      if (until(view)) return { view, at: performance.now() };
    }
  } finally {
    clearTimeout(timer);
    await sse.cancel().catch(() => undefined);
  }
}

test("the service's clock 20 min behind: three creates of one order with one ticket make one bill", async (t) => {
  const h = await startHarness(t, { env: withOrders, hooks: { resolveOrder }, sandbox: { clockOffsetMs: -1_200_000 } });
  const ticket = await h.ticket('order-1042');
  const answers = [];
  for (let i = 0; i < 3; i++) {
    const { status, json } = await post(h, { orderId: 'order-1042', orderTicket: ticket });
    assert.equal(status, 201, JSON.stringify(json));
    answers.push(json.billId);
    h.clock.advance(60_000);
  }
  assert.equal(new Set(answers).size, 1, `bills ${answers.join(', ')}`);
  assert.equal(h.sandbox.stats().calls.create, 1);
  assert.equal(h.sandbox.stats().calls.cancel, 0);
});

/** What the widget counts down from an answer about `bill`: expiredOn − that answer's X-Service-Time, ms. */
const countdown = (res: Response, bill: { expiredOn: number }) => bill.expiredOn - Number(res.headers.get('x-service-time'));

/** Within 2 s of what the service gives the bill now, by its own clock. */
function assertCountdown(h: Harness, res: Response, bill: { expiredOn: number }, what: string) {
  const shown = countdown(res, bill);
  const truth = bill.expiredOn - h.sandbox.clock().now;
  assert.ok(Math.abs(shown - truth) <= 2000, `${what}: the countdown shows ${shown} ms, the service gives ${truth} ms`);
}

test('status records dated 7 h ahead (local time labelled UTC): a new bill keeps its own quarter of an hour: its countdown right, never withdrawn early, reused on reload', async (t) => {
  const h = await startHarness(t, { env: withOrders, hooks: { resolveOrder } });
  h.sandbox.setFaults({ recordDateTimeOffsetMs: 25_200_000 });
  const told: ClockContradiction[] = [];
  // The hook the app connects to its alerts (called as optional only so that this test tells what a customer sees first).
  const clock: Partial<Pick<ServiceClock, 'onContradiction'>> = h.upstream.clock!;
  clock.onContradiction?.((c) => told.push(c));
  // Other customers' bills, requeried behind their polls: every record the service states is 7 h ahead.
  const others: CreatedBillView[] = [];
  for (let i = 0; i < 3; i++) {
    const { status, json } = await post(h, { orderId: `order-other-${i}`, orderTicket: await h.ticket(`order-other-${i}`) });
    assert.equal(status, 201, JSON.stringify(json));
    others.push(json);
  }
  for (let round = 0; round < 3; round++) {
    h.clock.advance(5_000);
    for (const other of others) await h.request(`/api/bills/${other.billId}?token=${other.token}`);
    await h.refreshed();
  }
  assert.ok(others.every((other) => h.requeries(other.billId) >= 3));

  // The customer's bill: a quarter of an hour, counted down as such on every answer about it.
  const ticket = await h.ticket('order-2001');
  const { status, res, json: bill } = await post(h, { orderId: 'order-2001', orderTicket: ticket });
  assert.equal(status, 201, JSON.stringify(bill));
  assertCountdown(h, res, bill, 'the create');
  assertCountdown(h, await h.request(`/api/bills/${bill.billId}?token=${bill.token}`), bill, 'a poll');
  const stream = await h.request(`/api/bills/${bill.billId}/events?token=${bill.token}`);
  assertCountdown(h, stream, bill, 'its stream');
  await stream.body?.cancel();
  assertCountdown(h, await h.request(`/api/bills/${bill.billId}/checkout.html?token=${bill.token}`), bill, 'checkout.html');

  // Eleven minutes on (past 10 min of grace), polled and reconciled: still the customer's, pending at the service.
  h.clock.advance(11 * 60_000);
  const later = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
  assertCountdown(h, later, bill, 'a poll 11 min on');
  await h.refreshed();
  await h.internals.reconciler.runOnce();
  await h.refreshed();
  assert.equal(h.sandbox.stats().calls.cancel, 0, 'no bill was withdrawn');
  // A reload: the same order's create hands the same bill back, with its countdown.
  const again = await post(h, { orderId: 'order-2001', orderTicket: await h.ticket('order-2001') });
  assert.equal(again.status, 201, JSON.stringify(again.json));
  assert.equal(again.json.billId, bill.billId, 'the order\'s bill is reused, not withdrawn and made again');
  assertCountdown(h, again.res, bill, 'the reload');
  // Half a minute before its own end: reconciled again, still not withdrawn.
  h.clock.advance(3 * 60_000 + 30_000);
  await h.internals.reconciler.runOnce();
  await h.refreshed();
  assert.equal(h.sandbox.stats().calls.cancel, 0, 'no bill was withdrawn before its own lifetime');
  assert.equal((await h.upstream.requeryBill(bill.billId)).status, 1, 'still payable at the service');
  assert.equal(h.sandbox.stats().calls.create, 4, 'one bill per order');
  // Each record dated ahead was reported for an alert, never taken as the service's time.
  assert.ok(told.length >= 9, `${told.length} contradictions reported`);
  // (dateTime is the bill's last update, so less than 7 h after the service's time as the bill ages.)
  assert.ok(told.every((c) => c.aheadMs > 25_200_000 - 20 * 60_000 && c.aheadMs <= 25_200_000 + 5_000));
});

test("the service's clock 20 min behind, then corrected: the very next bill's countdown is right", async (t) => {
  const h = await startHarness(t, { env: production, sandbox: { clockOffsetMs: -1_200_000 } });
  const first = await post(h, { amount: '12.50' });
  assert.equal(first.status, 201);
  assertCountdown(h, first.res, first.json, 'the bill made 20 min behind');
  h.sandbox.setClockOffset(0);
  h.clock.advance(5_000);
  const next = await post(h, { amount: '13.50' });
  assert.equal(next.status, 201);
  assertCountdown(h, next.res, next.json, 'the next create');
  assertCountdown(h, await h.request(`/api/bills/${next.json.billId}?token=${next.json.token}`), next.json, 'its poll');
});

test('a Date header 2 h ahead (local time labelled GMT): no bill withdrawn, the countdown right, the disagreement counted', async (t) => {
  const h = await startHarness(t, { env: production, sandbox: { faults: { dateHeaderOffsetMs: 7_200_000 } } });
  const { status, res, json: bill } = await post(h, { amount: '12.50' });
  assert.equal(status, 201);
  // The widget counts down from X-Service-Time: a quarter of an hour, as the service gives it.
  const serviceTime = Number(res.headers.get('x-service-time'));
  assert.ok(Math.abs(bill.expiredOn - serviceTime - 900_000) <= 2000, `countdown ${bill.expiredOn - serviceTime} ms`);
  assert.equal(h.internals.alerts.counts().service_clock_disagrees, 1);
  const metrics = await h.app.metrics.registry.metrics();
  assert.match(metrics, /bill_checkout_answer_mismatches_total\{kind="service_clock_disagrees"\} 1/);
  // Polled past the refresh window, asked again: still pending, never cancelled at the service.
  for (let i = 0; i < 3; i++) {
    h.clock.advance(5_000);
    const read = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
    assert.equal(read.status, 200);
    assert.ok(Math.abs(Number(read.headers.get('x-service-time')) - h.sandbox.clock().now) <= 2000);
    await h.refreshed();
  }
  assert.ok(h.requeries(bill.billId) >= 3);
  assert.equal(h.sandbox.stats().calls.cancel, 0);
  assert.equal((await h.upstream.requeryBill(bill.billId)).status, 1, 'still payable at the service');
});

test('expiredOn in seconds: refused, the bill cancelled at the service, a clear 502', async (t) => {
  const h = await startHarness(t, { env: production, sandbox: { faults: { expiredOnUnit: 's' } } });
  const { status, json } = await post(h, { amount: '12.50' });
  assert.equal(status, 502);
  assert.equal(json.error?.code, 'upstream_invalid_answer');
  assert.doesNotMatch(json.error!.message, /\d{9}/, 'the message says what happened, not the service\'s numbers');
  const { lists } = await h.upstream.listBills({});
  assert.equal(lists.length, 1);
  assert.equal(lists[0]!.status, 4, 'cancelled at the service');
  assert.equal(h.sandbox.stats().calls.create, 1, 'not made again');
});

test('a read replica 1 s behind, default RECONCILE_INTERVAL_MS: paid on the stream within 3 s of the payment, expired within 3 s of the expiry', { timeout: 30_000 }, async (t) => {
  const h = await startHarness(t, {
    // Bills of seconds (real time): below the one-minute floor, which BILL_MIN_LIFETIME_MS lowers.
    env: { ...production, BILL_MIN_LIFETIME_MS: '1000' }, realClock: true, start: true,
    sandbox: { billLifetimeMs: 6_000, faults: { replicaLagMs: 1000 } },
  });
  assert.equal(h.config.reconcileIntervalMs, 30_000);
  const paid = await h.create({ amount: '12.50' });
  const expiring = await h.create({ amount: '13.50' });
  const seenPaid = streamUntil(h, paid, (view) => view.outcome === 'paid', 10_000);
  const seenExpired = streamUntil(h, expiring, (view) => view.outcome === 'expired', 15_000);
  const paidAt = performance.now();
  h.sandbox.pay(paid.billId);
  const shown = await seenPaid;
  assert.ok(shown, 'the payment reached the stream');
  assert.ok(shown.at - paidAt < 3000, `paid shown ${Math.round(shown.at - paidAt)} ms after the payment`);
  // The service's own expiry (its clock is ours here): shown soon after, not at the next reconcile.
  const expired = await seenExpired;
  assert.ok(expired, 'the expiry reached the stream');
  const late = Date.now() - (performance.now() - expired.at) - expiring.expiredOn;
  assert.ok(late < 3000, `expired shown ${Math.round(late)} ms after the service's expiry`);
  assert.equal(h.sandbox.stats().calls.cancel, 0);
});

test('callbacks before the create answer (retried at once): recorded, answered 200, paid shown within 3 s of the create answer, one notice', { timeout: 30_000 }, async (t) => {
  const notices: BillNotice[] = [];
  const h = await startHarness(t, {
    env: production, realClock: true, start: true,
    hooks: { onFinal: (bill) => void notices.push(bill) },
    sandbox: { faults: { payOnCreate: true, createAnswerAfterCallback: true, callbackRetryDelayMs: 0 } },
  });
  const bill = await h.create({ amount: '12.50' });
  const answeredAt = performance.now();
  const attempts = h.sandbox.stats().callbacks.filter((c) => c.billId === bill.billId);
  assert.deepEqual(attempts.map((a) => a.outcome), ['ok'], 'the first callback was taken');
  const shown = await streamUntil(h, bill, (view) => view.outcome === 'paid', 10_000);
  assert.ok(shown, 'the payment reached the stream');
  assert.ok(shown.at - answeredAt < 3000, `paid shown ${Math.round(shown.at - answeredAt)} ms after the create answer`);
  while (notices.length === 0) await h.internals.noticeWorker.runOnce();
  await h.internals.noticeWorker.runOnce();
  assert.deepEqual(notices.map((n) => n.billId), [bill.billId]);
  const metrics = await h.app.metrics.registry.metrics();
  assert.match(metrics, /bill_checkout_callbacks_total\{result="early"\} 1/);
});

test('a service whose largest page is 10: the orphan of a lost create is found and voided', async (t) => {
  const h = await startHarness(t, { env: production, sandbox: { faults: { createLostResponseRate: 1, hangMs: 50, maxPageSize: 10 } } });
  const { status } = await post(h, { amount: '12.50' });
  // Both attempts settled: no bill was made for this call, and the customer may ask again.
  assert.equal(status, 503);
  const { lists } = await h.upstream.listBills({ paging: { index: 1, size: 10 } });
  // The first create and the one retry it allows: both made at the service, both withdrawn.
  assert.equal(lists.length, 2);
  assert.deepEqual(lists.map((r) => r.status), [4, 4]);
  const store = (await h.store.listCreating(Number.MAX_SAFE_INTEGER, 10));
  assert.equal(store.length, 0, 'no create is left unsettled');
});

test('a create answered with a redirect is settled by reference like an unknown outcome', async (t) => {
  let redirected = 0;
  const h = await startHarness(t, {
    env: production,
    upstreamHttp: (real) => async (url, request) => {
      const answer = await real(url, request);
      if (!url.endsWith('/v1/bill/create') || redirected++ > 0) return answer;
      await answer.text();
      // The service made the bill, and a proxy in front of it answered 307.
      const moved: HttpResponse = {
        status: 307,
        headers: { get: (name) => ({ location: 'https://elsewhere.example/v1/bill/create', date: answer.headers.get('date') })[name.toLowerCase()] ?? null },
        text: async () => '',
      };
      return moved;
    },
  });
  const { status, json: bill } = await post(h, { amount: '12.50' });
  assert.equal(status, 201);
  const { lists } = await h.upstream.listBills({});
  assert.equal(lists.length, 2);
  const orphan = lists.find((r) => r.billId !== bill.billId)!;
  assert.equal(orphan.status, 4, 'the bill made before the redirect is withdrawn');
  assert.equal(lists.find((r) => r.billId === bill.billId)!.status, 1);
});

test("what the service sends is bounded: a 150-character currency in a requery is refused, the stored bill unchanged", async (t) => {
  const h = await startHarness(t, { env: production });
  const bill = await h.create({ amount: '12.50' });
  h.sandbox.setFaults({ lies: { requery: { currency: 'C'.repeat(150) } } });
  h.clock.advance(5_000);
  await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
  await h.refreshed();
  assert.equal(h.requeries(bill.billId) >= 1, true);
  const stored = (await h.store.getByBillId(bill.billId))!;
  assert.equal(stored.currency, 'USD');
  assert.ok(h.logs.some((line) => line.includes('data.currency') && line.includes('1 to 16 letters or digits')));
});

for (const database of ['sqlite', 'postgresql'] as const) {
  test(`ids no bill can have (a NUL byte) answer 404 before any store call, and no outage is reported (${database})`, async (t) => {
    const options: HarnessOptions = { env: { ...production, ADMIN_TOKEN: 'test-admin-token-0123456789abcdef' } };
    if (database === 'postgresql') {
      const { startPg } = await import('../support/pg.js');
      const pg = await startPg();
      t.after(() => pg.stop());
      options.env!.DATABASE_URL = await pg.createDatabase();
    }
    const h = await startHarness(t, options);
    const admin = { Authorization: 'Bearer test-admin-token-0123456789abcdef' };
    const paths: [string, RequestInit, number][] = [
      ['/api/bills/%00?token=x', {}, 404],
      ['/api/bills/a%00b/events?token=x', {}, 404],
      ['/api/bills/%00/cancel?token=x', { method: 'POST', headers: JSON_TYPE, body: '{}' }, 404],
      ['/api/hooks/callback/%00/token', { method: 'POST', headers: JSON_TYPE, body: '{}' }, 404],
      ['/api/hooks/return/%00/token', {}, 404],
      [`/api/bills/${'x'.repeat(201)}?token=x`, {}, 404],
      ['/api/admin/bills/%00', { headers: admin }, 404],
      ['/api/admin/notices?billId=%00', { headers: admin }, 400],
      ['/api/admin/bills', { method: 'POST', headers: { ...admin, ...JSON_TYPE }, body: JSON.stringify({ filters: [{ name: 'orderId', value: 'a\u0000', matchType: 'equal' }] }) }, 400],
    ];
    for (const [path, init, expected] of paths) {
      const res = await h.request(path, init);
      assert.equal(res.status, expected, path);
    }
    const metrics = await h.app.metrics.registry.metrics();
    assert.match(metrics, /bill_checkout_callbacks_total\{result="store_unavailable"\} 0/);
    assert.deepEqual(h.logs.filter((line) => line.includes('"level":"error"')), []);
  });
}

test('a validation message names its field once', async (t) => {
  const h = await startHarness(t, { env: withOrders, hooks: { resolveOrder } });
  const { status, json } = await post(h, { orderId: '..' });
  assert.equal(status, 400);
  assert.equal(json.error?.message.match(/orderId/g)?.length, 1, json.error?.message);
});
