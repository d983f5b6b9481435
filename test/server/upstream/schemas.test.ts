// No answer of the service is believed unchecked (issue 13): a create or requery answer about
// another bill, reference, amount or currency is not applied; amounts must be plain positive
// decimals; and past expiry only the service's word makes a bill final.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJsonLossless } from '../../../server/upstream/lossless-json.js';
import { createdBillSchema, statusRecordSchema } from '../../../server/upstream/schemas.js';
import type { BillView } from '../../../contract/bill-view.js';
import { startHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';

const json = { 'Content-Type': 'application/json' };

async function createStatus(h: Harness, amount: string) {
  const res = await h.request('/api/bills', { method: 'POST', headers: json, body: JSON.stringify({ amount }) });
  const text = await res.text();
  return { status: res.status, code: res.status >= 400 ? (JSON.parse(text) as { error: { code: string } }).error.code : null, text };
}

test('a create answered with another amount is withdrawn at the service and answers a clear 502', async (t) => {
  const h = await startHarness(t, { sandbox: { faults: { lies: { create: { billAmount: '0.01' } } } } });
  const res = await createStatus(h, '50');
  assert.equal(res.status, 502);
  assert.equal(res.code, 'upstream_mismatch');
  // The bill the service really made (for 50) is cancelled; ours keeps it as an orphan, never shown.
  const [made] = (await h.upstream.listBills({})).lists;
  assert.equal(made!.billAmount, '50');
  assert.equal(made!.statusName, 'Cancelled');
  const stored = await h.store.getByReference(made!.merchantReference);
  assert.deepEqual([stored!.createState, stored!.billId, stored!.orphanedAt !== null, stored!.withdrawConfirmedAt !== null], ['created', made!.billId, true, true]);
  assert.equal(h.internals.alerts.counts().create_answer_mismatch, 1);
  const alert = h.logs.find((l) => l.includes('"alert":"create_answer_mismatch"'));
  assert.ok(alert, 'an alert is logged');
  assert.match(alert, /"field":"billAmount"/);
  await h.sandbox.idle();
});

test('a create answered with another merchantReference or currency is refused too', async (t) => {
  const h = await startHarness(t, { env: { BILL_CURRENCY: 'USD' } });
  h.sandbox.setFaults({ lies: { create: { merchantReference: 'someone-else' } } });
  assert.equal((await createStatus(h, '5')).code, 'upstream_mismatch');
  h.sandbox.setFaults({ lies: { create: { currency: 'EUR' } } });
  assert.equal((await createStatus(h, '6')).code, 'upstream_mismatch');
  h.sandbox.setFaults({ lies: { create: {} } });
  assert.equal((await createStatus(h, '7')).status, 201);
  assert.equal(h.internals.alerts.counts().create_answer_mismatch, 2);
  await h.sandbox.idle();
});

test('a create answered with the billId of another of our bills is refused, and that bill is not touched', async (t) => {
  const h = await startHarness(t);
  const first = await h.create({ amount: '8' });
  h.sandbox.setFaults({ lies: { create: { billId: first.billId } } });
  const res = await createStatus(h, '8');
  assert.equal(res.status, 502);
  assert.equal(res.code, 'upstream_mismatch');
  assert.equal(h.sandbox.stats().calls.cancel, 0, 'a customer\'s bill is never withdrawn for a repeated id');
  assert.equal((await h.upstream.requeryBill(first.billId)).statusName, 'Pending Payment');
  const read = await h.request(`/api/bills/${first.billId}?token=${first.token}`);
  assert.equal(read.status, 200);
});

test('a requery about another bill, or saying paid for another amount, is not applied: logged as an alert and counted', async (t) => {
  const h = await startHarness(t);
  const bill = await h.create({ amount: '20' });
  h.sandbox.setFaults({ lies: { requery: { billId: 'B-someone-else', status: 'paid' } } });
  const poll = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
  assert.equal(((await poll.json()) as BillView).outcome, 'pending');
  await h.refreshed();

  h.sandbox.setFaults({ lies: { requery: { billId: bill.billId, status: 'paid', billAmount: '0.01' } } });
  h.clock.advance(h.config.refreshWindowMs);
  const again = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
  assert.equal(((await again.json()) as BillView).outcome, 'pending');
  await h.refreshed();
  // A callback's requery that lies is not acknowledged either: the service will call again.
  const stored = (await h.store.getByBillId(bill.billId))!;
  const callback = await h.request(`/api/hooks/callback/${bill.merchantReference}/${stored.hookToken}`, { method: 'POST', headers: json, body: '{}' });
  assert.equal(callback.status, 503);
  assert.equal((await h.store.getByBillId(bill.billId))!.outcome, 'pending');
  assert.equal(h.internals.alerts.counts().requery_answer_mismatch, 3);
  assert.equal(h.logs.filter((l) => l.includes('"alert":"requery_answer_mismatch"')).length, 3);

  // The truth, once the service tells it.
  h.sandbox.setFaults({ lies: { requery: {} } });
  h.sandbox.pay(bill.billId);
  await h.sandbox.idle();
  assert.equal((await h.store.getByBillId(bill.billId))!.outcome, 'paid');
});

test('an amount of 0.000…(200,000 zeros)1 in a create answer is a clear 503 (try again), each bill settled and a short log line', async (t) => {
  const zeros = `0.${'0'.repeat(200_000)}1`;
  const h = await startHarness(t, { sandbox: { faults: { lies: { create: { billAmount: zeros } } } } });
  const res = await createStatus(h, '9');
  assert.equal(res.status, 503);
  assert.ok(res.text.length < 500, 'no echo of the amount');
  for (const line of h.logs) assert.ok(line.length < 8_000, `a log line of ${line.length} characters`);
  const made = (await h.upstream.listBills({})).lists;
  assert.ok(made.length >= 1);
  for (const bill of made) {
    // Kept as an orphan (the create's answer could not be read) and withdrawn: not stuck in creating.
    const kept = (await h.store.getByReference(bill.merchantReference))!;
    assert.deepEqual([kept.createState, kept.billId, kept.orphanedAt !== null], ['created', bill.billId, true]);
  }
  await h.sandbox.idle();
});

test('amounts in answers are positive plain decimals: anything else is a BillApiResponseError, never an exception', () => {
  const record = {
    billId: 'B1', merchantReference: 'r', requestReference: null, paymentReference: null, currency: 'USD',
    status: 1, statusName: 'Pending Payment', isFinal: false, dateTime: 1,
  };
  for (const billAmount of ['12.50', '0.01', '12345678901234567890.123456789', 7]) {
    assert.ok(statusRecordSchema.safeParse({ ...record, billAmount }).success, String(billAmount));
  }
  for (const billAmount of ['0', '0.00', '-1', '1e3', '1.5E-2', `0.${'0'.repeat(200_000)}1`, '12,50', ' ', 1e21, 5e-324]) {
    const parsed = statusRecordSchema.safeParse({ ...record, billAmount });
    assert.equal(parsed.success, false, String(billAmount).slice(0, 20));
    assert.ok(parsed.error!.issues[0]!.message.length < 200);
  }
  const created = { billId: 'B1', billUrl: 'u', billAmount: '5', currency: 'USD', merchantReference: 'r', expiredOn: 1 };
  assert.ok(createdBillSchema.safeParse({ ...created, requireGCAmount: '0' }).success, 'no gold needed is fine');
  assert.equal(createdBillSchema.safeParse({ ...created, requireGCAmount: '-0.1' }).success, false);
  // 012.50 is no JSON number, so it does not pass as the string "012.50".
  assert.throws(() => parseJsonLossless('{"billAmount":012.50}'), SyntaxError);
  assert.deepEqual(parseJsonLossless('{"billAmount":0.50,"requireGCAmount":-0}'), { billAmount: '0.50', requireGCAmount: '-0' });
});

test('past expiredOn and the grace, the BFF asks the service to cancel and stores only its word: a late payment wins', async (t) => {
  // The service's clock stands still (its bill stays pending there) while the BFF's moves on.
  const serviceNow = Date.now();
  // The service's clock stands still, so it never expires the bill itself; the BFF goes by its own.
  const h = await startHarness(t, { sandbox: { now: () => serviceNow, faults: { errorRate: { cancel: 1 } } }, serviceClockMaxOffsetMs: 0 });
  const bill = await h.create({ amount: '30' });
  h.clock.advance(bill.expiredOn - h.clock.now() + h.config.expiryGraceMs + 1);

  const poll = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
  const view = (await poll.json()) as BillView;
  assert.equal(view.outcome, 'pending', 'never expired by the BFF itself');
  assert.equal(view.isFinal, false);
  await h.refreshed();
  assert.equal(h.sandbox.stats().calls.cancel, 1, 'the cancel was attempted');
  assert.equal((await h.store.getByBillId(bill.billId))!.isFinal, false, 'never expired by the BFF itself');
  // The reconciler keeps asking (and asking to cancel) while the service says pending.
  h.clock.advance(h.config.reconcileIntervalMs + 1);
  assert.equal((await h.internals.reconciler.runOnce()).requeried, 1);
  assert.equal(h.sandbox.stats().calls.cancel, 2);
  assert.equal((await h.store.getByBillId(bill.billId))!.isFinal, false);

  // The payment landed at the last second.
  h.sandbox.pay(bill.billId);
  await h.sandbox.idle();
  assert.equal((await h.store.getByBillId(bill.billId))!.outcome, 'paid');
});

test('past expiredOn and the grace, a cancel the service accepts makes the bill final by its word', async (t) => {
  const serviceNow = Date.now();
  const h = await startHarness(t, { sandbox: { now: () => serviceNow }, serviceClockMaxOffsetMs: 0 });
  const bill = await h.create({ amount: '31' });
  h.clock.advance(bill.expiredOn - h.clock.now() + h.config.expiryGraceMs + 1);
  await (await h.request(`/api/bills/${bill.billId}?token=${bill.token}`)).body?.cancel();
  await h.refreshed();
  const poll = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
  const view = (await poll.json()) as BillView;
  assert.equal(view.isFinal, true);
  assert.equal(view.outcome, 'cancelled');
  assert.equal(view.statusName, 'Cancelled');
  await h.sandbox.idle();
});
