// The Store contract, as tests any implementation must pass (SQLite now, PostgreSQL later).

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Outcome } from '../../../contract/bill-view.js';
import type { CreatedBill, StatusRecord } from '../../../server/upstream/types.js';
import type { NewBill, NoticeAttempt, Store } from '../../../server/store/types.js';

export interface StoreFixture {
  store: Store;
  cleanup: () => Promise<void>;
}

const T0 = 1_800_000_000_000;
let seq = 0;

export function newBill(overrides: Partial<NewBill> = {}): NewBill {
  seq += 1;
  return {
    merchantReference: `ref-${seq}`,
    orderId: null,
    idempotencyKey: null,
    amount: '10.50',
    orderAmount: null,
    orderCurrency: null,
    token: `tok-${seq}`,
    hookToken: `hook-${seq}`,
    createdAt: T0 + seq,
    ...overrides,
  };
}

export function createdBill(merchantReference: string, billId: string, overrides: Partial<CreatedBill> = {}): CreatedBill {
  return {
    billId,
    billUrl: `https://pay.example/${billId}`,
    billAmount: '10.50',
    requireGCAmount: '0.35',
    currency: 'USD',
    merchantReference,
    expiredOn: T0 + 3_600_000,
    expiresLocalAt: T0 + 3_600_000,
    clockDisagreed: false,
    ...overrides,
  };
}

export function statusRecord(billId: string, status: number, dateTime: number, isFinal = status !== 1): StatusRecord {
  return {
    billId,
    merchantReference: 'ref',
    requestReference: null,
    paymentReference: null,
    billAmount: '10.50',
    currency: 'USD',
    status,
    statusName: { 1: 'Pending Payment', 2: 'Paid', 3: 'Failed', 4: 'Cancelled', 5: 'Expired' }[status] ?? 'Other',
    isFinal,
    dateTime,
  };
}

export function storeContract(name: string, make: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}`, () => {
    let fixture: StoreFixture;
    let store: Store;

    // A fresh store per test keeps the cases independent.
    beforeEach(async () => {
      fixture = await make();
      store = fixture.store;
      await store.migrate();
    });
    afterEach(async () => fixture.cleanup());

    /** A created bill (billId `b-<ref>`), optionally with an order and expiry. */
    async function created(overrides: Partial<NewBill> = {}, expiredOn = T0 + 3_600_000) {
      const bill = newBill(overrides);
      await store.insertBill(bill);
      const billId = `b-${bill.merchantReference}`;
      return store.completeCreate(bill.merchantReference, createdBill(bill.merchantReference, billId, { expiredOn }), T0);
    }

    const apply = (billId: string, status: number, dateTime: number, outcome: Outcome, channels: ('hook' | 'webhook')[] = ['hook', 'webhook']) =>
      store.applyStatus({ billId, record: statusRecord(billId, status, dateTime), outcome, checkedAt: dateTime + 5, reason: 'callback' }, channels);

    describe('bills', () => {
      it('inserts a bill in creating and reads it back by reference and idempotency key', async () => {
        const bill = newBill({ idempotencyKey: 'idem-1', orderId: 'order-1', amount: '12345678901234567890.123456789' });
        const result = await store.insertBill(bill);
        assert.equal(result.inserted, true);
        assert.equal(result.bill.createState, 'creating');
        assert.equal(result.bill.amount, '12345678901234567890.123456789');
        assert.equal(result.bill.billId, null);
        assert.equal(result.bill.outcome, 'pending');
        assert.equal(result.bill.isFinal, false);
        assert.equal(result.bill.status, null);
        assert.equal(result.bill.checkedAt, null);
        assert.deepEqual(await store.getByReference(bill.merchantReference), result.bill);
        assert.deepEqual(await store.getByIdempotencyKey('idem-1'), result.bill);
        assert.equal(await store.getByReference('nope'), null);
        assert.equal(await store.getByIdempotencyKey('nope'), null);
        assert.equal(await store.getByBillId('nope'), null);
      });

      it('returns the holder, untouched, when an idempotency key is taken', async () => {
        const first = await store.insertBill(newBill({ idempotencyKey: 'same', amount: '1' }));
        const second = await store.insertBill(newBill({ idempotencyKey: 'same', amount: '2' }));
        assert.equal(second.inserted, false);
        assert.deepEqual(second.bill, first.bill);
        assert.equal((await store.getByIdempotencyKey('same'))?.amount, '1');
      });

      it('allows many bills without an idempotency key', async () => {
        assert.equal((await store.insertBill(newBill())).inserted, true);
        assert.equal((await store.insertBill(newBill())).inserted, true);
      });

      it('completeCreate fills in what create answered and the bill is found by billId', async () => {
        const bill = newBill({ amount: '10.5' });
        await store.insertBill(bill);
        const done1 = await store.completeCreate(bill.merchantReference, createdBill(bill.merchantReference, 'B1'), T0 + 10);
        assert.equal(done1.createState, 'created');
        assert.equal(done1.billId, 'B1');
        assert.equal(done1.billUrl, 'https://pay.example/B1');
        assert.equal(done1.currency, 'USD');
        assert.equal(done1.requireGCAmount, '0.35');
        assert.equal(done1.expiredOn, T0 + 3_600_000);
        assert.equal(done1.updatedAt, T0 + 10);
        assert.equal(done1.token, bill.token);
        assert.equal(done1.hookToken, bill.hookToken);
        assert.deepEqual(await store.getByBillId('B1'), done1);
        // Repeating the same completion is harmless; a different billId is refused.
        assert.deepEqual(await store.completeCreate(bill.merchantReference, createdBill(bill.merchantReference, 'B1'), T0 + 20), done1);
        await assert.rejects(store.completeCreate(bill.merchantReference, createdBill(bill.merchantReference, 'B2'), T0 + 30));
        await assert.rejects(store.completeCreate('unknown', createdBill('unknown', 'B3'), T0));
      });

      it('failCreate marks a create in flight as failed and frees its key for a new attempt, and leaves a created bill alone', async () => {
        const bill = newBill({ idempotencyKey: 'k-fail' });
        await store.insertBill(bill);
        await store.failCreate(bill.merchantReference, T0 + 5);
        const failed = await store.getByReference(bill.merchantReference);
        assert.equal(failed?.createState, 'failed');
        assert.equal(failed?.updatedAt, T0 + 5);
        assert.equal(failed?.idempotencyKey, null);
        // The same key makes a new attempt: the failed one made no bill.
        assert.equal(await store.getByIdempotencyKey('k-fail'), null);
        const again = await store.insertBill(newBill({ idempotencyKey: 'k-fail' }));
        assert.equal(again.inserted, true);
        assert.equal(again.bill.createState, 'creating');

        const ok = await created();
        await store.failCreate(ok.merchantReference, T0 + 6);
        assert.equal((await store.getByReference(ok.merchantReference))?.createState, 'created');
      });

      it("an order has one current bill at a time: not failed, not final, not superseded, whatever its expiry", async () => {
        assert.equal(await store.findCurrentByOrderId('o'), null);
        const first = await store.insertBill(newBill({ orderId: 'o' }));
        assert.equal(first.inserted, true);
        // Creating is current too: a second bill of the order is refused, for every process sharing the store.
        assert.equal((await store.findCurrentByOrderId('o'))?.merchantReference, first.bill.merchantReference);
        const second = await store.insertBill(newBill({ orderId: 'o' }));
        assert.deepEqual([second.inserted, second.bill.merchantReference, !second.inserted && second.conflict], [false, first.bill.merchantReference, 'order']);
        // Another order, and a bill without an order, are not held by it.
        assert.equal((await store.insertBill(newBill({ orderId: 'other' }))).inserted, true);
        assert.equal((await store.insertBill(newBill())).inserted, true);

        // Created, and past its expiry by any clock: still the order's until the service says final.
        const done = await store.completeCreate(first.bill.merchantReference, createdBill(first.bill.merchantReference, 'B-o1', { expiredOn: T0, expiresLocalAt: T0 }), T0 + 1);
        assert.deepEqual([done.expiresLocalAt, done.earlyNewsAt, done.supersededAt], [T0, null, null]);
        assert.equal((await store.findCurrentByOrderId('o'))?.billId, 'B-o1');
        assert.equal((await store.insertBill(newBill({ orderId: 'o' }))).inserted, false);

        // Withdrawn at the service (its cancel accepted): no longer current, still a pending bill to follow.
        await store.supersede(first.bill.merchantReference, T0 + 2);
        assert.equal(await store.findCurrentByOrderId('o'), null);
        assert.equal((await store.getByBillId('B-o1'))?.supersededAt, T0 + 2);
        assert.equal((await store.listPending(T0 + 10, 10)).some((b) => b.billId === 'B-o1'), true);
        const next = await store.insertBill(newBill({ orderId: 'o' }));
        assert.equal(next.inserted, true);

        // A failed create, or a final bill, frees the order too.
        await store.failCreate(next.bill.merchantReference, T0 + 3);
        assert.equal(await store.findCurrentByOrderId('o'), null);
        const third = await created({ orderId: 'o' });
        await apply(third.billId!, 4, T0 + 100, 'cancelled');
        assert.equal(await store.findCurrentByOrderId('o'), null);
        // Superseding a final bill changes nothing.
        await store.supersede(third.merchantReference, T0 + 4);
        assert.equal((await store.getByBillId(third.billId!))?.supersededAt, null);
      });

      it('keeps a callback that came before the create answer as news, and says so with the created bill', async () => {
        const { bill } = await store.insertBill(newBill());
        const early = await store.recordEarlyNews(bill.merchantReference, T0 + 5);
        assert.deepEqual([early?.billId, early?.earlyNewsAt], [null, T0 + 5]);
        // A second callback keeps the first time.
        assert.equal((await store.recordEarlyNews(bill.merchantReference, T0 + 6))?.earlyNewsAt, T0 + 5);
        const done = await store.completeCreate(bill.merchantReference, createdBill(bill.merchantReference, 'B-early'), T0 + 7);
        assert.equal(done.earlyNewsAt, T0 + 5);
        // Once created, a callback is no longer early: nothing is recorded, the bill is answered as it is.
        const later = await store.insertBill(newBill());
        await store.completeCreate(later.bill.merchantReference, createdBill(later.bill.merchantReference, 'B-late'), T0 + 8);
        const after = await store.recordEarlyNews(later.bill.merchantReference, T0 + 9);
        assert.deepEqual([after?.billId, after?.earlyNewsAt], ['B-late', null]);
        assert.equal(await store.recordEarlyNews('no-such-ref', T0 + 9), null);
      });

      it("keeps the order's resolved amount and currency beside the bill's", async () => {
        const bill = await created({ orderId: 'o', amount: '12.5', orderAmount: '12.50', orderCurrency: 'USD' });
        const stored = (await store.getByBillId(bill.billId!))!;
        assert.deepEqual([stored.orderId, stored.orderAmount, stored.orderCurrency, stored.duplicatePayment], ['o', '12.50', 'USD', false]);
        const plain = await created();
        assert.deepEqual([plain.orderAmount, plain.orderCurrency], [null, null]);
      });

      it('completeCreate refuses a billId that another bill holds, and leaves both as they were', async () => {
        const first = await created();
        const second = newBill();
        await store.insertBill(second);
        await assert.rejects(
          store.completeCreate(second.merchantReference, createdBill(second.merchantReference, first.billId!), T0),
          (error: Error) => error.name === 'StoreConflictError',
        );
        assert.equal((await store.getByReference(second.merchantReference))!.createState, 'creating');
        assert.equal((await store.getByBillId(first.billId!))!.merchantReference, first.merchantReference);
      });

      it("findPaidByOrderId gives the order's first payment; a later one is marked duplicatePayment", async () => {
        const a = await created({ orderId: 'o' });
        // Withdrawn for another (as a create does before making the order a new bill), then paid after all.
        await store.supersede(a.merchantReference, T0);
        const b = await created({ orderId: 'o' });
        const other = await created({ orderId: 'p' });
        assert.equal(await store.findPaidByOrderId('o'), null);
        await apply(other.billId!, 2, T0 + 50, 'paid');
        assert.equal(await store.findPaidByOrderId('o'), null, 'another order');
        const first = await apply(b.billId!, 2, T0 + 100, 'paid');
        assert.equal(first.bill.duplicatePayment, false);
        const second = await apply(a.billId!, 2, T0 + 200, 'paid');
        assert.equal(second.bill.duplicatePayment, true);
        assert.equal((await store.getByBillId(a.billId!))!.duplicatePayment, true);
        assert.equal((await store.findPaidByOrderId('o'))?.billId, b.billId);
        // A bill without an order is never a duplicate.
        const x = await created();
        const y = await created();
        await apply(x.billId!, 2, T0 + 300, 'paid');
        assert.equal((await apply(y.billId!, 2, T0 + 300, 'paid')).bill.duplicatePayment, false);
      });

      it('recordOrphan keeps a bill made for a create that ended without its answer: superseded, key freed, a second one on a row of its own', async () => {
        const bill = newBill({ orderId: 'order-orphan', idempotencyKey: 'k-orphan', serviceId: 'svc-a' });
        await store.insertBill(bill);
        const orphan = await store.recordOrphan(bill.merchantReference, 'B-orphan', T0 + 7);
        assert.deepEqual(
          [orphan.merchantReference, orphan.billId, orphan.createState, orphan.orphanedAt, orphan.supersededAt, orphan.idempotencyKey, orphan.serviceId],
          [bill.merchantReference, 'B-orphan', 'created', T0 + 7, T0 + 7, null, 'svc-a'],
        );
        // It is no order's current bill: the order may have another.
        assert.equal(await store.findCurrentByOrderId('order-orphan'), null);
        assert.equal((await store.insertBill(newBill({ orderId: 'order-orphan' }))).inserted, true);
        // The same billId again is the same orphan; another under the same reference gets a row of its own.
        assert.equal((await store.recordOrphan(bill.merchantReference, 'B-orphan', T0 + 8)).merchantReference, bill.merchantReference);
        const second = await store.recordOrphan(bill.merchantReference, 'B-orphan-2', T0 + 9);
        assert.deepEqual([second.merchantReference, second.billId, second.orderId, second.orphanedAt], [`${bill.merchantReference}.1`, 'B-orphan-2', 'order-orphan', T0 + 9]);
        // Both are followed until the service confirms their withdrawal.
        assert.deepEqual((await store.listWithdrawing(10)).map((b) => b.billId).sort(), ['B-orphan', 'B-orphan-2']);
        await store.confirmWithdrawal('B-orphan', T0 + 10);
        assert.deepEqual((await store.listWithdrawing(10)).map((b) => b.billId), ['B-orphan-2']);
        assert.equal((await store.getByBillId('B-orphan'))?.withdrawConfirmedAt, T0 + 10);
        // A failed create's row can still take its orphan (a late callback).
        const late = newBill();
        await store.insertBill(late);
        await store.failCreate(late.merchantReference, T0 + 11);
        assert.equal((await store.recordOrphan(late.merchantReference, 'B-late', T0 + 12)).createState, 'created');
      });

      it('a paid orphan is a duplicate payment, even as the only payment of its order', async () => {
        const bill = newBill({ orderId: 'order-paid-orphan' });
        await store.insertBill(bill);
        await store.recordOrphan(bill.merchantReference, 'B-paid-orphan', T0);
        const paid = await apply('B-paid-orphan', 2, T0 + 100, 'paid');
        assert.equal(paid.bill.duplicatePayment, true);
        assert.equal((await store.getByBillId('B-paid-orphan'))?.duplicatePayment, true);
        assert.equal(await store.findPaidByOrderId('order-paid-orphan'), null);
      });

      it('supersede confirms the withdrawal; markLost takes a bill out of its order and out of listPending', async () => {
        const a = await created({ orderId: 'order-lost' });
        await store.supersede(a.merchantReference, T0 + 1);
        assert.equal((await store.getByBillId(a.billId!))?.withdrawConfirmedAt, T0 + 1);
        const b = await created({ orderId: 'order-lost' });
        await store.markLost(b.billId!, T0 + 2);
        const lost = await store.getByBillId(b.billId!);
        assert.deepEqual([lost?.lostAt, lost?.supersededAt], [T0 + 2, T0 + 2]);
        assert.equal(await store.findCurrentByOrderId('order-lost'), null);
        assert.ok(!(await store.listPending(T0 + 1_000_000, 100)).some((x) => x.billId === b.billId));
        assert.ok(!(await store.listWithdrawing(100)).some((x) => x.billId === b.billId));
      });

      it('listPending and listWithdrawing give one service\'s bills (and those stored before the service was kept)', async () => {
        const mine = await created({ serviceId: 'svc-a' });
        const theirs = await created({ serviceId: 'svc-b' });
        const old = await created();
        const pending = (await store.listPending(T0 + 1_000_000, 100, 'svc-a')).map((x) => x.billId);
        assert.ok(pending.includes(mine.billId) && pending.includes(old.billId) && !pending.includes(theirs.billId));
        assert.equal((await store.listPending(T0 + 1_000_000, 100)).length, 3);
      });

      it('two bills of one order paid at once: exactly one is the duplicate', async () => {
        const a = await created({ orderId: 'race' });
        await store.supersede(a.merchantReference, T0);
        const b = await created({ orderId: 'race' });
        const [ra, rb] = await Promise.all([apply(a.billId!, 2, T0 + 100, 'paid'), apply(b.billId!, 2, T0 + 100, 'paid')]);
        assert.deepEqual([ra.bill.duplicatePayment, rb.bill.duplicatePayment].sort(), [false, true]);
        assert.ok(await store.findPaidByOrderId('race'));
      });
    });

    describe('applyStatus', () => {
      it('stores a pending status without queueing notices', async () => {
        const bill = await created();
        const r = await apply(bill.billId!, 1, T0 + 100, 'pending');
        assert.equal(r.changed, true);
        assert.equal(r.becameFinal, false);
        assert.equal(r.bill.status, 1);
        assert.equal(r.bill.statusName, 'Pending Payment');
        assert.equal(r.bill.dateTime, T0 + 100);
        assert.equal(r.bill.checkedAt, T0 + 105);
        assert.deepEqual(await store.noticesFor([bill.billId!]), []);
        const same = await apply(bill.billId!, 1, T0 + 200, 'pending');
        assert.equal(same.changed, false);
        assert.equal(same.bill.checkedAt, T0 + 205);
      });

      it('makes a bill final once, with one notice per channel queued in the same call', async () => {
        const bill = await created();
        const billId = bill.billId!;
        const results = [];
        for (let i = 0; i < 3; i++) results.push(await apply(billId, 2, T0 + 100 + i, 'paid'));
        assert.deepEqual(results.map((r) => r.becameFinal), [true, false, false]);
        assert.deepEqual(results.map((r) => r.changed), [true, false, false]);
        assert.equal(results[0]!.bill.outcome, 'paid');
        assert.equal(results[0]!.bill.isFinal, true);
        assert.equal(results[2]!.bill.dateTime, T0 + 100);
        const notices = await store.noticesFor([billId]);
        assert.deepEqual(notices.map((n) => n.channel).sort(), ['hook', 'webhook']);
        assert.equal(new Set(notices.map((n) => n.id)).size, 2);
        const webhook = notices.find((n) => n.channel === 'webhook')!;
        assert.equal(webhook.id, `msg_${billId}`);
        assert.equal(webhook.attempts, 0);
        assert.equal(webhook.deliveredAt, null);
        assert.equal(webhook.lastError, null);
        assert.ok(webhook.nextAttemptAt <= T0 + 105);
      });

      it('tells onCommitted the result once, when readers can see it, before the call resolves', async () => {
        const bill = await created();
        const billId = bill.billId!;
        const told: { outcome: string; becameFinal: boolean; early: boolean; readable: Promise<string | undefined> }[] = [];
        let resolved = false;
        const result = await store.applyStatus(
          { billId, record: statusRecord(billId, 2, T0 + 100), outcome: 'paid', checkedAt: T0 + 105 }, ['hook'],
          (r) => told.push({
            outcome: r.bill.outcome, becameFinal: r.becameFinal, early: !resolved,
            readable: store.getByBillId(billId).then((b) => b?.outcome),
          }),
        ).finally(() => (resolved = true));
        assert.deepEqual(told.map(({ outcome, becameFinal, early }) => ({ outcome, becameFinal, early })),
          [{ outcome: 'paid', becameFinal: true, early: true }]);
        assert.equal(await told[0]!.readable, 'paid');
        assert.equal(result.becameFinal, true);
      });

      it('queues notices only for the channels given, and none when none are', async () => {
        const a = await created();
        const b = await created();
        await apply(a.billId!, 2, T0 + 100, 'paid', ['webhook', 'webhook']);
        await apply(b.billId!, 5, T0 + 100, 'expired', []);
        assert.deepEqual((await store.noticesFor([a.billId!])).map((n) => n.channel), ['webhook']);
        assert.deepEqual(await store.noticesFor([b.billId!]), []);
      });

      it('never moves a final status, back or sideways', async () => {
        const bill = await created();
        const billId = bill.billId!;
        const final = await apply(billId, 4, T0 + 100, 'cancelled');
        const back = await apply(billId, 1, T0 + 200, 'pending');
        const sideways = await apply(billId, 2, T0 + 300, 'paid');
        for (const r of [back, sideways]) {
          assert.equal(r.changed, false);
          assert.equal(r.becameFinal, false);
          assert.deepEqual(r.bill, final.bill);
        }
        assert.deepEqual(await store.getByBillId(billId), final.bill);
        assert.equal((await store.noticesFor([billId])).length, 2);
      });

      it('ignores a pending status older than the stored one, but not a final one', async () => {
        const bill = await created();
        const billId = bill.billId!;
        await apply(billId, 1, T0 + 500, 'pending');
        const stale = await store.applyStatus(
          { billId, record: { ...statusRecord(billId, 6, T0 + 400, false), statusName: 'Processing' }, outcome: 'pending', checkedAt: T0 + 900 },
          ['hook'],
        );
        assert.equal(stale.changed, false);
        assert.equal(stale.bill.status, 1);
        assert.equal(stale.bill.dateTime, T0 + 500);
        assert.equal(stale.bill.checkedAt, T0 + 900, 'the requery still counts as a check');
        const lateFinal = await apply(billId, 2, T0 + 300, 'paid');
        assert.equal(lateFinal.becameFinal, true);
        assert.equal(lateFinal.bill.outcome, 'paid');
      });

      it('moves statusVersion up by one with each change a BillView shows, and with nothing else', async () => {
        const bill = await created();
        const billId = bill.billId!;
        assert.equal(bill.statusVersion, 0, 'not requeried yet');
        const versions = [
          (await apply(billId, 1, T0 + 100, 'pending')).bill.statusVersion,
          (await apply(billId, 1, T0 + 100, 'pending')).bill.statusVersion, // the same: no change
          (await apply(billId, 1, T0 + 150, 'pending')).bill.statusVersion, // a newer dateTime
          (await store.applyStatus({ billId, record: { ...statusRecord(billId, 1, T0 + 150), statusName: 'Awaiting' }, outcome: 'pending', checkedAt: T0 + 160 }, []))
            .bill.statusVersion, // another name
          (await apply(billId, 1, T0 + 120, 'pending')).bill.statusVersion, // stale: ignored
        ];
        await store.touchChecked(billId, T0 + 170);
        await store.claimRefresh(billId, T0 + 180, 0, 1000);
        const final = await apply(billId, 2, T0 + 200, 'paid');
        versions.push(final.bill.statusVersion, (await apply(billId, 2, T0 + 300, 'paid')).bill.statusVersion);
        assert.deepEqual(versions, [1, 1, 2, 3, 3, 4, 4]);
        assert.equal((await store.getByBillId(billId))!.statusVersion, 4, 'as stored, read back');
      });

      it('takes the outcome from the caller: expired after the grace period is final', async () => {
        const bill = await created();
        const r = await store.applyStatus(
          { billId: bill.billId!, record: statusRecord(bill.billId!, 1, T0 + 100, false), outcome: 'expired', checkedAt: T0 + 200 },
          ['hook'],
        );
        assert.equal(r.becameFinal, true);
        assert.equal(r.bill.isFinal, true);
        assert.equal(r.bill.outcome, 'expired');
        assert.equal(r.bill.status, 1);
      });

      it('rejects a status for an unknown bill', async () => {
        await assert.rejects(apply('missing', 2, T0, 'paid'));
      });

      it('touchChecked records a requery without a status', async () => {
        const bill = await created();
        await apply(bill.billId!, 1, T0 + 100, 'pending');
        await store.touchChecked(bill.billId!, T0 + 999);
        const after = await store.getByBillId(bill.billId!);
        assert.equal(after?.checkedAt, T0 + 999);
        assert.equal(after?.status, 1);
        assert.equal(after?.dateTime, T0 + 100);
      });
    });

    describe('lists', () => {
      it('listPending gives created non-final bills not checked since, never-checked then oldest first', async () => {
        await store.insertBill(newBill()); // creating: not listed
        const fresh = await created();
        const old = await created();
        const never = await created();
        const final = await created();
        await apply(fresh.billId!, 1, T0 + 900, 'pending'); // checked T0+905
        await apply(old.billId!, 1, T0 + 100, 'pending'); // checked T0+105
        await apply(final.billId!, 2, T0 + 50, 'paid');
        const list = await store.listPending(T0 + 500, 10);
        assert.deepEqual(list.map((b) => b.billId), [never.billId, old.billId]);
        assert.deepEqual((await store.listPending(T0 + 10_000, 10)).map((b) => b.billId), [never.billId, old.billId, fresh.billId]);
        assert.deepEqual((await store.listPending(T0 + 10_000, 1)).map((b) => b.billId), [never.billId]);
      });

      it('listPending: the closest to expiry first, then the longest unchecked; paged by key; countPendingDue counts them', async () => {
        const make = async (expiresLocalAt: number) => {
          const bill = newBill();
          await store.insertBill(bill);
          return store.completeCreate(bill.merchantReference, createdBill(bill.merchantReference, `b-${bill.merchantReference}`, { expiresLocalAt }), T0);
        };
        const late = await make(T0 + 9_000_000);
        const soonChecked = await make(T0 + 1_000_000);
        const soonNever = await make(T0 + 1_000_000);
        const soonest = await make(T0 + 500_000);
        const lateTwin = await make(T0 + 9_000_000);
        const fresh = await make(T0 + 100_000);
        await apply(soonChecked.billId!, 1, T0 + 100, 'pending'); // checked T0+105
        await apply(fresh.billId!, 1, T0 + 900, 'pending'); // checked T0+905: not due at T0+500
        const due = [soonest, soonNever, soonChecked, late, lateTwin].map((b) => b.billId);
        assert.deepEqual((await store.listPending(T0 + 500, 10)).map((b) => b.billId), due);
        // Page by page, each after the last bill of the one before: the same bills, once each.
        const paged: (string | null)[] = [];
        let page = await store.listPending(T0 + 500, 2);
        while (page.length > 0) {
          paged.push(...page.map((b) => b.billId));
          // A bill checked between pages is no longer due, and moves nothing else.
          if (paged.length === 2) await apply(late.billId!, 1, T0 + 1_000, 'pending');
          page = await store.listPending(T0 + 500, 2, undefined, page.at(-1));
        }
        assert.deepEqual(paged, [soonest, soonNever, soonChecked, lateTwin].map((b) => b.billId));
        // The oldest last check: a check, or the creation of a bill never checked.
        const neverChecked = Math.min(soonNever.createdAt, soonest.createdAt, lateTwin.createdAt);
        assert.deepEqual(await store.countPendingDue(T0 + 500), { count: 4, oldestCheckedAt: Math.min(T0 + 105, neverChecked) });
        assert.deepEqual(await store.countPendingDue(T0 + 500, 'another-service'), { count: 4, oldestCheckedAt: Math.min(T0 + 105, neverChecked) });
        assert.deepEqual(await store.countPendingDue(T0 + 50), { count: 3, oldestCheckedAt: neverChecked });
      });

      it('listCreating gives bills left in creating since before the cut-off, oldest first', async () => {
        const a = newBill({ createdAt: T0 + 10 });
        const b = newBill({ createdAt: T0 + 5 });
        const c = newBill({ createdAt: T0 + 50 });
        for (const bill of [a, b, c]) await store.insertBill(bill);
        const d = newBill({ createdAt: T0 + 1 });
        await store.insertBill(d);
        await store.completeCreate(d.merchantReference, createdBill(d.merchantReference, 'bd'), T0 + 2);
        const e = newBill({ createdAt: T0 + 2 });
        await store.insertBill(e);
        await store.failCreate(e.merchantReference, T0 + 3);
        assert.deepEqual((await store.listCreating(T0 + 20, 10)).map((x) => x.merchantReference), [b.merchantReference, a.merchantReference]);
        assert.deepEqual((await store.listCreating(T0 + 100, 1)).map((x) => x.merchantReference), [b.merchantReference]);
      });
    });

    describe('notices', () => {
      const claim = (now: number, limit = 10) => store.claimNotices('webhook', now, 1_000, limit);

      async function finalBill() {
        const bill = await created();
        await apply(bill.billId!, 2, T0 + 100, 'paid');
        return bill.billId!;
      }

      it('claims a due notice and leases it: nobody else gets it until the lease ends', async () => {
        const billId = await finalBill();
        assert.deepEqual(await claim(T0), [], 'not due before it was queued');
        const first = await claim(T0 + 200);
        assert.equal(first.length, 1);
        assert.equal(first[0]!.id, `msg_${billId}`);
        assert.equal(first[0]!.attempts, 1);
        assert.deepEqual(await claim(T0 + 200), []);
        assert.deepEqual(await claim(T0 + 1_199), []);
        const again = await claim(T0 + 1_200);
        assert.equal(again.length, 1);
        assert.equal(again[0]!.id, first[0]!.id);
        assert.equal(again[0]!.attempts, 2);
        // The hook channel is separate.
        assert.equal((await store.claimNotices('hook', T0 + 200, 1_000, 10)).length, 1);
      });

      const attempt = (at: number, ok: boolean, extra: Partial<NoticeAttempt> = {}) => ({
        at, durationMs: 12, ok, replay: false, httpStatus: ok ? 200 : 500, response: ok ? 'ok' : 'boom', error: ok ? null : 'HTTP 500', ...extra,
      });

      it('a failed attempt schedules the next one; a delivered one ends it; both are in the delivery log', async () => {
        const billId = await finalBill();
        const [n] = await claim(T0 + 200);
        const logged = await store.finishNoticeAttempt(n!, { attempt: attempt(T0 + 200, false), nextAttemptAt: T0 + 5_000 });
        assert.equal(logged.number, 1);
        const [failed] = (await store.noticesFor([billId])).filter((x) => x.channel === 'webhook');
        assert.equal(failed!.lastError, 'HTTP 500');
        assert.equal(failed!.nextAttemptAt, T0 + 5_000);
        assert.equal(failed!.deliveredAt, null);
        assert.equal(failed!.state, 'pending');
        assert.deepEqual(await claim(T0 + 4_999), [], 'not before its next attempt, though the lease is gone');
        const [retry] = await claim(T0 + 5_000);
        assert.equal(retry!.attempts, 2);
        assert.equal(retry!.replay, false);
        await store.finishNoticeAttempt(retry!, { attempt: attempt(T0 + 5_100, true), nextAttemptAt: null });
        const delivered = await store.getNotice(retry!.id);
        assert.equal(delivered!.deliveredAt, T0 + 5_100);
        assert.equal(delivered!.state, 'delivered');
        assert.equal(delivered!.attempts, 2);
        assert.deepEqual(await claim(T0 + 100_000), []);
        // A late failure report from a stale worker does not undo the delivery.
        await store.finishNoticeAttempt(retry!, { attempt: attempt(T0 + 200_000, false), nextAttemptAt: T0 + 300_000 });
        assert.equal((await store.getNotice(retry!.id))!.state, 'delivered');
        const log = await store.noticeAttempts([retry!.id]);
        assert.deepEqual(log.map((a) => [a.number, a.ok, a.httpStatus, a.response]), [[1, false, 500, 'boom'], [2, true, 200, 'ok'], [3, false, 500, 'boom']]);
      });

      it('the schedule running out leaves the notice failed; a replay sends it once more, outside the count', async () => {
        const billId = await finalBill();
        const [n] = await claim(T0 + 200);
        await store.finishNoticeAttempt(n!, { attempt: attempt(T0 + 200, false), nextAttemptAt: null });
        const failed = await store.getNotice(`msg_${billId}`);
        assert.equal(failed!.state, 'failed');
        assert.deepEqual(await claim(T0 + 10_000_000), [], 'a failed notice is not tried again by itself');
        assert.deepEqual((await store.listNotices({ state: 'failed', limit: 10 })).map((x) => x.id), [`msg_${billId}`]);

        assert.equal(await store.replayNotice('msg_nope', T0 + 300), null);
        await store.replayNotice(`msg_${billId}`, T0 + 300);
        assert.deepEqual(await claim(T0 + 299), []);
        const [replay] = await claim(T0 + 300);
        assert.equal(replay!.replay, true);
        assert.equal(replay!.attempts, 1, 'a replay is not a scheduled attempt');
        await store.finishNoticeAttempt(replay!, { attempt: attempt(T0 + 300, false, { replay: true }), nextAttemptAt: null });
        assert.equal((await store.getNotice(replay!.id))!.state, 'failed');
        assert.deepEqual(await claim(T0 + 10_000_000), [], 'a failed replay is not repeated');

        // Range replay: failed notices created in [from, to).
        assert.equal(await store.replayFailedNotices('webhook', T0 + 106, T0 + 1_000, T0 + 400), 0, 'outside the range');
        assert.equal(await store.replayFailedNotices('webhook', T0, T0 + 106, T0 + 400), 1);
        const [again] = await claim(T0 + 400);
        await store.finishNoticeAttempt(again!, { attempt: attempt(T0 + 400, true, { replay: true }), nextAttemptAt: null });
        const done = await store.getNotice(again!.id);
        assert.equal(done!.state, 'delivered');
        assert.equal(done!.replayAt, null);
        assert.deepEqual((await store.noticeAttempts([again!.id])).map((a) => [a.number, a.replay, a.ok]), [[1, false, false], [2, true, false], [3, true, true]]);
        assert.equal(await store.replayFailedNotices('webhook', T0, T0 + 106, T0 + 500), 0, 'a delivered notice is not failed');
      });

      it('a disabled endpoint is remembered until enabled; enabling makes its pending notices due', async () => {
        const url = 'https://merchant.example/hooks';
        assert.deepEqual(await store.webhookEndpoint(url), { url, disabledAt: null, disabledReason: null });
        await store.disableWebhookEndpoint(url, T0 + 10, 'HTTP 410 Gone');
        assert.deepEqual(await store.webhookEndpoint(url), { url, disabledAt: T0 + 10, disabledReason: 'HTTP 410 Gone' });
        assert.equal((await store.webhookEndpoint('https://other.example/')).disabledAt, null, 'per URL');
        const billId = await finalBill();
        const [n] = await claim(T0 + 200);
        await store.finishNoticeAttempt(n!, { attempt: attempt(T0 + 200, false), nextAttemptAt: T0 + 9_000_000 });
        assert.equal(await store.enableWebhookEndpoint(url, T0 + 1_000), 1);
        assert.equal((await store.webhookEndpoint(url)).disabledAt, null);
        assert.equal((await claim(T0 + 1_000))[0]?.id, `msg_${billId}`);
      });

      it('counts notices by channel and state, with the oldest pending', async () => {
        await finalBill();
        const counts = await store.countNotices();
        const webhook = counts.find((c) => c.channel === 'webhook' && c.state === 'pending');
        assert.equal(webhook?.count, 1);
        assert.equal(webhook?.oldestAt, T0 + 105);
      });

      it('claims oldest due first, up to the limit', async () => {
        const ids = [];
        for (let i = 0; i < 3; i++) {
          const bill = await created();
          await apply(bill.billId!, 2, T0 + 300 - i * 100, 'paid');
          ids.push(`msg_${bill.billId}`);
        }
        const got = await claim(T0 + 1_000, 2);
        assert.deepEqual(got.map((n) => n.id), [ids[2], ids[1]]);
        assert.deepEqual((await claim(T0 + 1_000, 10)).map((n) => n.id), [ids[0]]);
      });

      it('noticesFor lists the notices of the given bills only', async () => {
        const a = await finalBill();
        const b = await finalBill();
        await finalBill();
        const notices = await store.noticesFor([a, b, 'unknown']);
        assert.equal(notices.length, 4);
        assert.deepEqual(new Set(notices.map((n) => n.billId)), new Set([a, b]));
        assert.deepEqual(await store.noticesFor([]), []);
      });
    });

    describe("the merchant's operations", () => {
      it("a bill's history: its create, each status change with its reason; the final one says how it was learned", async () => {
        const bill = await created({ orderId: 'order-1042' });
        const billId = bill.billId!;
        await store.applyStatus({ billId, record: statusRecord(billId, 1, T0 + 50), outcome: 'pending', checkedAt: T0 + 60, reason: 'poll' }, []);
        await store.applyStatus({ billId, record: statusRecord(billId, 1, T0 + 50), outcome: 'pending', checkedAt: T0 + 70, reason: 'stream' }, []);
        const final = await store.applyStatus({ billId, record: statusRecord(billId, 2, T0 + 80), outcome: 'paid', checkedAt: T0 + 90, reason: 'reconcile' }, []);
        assert.equal(final.bill.finalReason, 'reconcile');
        assert.equal(final.bill.finalAt, T0 + 90);
        const stored = await store.getByBillId(billId);
        assert.equal(stored!.finalReason, 'reconcile');
        assert.equal(stored!.finalAt, T0 + 90);
        const history = await store.billHistory(bill.merchantReference);
        assert.deepEqual(history.map((e) => [e.kind, e.reason, e.outcome, e.at]), [
          ['created', null, null, T0], ['status', 'poll', 'pending', T0 + 60], ['status', 'reconcile', 'paid', T0 + 90],
        ], 'a requery that changed nothing is not a step');

        const failed = newBill();
        await store.insertBill(failed);
        await store.failCreate(failed.merchantReference, T0 + 5);
        assert.deepEqual((await store.billHistory(failed.merchantReference)).map((e) => e.kind), ['create_failed']);
      });

      it("finds an order's bills by its id, exactly or by a part of it (wildcards taken literally)", async () => {
        const a = await created({ orderId: 'order-1042' });
        await store.supersede(a.merchantReference, T0);
        const b = await created({ orderId: 'order-1042' });
        await created({ orderId: 'order-2042' });
        await created({ orderId: 'x%_' });
        assert.deepEqual(new Set((await store.findBillsByOrder('order-1042', 'equal', 10)).map((x) => x.billId)), new Set([a.billId, b.billId]));
        assert.equal((await store.findBillsByOrder('ORDER-1042', 'like', 10)).length, 2, 'like is case-insensitive');
        assert.equal((await store.findBillsByOrder('042', 'like', 10)).length, 3);
        assert.equal((await store.findBillsByOrder('042', 'like', 2)).length, 2);
        assert.equal((await store.findBillsByOrder('%', 'like', 10)).length, 1, 'a % is a %');
        assert.equal((await store.findBillsByOrder('_', 'like', 10)).length, 1);
        assert.equal(await store.countPending(), 4);
      });

      it('binds a customer once: one claim at a time, the id kept, a failed bind given back', async () => {
        assert.deepEqual(await store.claimCustomerBind('cust-1', T0, 1_000), { kind: 'claimed' });
        assert.deepEqual(await store.claimCustomerBind('cust-1', T0 + 10, 1_000), { kind: 'busy' });
        const bound = await store.completeCustomerBind('cust-1', 'svc-1', T0 + 20);
        assert.deepEqual(bound, { customerKey: 'cust-1', customerId: 'svc-1', boundAt: T0 + 20 });
        assert.deepEqual(await store.claimCustomerBind('cust-1', T0 + 30, 1_000), { kind: 'bound', customer: bound });
        assert.deepEqual(await store.completeCustomerBind('cust-1', 'svc-2', T0 + 40), bound, 'a bound key keeps its id');

        assert.deepEqual(await store.claimCustomerBind('cust-2', T0, 1_000), { kind: 'claimed' });
        await store.releaseCustomerBind('cust-2');
        assert.deepEqual(await store.claimCustomerBind('cust-2', T0 + 1, 1_000), { kind: 'claimed' }, 'given back');
        assert.deepEqual(await store.claimCustomerBind('cust-2', T0 + 1_001, 1_000), { kind: 'claimed' }, 'an expired claim is taken over');
        await store.completeCustomerBind('cust-2', 'svc-3', T0 + 50);
        assert.deepEqual((await store.listCustomers(10)).map((c) => c.customerKey), ['cust-2', 'cust-1']);
        assert.deepEqual((await store.listCustomers(10, T0 + 50)).map((c) => c.customerKey), ['cust-1']);
      });
    });

    describe('lifecycle', () => {
      it('migrate is idempotent and ping answers', async () => {
        await store.migrate();
        await store.migrate();
        await store.ping();
      });
    });
  });
}
