// What a create call to the service came to (server/domain/create/create-outcome.ts): a failure
// whose outcome is known fails the stored create and tells the caller why; an unknown one is left
// to settling by merchantReference, which withdraws whatever the service made; an answer that is
// not the bill asked for is withdrawn and raised as an alert.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { askAgain, failedCreate, refuseAnswer, settleByReference, type CreateOutcomeDeps } from '../../../../server/domain/create/create-outcome.js';
import { createAlerts, type AlertKind } from '../../../../server/domain/alerts.js';
import { CheckoutError } from '../../../../server/domain/errors.js';
import {
  BillApiHttpError, BillApiNetworkError, BillApiRejectedError, BillApiResponseError, BillApiThrottledError, BillApiTimeoutError,
} from '../../../../server/upstream/errors.js';
import type { StatusRecord } from '../../../../server/upstream/types.js';
import { logLines, storedBill } from '../../support/unit.js';

const NOW = 5_000;

function deps(over: { cancel?: (billId: string) => void; found?: string[] } = {}) {
  const { log, lines } = logLines();
  const calls: string[] = [];
  const raised: AlertKind[] = [];
  const d: CreateOutcomeDeps = {
    upstream: {
      cancelBill: async (billId) => { calls.push(`cancel ${billId}`); over.cancel?.(billId); },
      findByMerchantReference: async (ref) => {
        calls.push(`find ${ref}`);
        return (over.found ?? []).map((billId) => ({ billId }) as StatusRecord);
      },
    },
    store: {
      failCreate: async (ref, at) => { calls.push(`fail ${ref} at ${at}`); },
      recordOrphan: async (ref, billId) => {
        calls.push(`orphan ${ref} ${billId}`);
        return storedBill({ merchantReference: ref, billId, orphanedAt: NOW, supersededAt: NOW });
      },
      confirmWithdrawal: async (billId) => { calls.push(`confirm ${billId}`); },
    },
    alerts: createAlerts(log, (kind) => raised.push(kind)),
    now: () => NOW,
    log,
  };
  return { deps: d, calls, lines, raised };
}

const refused = (code: string, kind = 'upstream') => (error: unknown) => {
  assert.ok(error instanceof CheckoutError, String(error));
  assert.deepEqual([error.code, error.kind], [code, kind]);
  return true;
};

test('a refusal the service meant (code not ok, no 5xx): the create fails, upstream_rejected names the code', async () => {
  const { deps: d, calls, lines } = deps();
  const error = new BillApiRejectedError('x', { operation: 'create', retryable: false, code: 1001, serviceMessage: 'bad amount', httpStatus: 200 });
  await assert.rejects(failedCreate(error, 'ref-1', d), (e) => refused('upstream_rejected')(e) && /\(code 1001\)/.test((e as Error).message));
  assert.deepEqual(calls, [`fail ref-1 at ${NOW}`]);
  assert.deepEqual([lines[0]!.level, lines[0]!.msg, lines[0]!.code], ['warn', 'create refused by the service', 1001]);
});

test('a refusal for load: nothing was made, the create fails, upstream_busy carries the Retry-After in seconds', async () => {
  const { deps: d, calls } = deps();
  const error = new BillApiThrottledError('x', { operation: 'create', retryable: true, retryAfterMs: 4_200, httpStatus: 429 });
  await assert.rejects(failedCreate(error, 'ref-1', d), (e) => refused('upstream_busy', 'busy')(e) && (e as CheckoutError).retryAfterSeconds === 5);
  assert.deepEqual(calls, [`fail ref-1 at ${NOW}`]);
});

test('a failure that made no bill: an HTTP 404 is upstream_unavailable (502, it fails again), the service out of reach asks again shortly (503)', async () => {
  const { deps: d, lines } = deps();
  const error = new BillApiHttpError('x', { operation: 'create', retryable: false, httpStatus: 404 });
  await assert.rejects(failedCreate(error, 'ref-1', d), refused('upstream_unavailable'));
  const refusedConnection = new BillApiNetworkError('x', { operation: 'create', retryable: true });
  await assert.rejects(failedCreate(refusedConnection, 'ref-1', deps().deps), (e) => refused('upstream_unavailable', 'busy')(e) && (e as CheckoutError).retryAfterSeconds === 2);
  assert.deepEqual([lines[0]!.level, lines[0]!.msg], ['error', 'create failed; the service did not make the bill']);
});

test('an answer naming a bill with an impossible expiry: that bill is kept as an orphan and withdrawn, upstream_invalid_answer', async () => {
  const { deps: d, calls } = deps();
  const error = new BillApiResponseError('x', { operation: 'create', retryable: false, httpStatus: 200, field: 'data.expiredOn', madeBillId: 'B9' });
  await assert.rejects(failedCreate(error, 'ref-1', d), refused('upstream_invalid_answer'));
  assert.deepEqual(calls, ['orphan ref-1 B9', 'cancel B9', 'confirm B9']);
});

test('a withdrawal that fails is logged and the caller still hears upstream_invalid_answer', async () => {
  const { deps: d, lines } = deps({ cancel: () => { throw new Error('down'); } });
  const error = new BillApiResponseError('x', { operation: 'create', retryable: false, httpStatus: 200, field: 'data.expiredOn', madeBillId: 'B9' });
  await assert.rejects(failedCreate(error, 'ref-1', d), refused('upstream_invalid_answer'));
  assert.deepEqual(lines.map((l) => l.msg), ['withdrawing an orphan bill failed; the reconciler tries again', 'create answer unusable; its bill was withdrawn']);
});

test('an unknown outcome (timeout after sending, a 5xx, a refusal with a 5xx) returns, nothing failed: the caller settles it', async () => {
  for (const error of [
    new BillApiTimeoutError('x', { operation: 'create', retryable: true, outcomeUnknown: true, timeoutMs: 10_000 }),
    new BillApiNetworkError('x', { operation: 'create', retryable: true, outcomeUnknown: true }),
    new BillApiHttpError('x', { operation: 'create', retryable: true, outcomeUnknown: true, httpStatus: 502 }),
    new BillApiRejectedError('x', { operation: 'create', retryable: true, outcomeUnknown: true, code: 5000, serviceMessage: 'oops', httpStatus: 500 }),
  ]) {
    const { deps: d, calls, lines } = deps();
    await failedCreate(error, 'ref-1', d);
    assert.deepEqual([calls, lines], [[], []], error.name);
  }
});

test('settling: every bill the service made under our reference is kept and cancelled (a failing cancel is left unconfirmed, for the reconciler), then the create fails', async () => {
  const { deps: d, calls, lines } = deps({ found: ['B1', 'B2', 'B3'], cancel: (billId) => { if (billId === 'B2') throw new Error('down'); } });
  await settleByReference(storedBill({ merchantReference: 'ref-1' }), d);
  assert.deepEqual(calls, [
    'find ref-1', 'orphan ref-1 B1', 'cancel B1', 'confirm B1', 'orphan ref-1 B2', 'cancel B2', 'orphan ref-1 B3', 'cancel B3', 'confirm B3',
    `fail ref-1 at ${NOW}`,
  ]);
  assert.deepEqual(lines.map((l) => [l.level, l.msg]), [['warn', 'withdrawing an orphan bill failed; the reconciler tries again'], ['info', 'settled a create of unknown outcome']]);
  assert.equal(lines[1]!.orphans, 3);
});

test('settling with nothing found fails the create; a failing list fails before anything is marked', async () => {
  const { deps: d, calls } = deps();
  await settleByReference(storedBill({ merchantReference: 'ref-1' }), d);
  assert.deepEqual(calls, ['find ref-1', `fail ref-1 at ${NOW}`]);
  const broken = deps();
  broken.deps.upstream.findByMerchantReference = async () => { throw new Error('list failed'); };
  await assert.rejects(settleByReference(storedBill(), broken.deps), /list failed/);
  assert.deepEqual(broken.calls, []);
});

test('an answer for another bill: alert, the bill withdrawn (or not, when it may be a customer\'s), the create failed, upstream_mismatch', async () => {
  const { deps: d, calls, raised, lines } = deps();
  await assert.rejects(refuseAnswer('ref-1', 'B7', true, { field: 'billAmount', expected: '10', got: '11' }, d), refused('upstream_mismatch'));
  // Under our reference, for another amount: ours all the same, kept as an orphan and withdrawn.
  assert.deepEqual(calls, ['orphan ref-1 B7', 'cancel B7', 'confirm B7', `fail ref-1 at ${NOW}`]);
  const foreign = deps();
  await assert.rejects(refuseAnswer('ref-1', 'B8', true, { field: 'merchantReference', expected: 'ref-1', got: 'other' }, foreign.deps), refused('upstream_mismatch'));
  assert.deepEqual(foreign.calls, ['cancel B8', `fail ref-1 at ${NOW}`]);
  assert.deepEqual(raised, ['create_answer_mismatch']);
  assert.equal(lines[0]!.msg, 'alert: a create answer does not match the request; the bill is not used');
  assert.deepEqual([lines[0]!.merchantReference, lines[0]!.billId, lines[0]!.field], ['ref-1', 'B7', 'billAmount']);
  const kept = deps();
  await assert.rejects(refuseAnswer('ref-1', 'B7', false, {}, kept.deps), refused('upstream_mismatch'));
  assert.deepEqual(kept.calls, [`fail ref-1 at ${NOW}`]);
});

test('a callback that beat the create answer: asked again at once, followed up unless final', async () => {
  const run = async (refresh: () => Promise<unknown>) => {
    const { log, lines } = logLines();
    const followed: string[] = [];
    await askAgain('B1', { refresh: refresh as never, followUps: { afterNews: (id) => followed.push(id) }, log });
    return { followed, lines };
  };
  assert.deepEqual((await run(async () => ({ bill: storedBill({ isFinal: true, outcome: 'paid' }), confirmed: true }))).followed, []);
  assert.deepEqual((await run(async () => ({ bill: storedBill(), confirmed: true }))).followed, ['B1']);
  const failing = await run(async () => { throw new Error('down'); });
  assert.deepEqual(failing.followed, ['B1']);
  assert.equal(failing.lines[0]!.msg, 'requerying a bill whose callback came first failed; following it up');
});
