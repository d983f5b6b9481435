// What applyStatus does with a status the service gave (server/store/status-change.ts), the
// decision both stores make; store-postgres.test.ts holds both stores' applyStatus to it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Outcome } from '../../../contract/bill-view.js';
import { decideStatus } from '../../../server/store/status-change.js';
import type { ApplyStatusInput, StoredBill } from '../../../server/store/types.js';
import { statusRecord } from './store-contract.js';

const T0 = 1_800_000_000_000;

const created: StoredBill = {
  merchantReference: 'ref-1', createState: 'created', billId: 'B1', orderId: null, idempotencyKey: null, amount: '10.50',
  orderAmount: null, orderCurrency: null, duplicatePayment: false, token: 'tok', hookToken: 'hook', billUrl: 'https://pay.example/B1',
  currency: 'USD', requireGCAmount: '0.35', expiredOn: T0 + 3_600_000, expiresLocalAt: T0 + 3_600_000, earlyNewsAt: null,
  supersededAt: null, withdrawConfirmedAt: null, orphanedAt: null, lostAt: null, serviceId: null, status: null, statusName: '', isFinal: false, outcome: 'pending', dateTime: null, statusVersion: 0,
  checkedAt: null, finalReason: null, finalAt: null, createdAt: T0, updatedAt: T0,
};

const input = (status: number, dateTime: number, outcome: Outcome, checkedAt: number, reason?: ApplyStatusInput['reason']): ApplyStatusInput =>
  ({ billId: 'B1', record: statusRecord('B1', status, dateTime), outcome, checkedAt, ...(reason ? { reason } : {}) });

test('a first pending status is stored: changed, a version up, a history line, not final', () => {
  const d = decideStatus(created, input(1, T0 + 1, 'pending', T0 + 2, 'poll'));
  assert.equal(d.kind, 'store');
  if (d.kind !== 'store') return;
  assert.deepEqual(d.bill, {
    ...created, status: 1, statusName: 'Pending Payment', outcome: 'pending', dateTime: T0 + 1, statusVersion: 1,
    checkedAt: T0 + 2, updatedAt: T0 + 2,
  });
  assert.equal(d.changed, true);
  assert.equal(d.becameFinal, false);
  assert.deepEqual(d.event, { at: T0 + 2, kind: 'status', reason: 'poll', status: 1, statusName: 'Pending Payment', outcome: 'pending' });
  assert.equal(d.checkDuplicate, false);
});

const pending: StoredBill = {
  ...created, status: 1, statusName: 'Pending Payment', dateTime: T0 + 10, statusVersion: 1, checkedAt: T0 + 11, updatedAt: T0 + 11,
};

test('the same status confirmed again: checkedAt only; no change, no version, no history, updatedAt kept', () => {
  const d = decideStatus(pending, input(1, T0 + 10, 'pending', T0 + 20));
  assert.equal(d.kind, 'store');
  if (d.kind !== 'store') return;
  assert.deepEqual(d.bill, { ...pending, checkedAt: T0 + 20 });
  assert.equal(d.changed, false);
  assert.equal(d.event, null);
});

test('a newer dateTime of the same status moves the version (a BillView shows it) but is no change', () => {
  const d = decideStatus(pending, input(1, T0 + 15, 'pending', T0 + 20));
  assert.equal(d.kind, 'store');
  if (d.kind !== 'store') return;
  assert.equal(d.changed, false);
  assert.equal(d.bill.statusVersion, 2);
  assert.equal(d.bill.dateTime, T0 + 15);
  assert.equal(d.bill.updatedAt, pending.updatedAt);
  assert.equal(d.event, null);
});

test('a new statusName alone moves the version too', () => {
  const d = decideStatus(pending, { ...input(1, T0 + 10, 'pending', T0 + 20), record: { ...statusRecord('B1', 1, T0 + 10), statusName: 'Awaiting' } });
  assert.equal(d.kind === 'store' && d.bill.statusVersion, 2);
  assert.equal(d.kind === 'store' && d.changed, false);
});

test('an older pending status arriving late is stale: only checkedAt moves', () => {
  assert.deepEqual(decideStatus(pending, input(1, T0 + 9, 'pending', T0 + 30)), { kind: 'stale', bill: { ...pending, checkedAt: T0 + 30 } });
  // A different status, older still, is stale too.
  assert.equal(decideStatus(pending, input(3, T0 + 5, 'pending', T0 + 30)).kind, 'stale');
});

test('a final status is stored even when older than the stored one (the service\'s last word)', () => {
  const d = decideStatus(pending, input(2, T0 + 9, 'paid', T0 + 30, 'callback'));
  assert.equal(d.kind, 'store');
  if (d.kind !== 'store') return;
  assert.equal(d.becameFinal, true);
  assert.equal(d.changed, true);
  assert.deepEqual(
    { isFinal: d.bill.isFinal, outcome: d.bill.outcome, finalReason: d.bill.finalReason, finalAt: d.bill.finalAt, statusVersion: d.bill.statusVersion, updatedAt: d.bill.updatedAt },
    { isFinal: true, outcome: 'paid', finalReason: 'callback', finalAt: T0 + 30, statusVersion: 2, updatedAt: T0 + 30 },
  );
  assert.equal(d.event?.reason, 'callback');
});

test('a final status without a reason records none', () => {
  const d = decideStatus(pending, input(4, T0 + 20, 'cancelled', T0 + 30));
  assert.equal(d.kind === 'store' && d.bill.finalReason, null);
  assert.equal(d.kind === 'store' && d.event?.reason, null);
});

test('a bill final already never changes', () => {
  const paid: StoredBill = { ...pending, status: 2, statusName: 'Paid', isFinal: true, outcome: 'paid', finalAt: T0 + 12 };
  assert.deepEqual(decideStatus(paid, input(4, T0 + 99, 'cancelled', T0 + 100)), { kind: 'final_already' });
  assert.deepEqual(decideStatus(paid, input(1, T0 + 99, 'pending', T0 + 100)), { kind: 'final_already' });
});

test('a payment of a bill with an order is checked for a duplicate; other outcomes and order-less bills are not', () => {
  const ofOrder = { ...pending, orderId: 'order-1' };
  const check = (bill: StoredBill, outcome: Outcome, status: number) => {
    const d = decideStatus(bill, input(status, T0 + 20, outcome, T0 + 30));
    return d.kind === 'store' && d.checkDuplicate;
  };
  assert.equal(check(ofOrder, 'paid', 2), true);
  assert.equal(check(ofOrder, 'failed', 3), false);
  assert.equal(check(pending, 'paid', 2), false);
  // The decision keeps duplicatePayment as stored: the store sets it once the check finds another payment.
  const d = decideStatus({ ...ofOrder, duplicatePayment: true }, input(2, T0 + 20, 'paid', T0 + 30));
  assert.equal(d.kind === 'store' && d.bill.duplicatePayment, true);
});

test('an outcome that differs with the same status number is a change', () => {
  const d = decideStatus(pending, input(1, T0 + 10, 'expired', T0 + 20));
  assert.equal(d.kind === 'store' && d.changed, true);
  assert.equal(d.kind === 'store' && d.becameFinal, true);
});
