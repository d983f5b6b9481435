// What a create does with the order's current bill (server/domain/create/current-bill.ts): paid, it
// answers; payable for the same amount and currency, it is reused; otherwise it is withdrawn at the
// service first, and without the service's word no second bill is made.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideCurrent, judgeCurrent, untilCreated, type CurrentBillDeps } from '../../../../server/domain/create/current-bill.js';
import type { Resolved } from '../../../../server/domain/create/order-amount.js';
import { CheckoutError } from '../../../../server/domain/errors.js';
import type { Refreshed } from '../../../../server/domain/status/refresher.js';
import type { StoredBill } from '../../../../server/store/types.js';
import { BillApiNetworkError, BillApiRejectedError, BillApiThrottledError } from '../../../../server/upstream/errors.js';
import { logLines, storedBill } from '../../support/unit.js';

const NOW = 10_000_000;
const MINUTE = 60_000;
const sameClocks = { now: () => NOW, serviceNow: () => NOW };
const order = (amount: string, currency: string | null = null): Resolved => ({ amount, currency, order: { amount, currency } });

/** An order's open bill for 10, made a minute ago with ten minutes to live. */
const open = (over: Partial<StoredBill> = {}) => storedBill({
  orderId: 'order-7', amount: '10', orderAmount: '10', createdAt: NOW - MINUTE, expiredOn: NOW + 9 * MINUTE, expiresLocalAt: NOW + 9 * MINUTE, ...over,
}) as StoredBill & { billId: string };

const refused = (code: string) => (error: unknown) => error instanceof CheckoutError && error.code === code;

test('a paid bill answers, whatever its amount or expiry', () => {
  assert.equal(judgeCurrent(open({ outcome: 'paid', isFinal: true, expiredOn: NOW - MINUTE }), order('99'), sameClocks, true), 'paid');
});

test('a bill final otherwise (cancelled, expired, failed) is no longer the order\'s', () => {
  for (const outcome of ['cancelled', 'expired', 'failed'] as const) {
    assert.equal(judgeCurrent(open({ outcome, isFinal: true }), order('10'), sameClocks, true), 'ended');
  }
});

test('an open bill for the same amount and currency, with time to go, is reused', () => {
  assert.equal(judgeCurrent(open(), order('10.00'), sameClocks, false), 'reuse', 'amounts compare as numbers; no need to ask the service');
  assert.equal(judgeCurrent(open({ orderCurrency: 'EUR' }), order('10', 'EUR'), sameClocks, true), 'reuse');
});

test('the order\'s own amount decides, not the bill\'s', () => {
  assert.equal(judgeCurrent(open({ amount: '10.00', orderAmount: '12' }), order('10'), sameClocks, true), 'withdraw');
});

test('another amount or another currency: withdrawn when the service was asked, else no second bill', () => {
  assert.equal(judgeCurrent(open(), order('11'), sameClocks, true), 'withdraw');
  assert.equal(judgeCurrent(open(), order('11'), sameClocks, false), 'unconfirmed');
  assert.equal(judgeCurrent(open({ orderCurrency: 'EUR' }), order('10', 'USD'), sameClocks, true), 'withdraw');
});

test('a bill near its end is not handed out again: 30 s margin, or a tenth of a short lifetime', () => {
  // Ten minutes to live in all, 20 s left.
  const late = open({ createdAt: NOW - 580_000, expiredOn: NOW + 20_000, expiresLocalAt: NOW + 20_000 });
  assert.equal(judgeCurrent(late, order('10'), sameClocks, true), 'withdraw');
  // Two minutes to live in all, 15 s left: a tenth of its lifetime (12 s) is margin enough.
  const short = open({ createdAt: NOW - 105_000, expiredOn: NOW + 15_000, expiresLocalAt: NOW + 15_000 });
  assert.equal(judgeCurrent(short, order('10'), sameClocks, true), 'reuse');
});

test("the bill's own lifetime decides reuse: an estimate of the service's clock that is off does not withdraw it", () => {
  const serviceAhead = { now: () => NOW, serviceNow: () => NOW + 9 * MINUTE };
  assert.equal(judgeCurrent(open(), order('10'), serviceAhead, true), 'reuse');
  // Our clock: ten minutes of life seen at create, 10 s of it left, whatever the service's expiredOn says.
  assert.equal(judgeCurrent(open({ createdAt: NOW - 590_000, expiresLocalAt: NOW + 10_000 }), order('10'), sameClocks, true), 'withdraw');
  assert.equal(judgeCurrent(open({ expiredOn: null, expiresLocalAt: null }), order('10'), sameClocks, true), 'withdraw', 'no expiry yet: not payable');
});

function deps(over: { refresh?: Refreshed[] | 'fails'; cancel?: unknown } = {}) {
  const { log, lines } = logLines();
  const calls: string[] = [];
  const answers = over.refresh === 'fails' ? null : [...(over.refresh ?? [])];
  const d: CurrentBillDeps = {
    upstream: { cancelBill: async (billId) => { calls.push(`cancel ${billId}`); if (over.cancel) throw over.cancel; } },
    store: {
      supersede: async (ref, at) => { calls.push(`supersede ${ref} at ${at}`); },
      markLost: async (billId, at) => { calls.push(`lost ${billId} at ${at}`); },
    },
    refresh: async (billId) => {
      calls.push(`refresh ${billId}`);
      if (!answers) throw new Error('service down');
      return answers.shift() ?? null;
    },
    followUps: { afterNews: (billId) => calls.push(`follow up ${billId}`) },
    time: sameClocks, log, processing: [6],
  };
  return { deps: d, calls, lines };
}

const asked = (over: Partial<StoredBill>): Refreshed => ({ bill: open(over), confirmed: true });

test('decideCurrent: the service says paid: 200 with the paid bill and its token, nothing withdrawn', async () => {
  const { deps: d, calls } = deps({ refresh: [asked({ outcome: 'paid', isFinal: true, status: 2 })] });
  const answer = await decideCurrent(open(), order('99'), d);
  assert.equal(answer?.status, 200);
  assert.equal(answer?.bill.outcome, 'paid');
  assert.equal(answer?.bill.token, 't');
  assert.equal(answer?.fresh, false);
  assert.deepEqual(calls, ['refresh B1']);
});

test('decideCurrent: reused: 201 with the open bill, not fresh', async () => {
  const { deps: d } = deps({ refresh: [asked({})] });
  const answer = await decideCurrent(open(), order('10'), d);
  assert.deepEqual([answer?.status, answer?.fresh, answer?.bill.billId], [201, false, 'B1']);
});

test('decideCurrent: paid and being confirmed (in-between), past its expiry and for another amount: 201 with it, nothing withdrawn', async () => {
  const late = { status: 6, expiredOn: NOW - MINUTE, expiresLocalAt: NOW - MINUTE };
  assert.equal(judgeCurrent(open(late), order('11'), sameClocks, true, [6]), 'processing');
  assert.equal(judgeCurrent(open(late), order('11'), sameClocks, true), 'withdraw', 'no in-between codes configured');
  const { deps: d, calls } = deps({ refresh: [asked(late)] });
  const answer = await decideCurrent(open(), order('11'), d);
  assert.deepEqual([answer?.status, answer?.fresh, answer?.bill.processing, answer?.bill.outcome], [201, false, true, 'pending']);
  assert.deepEqual(calls, ['refresh B1']);
});

test('decideCurrent: the service cannot be asked and the amount changed: upstream_unavailable, nothing cancelled', async () => {
  const { deps: d, calls } = deps({ refresh: 'fails' });
  await assert.rejects(decideCurrent(open(), order('11'), d), refused('upstream_unavailable'));
  assert.deepEqual(calls, ['refresh B1']);
});

test('decideCurrent: another amount: cancelled at the service, superseded, asked again; once final a new bill may be made', async () => {
  const { deps: d, calls, lines } = deps({ refresh: [asked({}), asked({ outcome: 'cancelled', isFinal: true })] });
  assert.equal(await decideCurrent(open(), order('11'), d), null);
  assert.deepEqual(calls, ['refresh B1', 'cancel B1', `supersede ref-1 at ${NOW}`, 'refresh B1']);
  assert.deepEqual(lines.map((l) => [l.level, l.msg, l.billId, l.orderId]), [['info', "the order's bill was withdrawn at the service; a new one is made", 'B1', 'order-7']]);
});

test('withdraw: a cancel accepted but still pending there is followed up', async () => {
  const { deps: d, calls } = deps({ refresh: [asked({}), asked({})] });
  assert.equal(await decideCurrent(open(), order('11'), d), null);
  assert.deepEqual(calls.slice(-2), ['refresh B1', 'follow up B1']);
});

test('withdraw: the cancel refused as not pending and the bill paid meanwhile: 200 with it', async () => {
  const notPending = new BillApiRejectedError('refused', { operation: 'cancel', retryable: false, code: 2001, serviceMessage: 'not pending', httpStatus: 200 });
  const { deps: d, calls } = deps({ refresh: [asked({}), asked({ outcome: 'paid', isFinal: true })], cancel: notPending });
  const answer = await decideCurrent(open(), order('11'), d);
  assert.equal(answer?.status, 200);
  assert.ok(!calls.some((c) => c.startsWith('supersede')), 'a refused cancel supersedes nothing');
});

test('withdraw: the cancel refused but the requery still pending (a replica behind): order_bill_pending, followed up', async () => {
  const notPending = new BillApiRejectedError('refused', { operation: 'cancel', retryable: false, code: 2001, serviceMessage: 'not pending', httpStatus: 200 });
  const { deps: d, calls } = deps({ refresh: [asked({}), asked({})], cancel: notPending });
  await assert.rejects(decideCurrent(open(), order('11'), d), (error) => refused('order_bill_pending')(error) && (error as CheckoutError).retryAfterSeconds === 2);
  assert.equal(calls.at(-1), 'follow up B1');
});

test('withdraw: a cancel refused for load is upstream_busy with its delay; one that fails is upstream_unavailable; no new bill', async () => {
  const throttled = new BillApiThrottledError('slow down', { operation: 'cancel', retryable: true, retryAfterMs: 2_500 });
  const busy = deps({ refresh: [asked({})], cancel: throttled });
  await assert.rejects(decideCurrent(open(), order('11'), busy.deps), (error) => refused('upstream_busy')(error) && (error as CheckoutError).retryAfterSeconds === 3);
  assert.equal(busy.lines[0]!.msg, "withdrawing an order's bill failed; no new bill is made");
  const down = deps({ refresh: [asked({})], cancel: new BillApiNetworkError('unreachable', { operation: 'cancel', retryable: true }) });
  await assert.rejects(decideCurrent(open(), order('11'), down.deps), refused('upstream_unavailable'));
  assert.ok(!down.calls.some((c) => c.startsWith('supersede')));
});

test('untilCreated: waits, a pause at a time, until the other create leaves `creating`; gives up as order_bill_pending', async () => {
  const states = ['creating', 'creating', 'created'] as const;
  const slept: number[] = [];
  const store = { getByReference: async () => storedBill({ createState: states[slept.length - 1] ?? 'created' }) };
  await untilCreated({ merchantReference: 'ref-1' }, { store, polls: 10, pauseMs: 100, sleep: async (ms) => void slept.push(ms) });
  assert.deepEqual(slept, [100, 100, 100]);
  const gone = { getByReference: async () => null };
  await untilCreated({ merchantReference: 'ref-1' }, { store: gone, polls: 10, pauseMs: 100, sleep: async () => undefined });
  let polls = 0;
  const stuck = { getByReference: async () => storedBill({ createState: 'creating' }) };
  await assert.rejects(untilCreated({ merchantReference: 'ref-1' }, { store: stuck, polls: 4, pauseMs: 100, sleep: async () => void polls++ }), refused('order_bill_pending'));
  assert.equal(polls, 4);
});
