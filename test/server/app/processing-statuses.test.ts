// In-between statuses (issue 42, items 3 and 4): with BILL_PROCESSING_STATUSES=6 and the sandbox's
// processingStep fault, a paid bill is `processing` until the service confirms it. Over real HTTP
// against a production-configured BFF: the views say so (outcome pending, never final), a watcher
// learns it from a requery (the service calls back on final statuses only), and a bill in it past
// its expiry and the grace is neither cancelled at the service nor replaced for its order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BillView, CreatedBillView } from '../../../contract/bill-view.js';
import type { AdminBillDetail } from '../../../contract/admin.js';
import type { BillNotice } from '../../../server/domain/bill-view.js';
import { loadConfig } from '../../../server/config.js';
import type { StatusRecordWire } from '../../../sandbox/sandbox.js';
import { nextCallback, startHarness, TEST_ADMIN_TOKEN, TEST_TICKET_SECRET, type Harness } from '../support/harness.js';
import { readSse } from '../support/sse.js';

const LIFETIME_MS = 120_000;
const GRACE_MS = 60_000;
const json = { 'Content-Type': 'application/json' };

async function shop(t: Parameters<typeof startHarness>[0]) {
  const notices: BillNotice[] = [];
  const h = await startHarness(t, {
    env: {
      NODE_ENV: 'production', RETURN_URL: 'https://shop.example/thanks', ORDER_TICKET_SECRET: TEST_TICKET_SECRET,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN, CLIENT_AMOUNT_MIN: '', CLIENT_AMOUNT_MAX: '',
      BILL_PROCESSING_STATUSES: '6', BILL_EXPIRY_GRACE_MS: String(GRACE_MS), BILL_MIN_LIFETIME_MS: '60000',
    },
    sandbox: { billLifetimeMs: LIFETIME_MS },
    hooks: { resolveOrder: async () => ({ amount: '25.00' }), onFinal: (bill) => void notices.push(bill) },
  });
  // As the e2e suites drive it: the fault and the payment over the sandbox's control routes.
  await control(h, 'PUT', '/faults', { processingStep: true });
  return { h, notices };
}

async function control<T>(h: Harness, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${h.sandboxUrl}/_control${path}`, {
    method, ...(body === undefined ? {} : { headers: json, body: JSON.stringify(body) }),
  });
  const envelope = (await res.json()) as { code: number; data: T };
  assert.equal(envelope.code, 0, `${method} ${path}: ${JSON.stringify(envelope)}`);
  return envelope.data;
}

async function order(h: Harness, orderId: string): Promise<{ status: number; bill: CreatedBillView }> {
  const res = await h.request('/api/bills', {
    method: 'POST', headers: json, body: JSON.stringify({ orderId, orderTicket: await h.ticket(orderId) }),
  });
  return { status: res.status, bill: (await res.json()) as CreatedBillView };
}

async function read(h: Harness, bill: CreatedBillView): Promise<BillView> {
  const res = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
  assert.equal(res.status, 200);
  return (await res.json()) as BillView;
}

const shown = (v: BillView | null) => v && [v.status, v.statusName, v.isFinal, v.outcome, v.processing];

test('paid into processing: read and watched as processing (outcome pending, not final), then confirmed: paid', { timeout: 20_000 }, async (t) => {
  const { h, notices } = await shop(t);
  const { status, bill } = await order(h, 'order-1');
  assert.deepEqual([status, bill.processing], [201, false]);
  const sse = readSse(await h.request(`/api/bills/${bill.billId}/events?token=${bill.token}`));
  assert.deepEqual(shown(await sse.next()), [null, '', false, 'pending', false]);
  assert.deepEqual(shown(await sse.next()), [1, 'Pending Payment', false, 'pending', false]);
  // That requery has ended: the next read starts one of its own.
  await h.refreshed();

  const paid = await control<StatusRecordWire>(h, 'POST', `/bills/${bill.billId}/pay`);
  assert.deepEqual([paid.status, paid.isFinal], [6, false]);
  // No callback for it: a read once the stored status is older than the window asks the service.
  h.clock.advance(h.config.refreshWindowMs + 1);
  await read(h, bill);
  const processing = [6, 'Processing', false, 'pending', true];
  assert.deepEqual(shown(await sse.next()), processing, 'the watcher hears of it');
  assert.deepEqual(shown(await read(h, bill)), processing);
  const admin = await h.request(`/api/admin/bills/${bill.billId}`, { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  const detail = (await admin.json()) as AdminBillDetail;
  assert.deepEqual([detail.bill.status, detail.bill.statusName, detail.local.outcome], [6, 'Processing', 'pending'], 'the admin keeps the raw status');

  const called = nextCallback(h.sandbox, bill.billId);
  await control(h, 'POST', `/bills/${bill.billId}/confirm`);
  assert.deepEqual(shown(await sse.next()), [2, 'Paid', true, 'paid', false]);
  assert.equal(await sse.next(), null, 'closed after the final status');
  await called;
  await h.internals.noticeWorker.runOnce();
  assert.deepEqual(notices.map((n) => [n.billId, n.status, n.processing]), [[bill.billId, 2, false]]);
});

test('processing past its expiry and the grace: not cancelled at the service, not replaced for its order, not cancellable; then paid', { timeout: 20_000 }, async (t) => {
  const { h } = await shop(t);
  const { bill } = await order(h, 'order-2');
  await control(h, 'POST', `/bills/${bill.billId}/pay`);
  h.clock.advance(LIFETIME_MS + GRACE_MS + 1_000);
  // The reconciler finds it past expiredOn and the grace: asked about, never withdrawn.
  await h.internals.reconciler.runOnce();
  assert.deepEqual(shown(await read(h, bill)), [6, 'Processing', false, 'pending', true]);
  // The customer reloads the checkout: the order's bill, being confirmed, is the answer; no other is made.
  const again = await order(h, 'order-2');
  assert.deepEqual([again.status, again.bill.billId, again.bill.processing], [201, bill.billId, true]);
  const cancel = await h.request(`/api/bills/${bill.billId}/cancel?token=${bill.token}`, { method: 'POST', headers: json, body: '{}' });
  assert.equal(cancel.status, 409);
  assert.equal(((await cancel.json()) as { error: { code: string } }).error.code, 'not_cancellable');
  const stats = h.sandbox.stats();
  assert.deepEqual([stats.calls.cancel, stats.calls.create], [0, 1], 'never cancelled nor replaced at the service');
  assert.deepEqual(h.sandbox.ledger().map((b) => b.history.map((s) => s.status)), [['pending', 'processing']]);
  assert.ok(Object.values(h.internals.alerts.counts()).every((n) => n === 0), JSON.stringify(h.internals.alerts.counts()));

  const called = nextCallback(h.sandbox, bill.billId);
  await control(h, 'POST', `/bills/${bill.billId}/confirm`);
  await called;
  assert.deepEqual(shown(await read(h, bill)), [2, 'Paid', true, 'paid', false]);
  assert.equal((await order(h, 'order-2')).status, 200, 'the order is paid');
  await h.refreshed();
});

test('BILL_PROCESSING_STATUSES: none by default; a code also in another list is refused at start', () => {
  assert.deepEqual(loadConfig({}).statuses.processing, []);
  assert.deepEqual(loadConfig({ BILL_PROCESSING_STATUSES: '6, 7' }).statuses.processing, [6, 7]);
  assert.throws(() => loadConfig({ BILL_PROCESSING_STATUSES: '6,2' }), /BILL_PROCESSING_STATUSES and BILL_PAID_STATUSES both hold 2/);
  assert.throws(() => loadConfig({ BILL_PENDING_STATUSES: '1,6', BILL_PROCESSING_STATUSES: '6' }), /BILL_PENDING_STATUSES both hold 6/);
  assert.throws(() => loadConfig({ BILL_PROCESSING_STATUSES: 'six' }), /BILL_PROCESSING_STATUSES must be comma-separated whole numbers/);
});
