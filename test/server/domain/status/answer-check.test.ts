// A create always ends (issue 41, DESIGN rule 3), over real HTTP against a production-configured BFF
// and a sandbox that fails the way real gateways' edges do: a create the service surely did not
// make leaves the customer's key reusable; an unknown one is settled before anything is retried,
// its orphans kept and withdrawn until the service confirms; settling is bounded in time; a bill the
// service no longer knows is never handed out again. Every case checks the service's own book:
// never two payable bills for one order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BillNotice } from '../../../../server/domain/bill-view.js';
import { serviceReference } from '../../../../server/domain/status/answer-check.js';
import type { StatusRecord } from '../../../../server/upstream/types.js';
import { startHarness, TEST_ADMIN_TOKEN, TEST_TICKET_SECRET, type Harness, type HarnessOptions } from '../../support/harness.js';

const json = { 'Content-Type': 'application/json' };
const PRICE = '25.00';

async function shopHarness(t: Parameters<typeof startHarness>[0], over: HarnessOptions = {}) {
  const notices: BillNotice[] = [];
  const h = await startHarness(t, {
    ...over,
    env: {
      NODE_ENV: 'production', RETURN_URL: 'https://shop.example/thanks', ORDER_TICKET_SECRET: TEST_TICKET_SECRET,
      CLIENT_AMOUNT_MIN: '', CLIENT_AMOUNT_MAX: '', BILL_EXPIRY_GRACE_MS: '60000', ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...over.env,
    },
    hooks: { resolveOrder: async () => ({ amount: PRICE }), onFinal: (bill) => void notices.push(bill) },
  });
  return { h, notices };
}

interface Answer {
  status: number;
  code: string | null;
  retryAfter: string | null;
  billId: string | null;
}

/** POST /api/bills for `orderId` under `key`, as the element sends it. */
async function post(h: Harness, orderId: string, key: string): Promise<Answer> {
  const res = await h.request('/api/bills', {
    method: 'POST',
    headers: { ...json, 'Idempotency-Key': key },
    body: JSON.stringify({ orderId, orderTicket: await h.ticket(orderId) }),
  });
  const body = (await res.json()) as { billId?: string; error?: { code: string } };
  return { status: res.status, code: body.error?.code ?? null, retryAfter: res.headers.get('retry-after'), billId: body.billId ?? null };
}

/**
 * The element's rule (widget/bff-client.ts): a 409 create_in_progress or a 503 with Retry-After is
 * asked again with the same key after that delay (the fake clock moves it), up to `tries`.
 */
async function customer(h: Harness, orderId: string, key: string, tries = 6): Promise<{ answers: Answer[]; billId: string | null }> {
  const answers: Answer[] = [];
  for (let i = 0; i < tries; i++) {
    const answer = await post(h, orderId, key);
    answers.push(answer);
    if (answer.status === 201 || answer.status === 200) return { answers, billId: answer.billId };
    const again = (answer.status === 409 && answer.code === 'create_in_progress') || (answer.status === 503 && answer.retryAfter !== null);
    if (!again) break;
    h.clock.advance(Number(answer.retryAfter ?? '2') * 1000);
  }
  return { answers, billId: null };
}

/** Every bill the service holds, from its own list (no filter: a fault may refuse one). */
async function serviceBook(h: Harness): Promise<StatusRecord[]> {
  const all: StatusRecord[] = [];
  for (let page = 1; ; page++) {
    const { lists, total } = await h.upstream.listBills({ paging: { index: page, size: 100 } });
    all.push(...lists);
    if (lists.length === 0 || all.length >= total) return all;
  }
}

/** The order's bills that the service would still take a payment for. */
async function payableAtService(h: Harness, orderId: string): Promise<StatusRecord[]> {
  const refs = new Set((await h.store.findBillsByOrder(orderId, 'equal', 100)).map((bill) => serviceReference(bill.merchantReference)));
  return (await serviceBook(h)).filter((record) => refs.has(record.merchantReference) && record.status === 1);
}

for (const [name, refusal, first] of [
  ['one 429', { status: 429, retryAfterS: 1 }, 'upstream_busy'],
  ['a 401', { status: 401 }, 'upstream_unavailable'],
  ['a 503 maintenance page from the edge', { status: 503, html: true }, 'upstream_unavailable'],
] as const) {
  test(`${name} on create: nothing was made, the same key after Retry-After gets the order's one payable bill`, async (t) => {
    const { h } = await shopHarness(t);
    h.sandbox.setFaults({ refusals: { create: [refusal] } });
    const { answers, billId } = await customer(h, 'order-refused', 'key-refused');
    assert.deepEqual(answers.map((a) => [a.status, a.code]), [[503, first], [201, null]]);
    assert.ok(Number(answers[0]!.retryAfter) >= 1, 'the refusal says when to try again');
    // The key now holds that bill: asked again, it answers the same one.
    assert.equal((await post(h, 'order-refused', 'key-refused')).billId, billId);
    assert.deepEqual((await payableAtService(h, 'order-refused')).map((r) => r.billId), [billId]);
    assert.equal(h.sandbox.stats().calls.create, 2);
  });
}

for (const resets of [2, 3]) {
  test(`${resets} resets after the bill was made: each orphan kept and withdrawn, the customer paid a single bill, never stuck`, async (t) => {
    const { h } = await shopHarness(t);
    h.sandbox.setFaults({ createResetAfterMade: resets });
    const { answers, billId } = await customer(h, 'order-reset', 'key-reset');
    assert.ok(billId, `the customer got a bill: ${JSON.stringify(answers)}`);
    assert.ok(answers.every((a) => a.status === 201 || (a.status === 503 && a.retryAfter !== null)), JSON.stringify(answers));
    assert.equal(h.sandbox.stats().calls.create, resets + 1);
    assert.deepEqual((await payableAtService(h, 'order-reset')).map((r) => r.billId), [billId]);
    // Every orphan is kept, confirmed withdrawn, and no order's current bill.
    const orphans = (await h.store.findBillsByOrder('order-reset', 'equal', 100)).filter((b) => b.orphanedAt !== null);
    assert.equal(orphans.length, resets);
    assert.ok(orphans.every((o) => o.withdrawConfirmedAt !== null && o.billId !== null));
    await h.sandbox.idle();
    await h.refreshed();
  });
}

test('an orphan whose cancel is refused once: no second bill until the service confirms its withdrawal', async (t) => {
  const { h } = await shopHarness(t);
  h.sandbox.setFaults({ createResetAfterMade: 1, refusals: { cancel: [{ status: 429, retryAfterS: 1 }] } });
  const first = await post(h, 'order-orphan', 'key-orphan');
  // The orphan is still payable at the service: the order waits rather than get a second bill.
  assert.deepEqual([first.status, first.code], [503, 'order_bill_pending']);
  const [orphan] = await payableAtService(h, 'order-orphan');
  assert.ok(orphan, 'the orphan is still pending at the service');
  assert.equal((await h.store.getByBillId(orphan.billId))?.withdrawConfirmedAt, null);
  // The reconciler withdraws it (no customer needed)...
  const pass = await h.internals.reconciler.runOnce();
  assert.equal(pass.withdrawn, 1);
  assert.deepEqual(await payableAtService(h, 'order-orphan'), []);
  // ...and the customer's retry with the same key gets the one payable bill.
  h.clock.advance(2_000);
  const { billId } = await customer(h, 'order-orphan', 'key-orphan');
  assert.deepEqual((await payableAtService(h, 'order-orphan')).map((r) => r.billId), [billId]);
  await h.sandbox.idle();
  await h.refreshed();
});

test('a retry before the reconciler: the orphan is withdrawn first, then the one new bill is made', async (t) => {
  const { h } = await shopHarness(t);
  h.sandbox.setFaults({ createResetAfterMade: 1, refusals: { cancel: [{ status: 503 }] } });
  assert.equal((await post(h, 'order-orphan-2', 'key-2')).code, 'order_bill_pending');
  assert.equal((await payableAtService(h, 'order-orphan-2')).length, 1);
  h.clock.advance(2_000);
  const again = await post(h, 'order-orphan-2', 'key-2');
  assert.equal(again.status, 201);
  assert.deepEqual((await payableAtService(h, 'order-orphan-2')).map((r) => r.billId), [again.billId]);
  await h.sandbox.idle();
  await h.refreshed();
});

test('a list that refuses our filter: the order is released within the bound with an alert; the page size is left alone', async (t) => {
  const { h } = await shopHarness(t);
  // A bill made cleanly first: its lifetime (the sandbox's 15 minutes) is the bound's base.
  assert.ok((await customer(h, 'order-before', 'key-before')).billId);
  h.sandbox.setFaults({ createResetAfterMade: 1, listRefusedFilters: ['merchantReference'] });
  const listsBefore = h.sandbox.stats().calls.list;
  const first = await post(h, 'order-filter', 'key-filter');
  assert.deepEqual([first.status, first.code], [503, 'upstream_unavailable']);
  // One list call per settling: a refusal that names a filter does not halve the page size down to 1.
  assert.equal(h.sandbox.stats().calls.list - listsBefore, 1);
  // Meanwhile the same key hears "still being created", not "use a new key".
  h.clock.advance(2 * h.config.upstream.timeoutMs + 1);
  const waiting = await post(h, 'order-filter', 'key-filter');
  assert.deepEqual([waiting.status, waiting.code, waiting.retryAfter], [409, 'create_in_progress', '2']);
  // The reconciler keeps trying within the bound (lifetime 15 min + grace 1 min)...
  await h.internals.reconciler.runOnce();
  assert.equal(h.internals.alerts.counts().create_settle_abandoned, 0);
  h.clock.advance(16 * 60_000);
  await h.internals.reconciler.runOnce();
  // ...and past it releases the order, with an alert.
  assert.equal(h.internals.alerts.counts().create_settle_abandoned, 1);
  assert.ok(h.logs.some((line) => line.includes('"alert":"create_settle_abandoned"')));
  const { billId } = await customer(h, 'order-filter', 'key-filter');
  assert.ok(billId);
  // The orphan expired at the service meanwhile: one payable bill.
  assert.deepEqual((await payableAtService(h, 'order-filter')).map((r) => r.billId), [billId]);
  await h.sandbox.idle();
  await h.refreshed();
});

test('an orphan a lagging list did not show, paid later: recorded, flagged duplicatePayment, notified once, alert raised', async (t) => {
  const { h, notices } = await shopHarness(t);
  h.sandbox.setFaults({ createResetAfterMade: 1, replicaLagMs: 5_000 });
  const { billId } = await customer(h, 'order-lag', 'key-lag');
  assert.ok(billId);
  // The list missed the orphan: find it behind the BFF's back once the replica caught up.
  h.clock.advance(6_000);
  const orphan = (await serviceBook(h)).find((r) => r.billId !== billId && r.status === 1);
  assert.ok(orphan, 'the orphan is at the service');
  assert.equal(await h.store.getByBillId(orphan.billId), null);
  h.sandbox.setFaults({ replicaLagMs: 0 });
  h.sandbox.pay(orphan.billId);
  await h.sandbox.idle();
  await h.refreshed();
  await h.internals.noticeWorker.runOnce();
  const kept = await h.store.getByBillId(orphan.billId);
  assert.deepEqual([kept?.outcome, kept?.duplicatePayment, kept?.orphanedAt !== null], ['paid', true, true]);
  assert.equal(h.internals.alerts.counts().orphan_paid, 1);
  const notice = notices.filter((n) => n.billId === orphan.billId);
  assert.equal(notice.length, 1);
  assert.deepEqual([notice[0]!.orderId, notice[0]!.duplicatePayment], ['order-lag', true]);
});

test('the service restarted and forgot its bills: the order gets a new bill, never the lost one, which is not asked about again', async (t) => {
  const { h } = await shopHarness(t);
  const { billId: lostId } = await customer(h, 'order-forgot', 'key-forgot-1');
  assert.ok(lostId);
  h.sandbox.forget();
  h.clock.advance(61_000);
  const { billId } = await customer(h, 'order-forgot', 'key-forgot-2');
  assert.ok(billId && billId !== lostId);
  const lost = await h.store.getByBillId(lostId);
  assert.notEqual(lost?.lostAt, null);
  assert.equal(h.internals.alerts.counts().bill_lost_at_service, 1);
  // Never handed out again, nor asked about.
  assert.equal((await post(h, 'order-forgot', 'key-forgot-3')).billId, billId);
  const asked = h.requeries(lostId);
  h.clock.advance(h.config.reconcileIntervalMs + 1);
  await h.internals.reconciler.runOnce();
  assert.equal(h.requeries(lostId), asked);
  // The admin says so.
  const detail = await h.request(`/api/admin/bills/${lostId}`, { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  assert.notEqual(((await detail.json()) as { local: { lostAt: number | null } }).local.lostAt, null);
});

test('a bill made at another service (a moved database) is neither asked about nor reused there', async (t) => {
  const { h } = await shopHarness(t);
  const ref = 'bc_elsewhere_1';
  await h.store.insertBill({
    merchantReference: ref, orderId: 'order-moved', idempotencyKey: null, amount: PRICE, orderAmount: PRICE, orderCurrency: null,
    token: 't'.repeat(43), hookToken: 'h'.repeat(43), serviceId: 'https://old-service.example#0000000000000000', createdAt: h.clock.now(),
  });
  const elsewhere = await h.upstream.createBill({ amount: PRICE, merchantReference: ref, callbackUrl: `${h.url}/x`, redirectUrl: `${h.url}/y` });
  await h.store.completeCreate(ref, elsewhere, h.clock.now());
  const { billId } = await customer(h, 'order-moved', 'key-moved');
  assert.ok(billId && billId !== elsewhere.billId);
  h.clock.advance(h.config.reconcileIntervalMs + 1);
  await h.internals.reconciler.runOnce();
  assert.equal(h.requeries(elsewhere.billId), 0);
});
