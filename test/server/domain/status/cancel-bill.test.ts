// The customer's cancel, without HTTP: what is refused before the service is asked, how the
// service's answers become refusals, and the requery that every outcome but a failure leads to.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CheckoutError } from '../../../../server/domain/errors.js';
import { cancelBill, type CancelDeps } from '../../../../server/domain/status/cancel-bill.js';
import type { StoredBill } from '../../../../server/store/types.js';
import { BillApiNetworkError, BillApiRejectedError, BillApiThrottledError } from '../../../../server/upstream/errors.js';
import { logLines, storedBill } from '../../support/unit.js';

const PROCESSING = 7;
const pending = (over: Partial<StoredBill> = {}) => ({ ...storedBill(over), billId: 'B1' });

function deps(cancel: () => Promise<void>, after: StoredBill | null = null) {
  const asked: string[] = [];
  const requeried: string[] = [];
  const { log, lines } = logLines();
  const d: CancelDeps = {
    upstream: {
      cancelBill: async (billId) => {
        asked.push(billId);
        await cancel();
      },
    },
    refresher: {
      news: async (billId, options) => {
        requeried.push(`${billId}:${options?.reason ?? ''}`);
        return after ? { bill: after, confirmed: true } : null;
      },
    },
    config: { statuses: { processing: [PROCESSING] } },
    log,
  };
  return { d, asked, requeried, lines };
}

const refused = (code: string, kind: CheckoutError['kind'], message?: RegExp) => (error: unknown) =>
  error instanceof CheckoutError && error.code === code && error.kind === kind && (message === undefined || message.test(error.message));

test('a pending bill is cancelled at the service and answered as requeried after', async () => {
  const after = storedBill({ status: 3, statusName: 'Cancelled', isFinal: true, outcome: 'cancelled', statusVersion: 2 });
  const { d, asked, requeried } = deps(async () => undefined, after);
  const view = await cancelBill(pending(), d);
  assert.deepEqual(asked, ['B1']);
  assert.deepEqual(requeried, ['B1:cancel']);
  assert.equal(view.outcome, 'cancelled');
  assert.equal(view.isFinal, true);
});

test('without a requeried bill, the bill as it was is answered', async () => {
  const { d } = deps(async () => undefined, null);
  const view = await cancelBill(pending(), d);
  assert.equal(view.outcome, 'pending');
});

test('a bill that is not pending, or is being paid, is refused before the service is asked', async () => {
  const paid = deps(async () => undefined);
  await assert.rejects(cancelBill(pending({ outcome: 'paid', isFinal: true }), paid.d), refused('not_cancellable', 'conflict', /Only a pending bill/));
  const confirming = deps(async () => undefined);
  await assert.rejects(cancelBill(pending({ status: PROCESSING }), confirming.d), refused('not_cancellable', 'conflict', /being confirmed/));
  assert.deepEqual([...paid.asked, ...confirming.asked], []);
});

test("the service's refusal is not_cancellable, after a requery; its throttling is busy with its Retry-After", async () => {
  const rejected = deps(async () => {
    throw new BillApiRejectedError('x', { operation: 'cancel', retryable: false, code: 1, serviceMessage: 'no', httpStatus: 200 });
  });
  await assert.rejects(cancelBill(pending(), rejected.d), refused('not_cancellable', 'conflict', /payment service says/));
  assert.deepEqual(rejected.requeried, ['B1:cancel']);

  const throttled = deps(async () => {
    throw new BillApiThrottledError('x', { operation: 'cancel', retryable: true, retryAfterMs: 2_500, httpStatus: 429 });
  });
  await assert.rejects(cancelBill(pending(), throttled.d), (e) => refused('upstream_busy', 'busy')(e) && (e as CheckoutError).retryAfterSeconds === 3);
  assert.deepEqual(throttled.requeried, []);
});

test('any other failure is upstream_unavailable, logged, without a requery', async () => {
  const failed = deps(async () => {
    throw new BillApiNetworkError('down', { operation: 'cancel', retryable: true });
  });
  await assert.rejects(cancelBill(pending(), failed.d), refused('upstream_unavailable', 'upstream'));
  assert.deepEqual(failed.requeried, []);
  assert.ok(failed.lines.some((line) => line.level === 'warn' && line.msg === 'cancel failed' && line['billId'] === 'B1'));
});
