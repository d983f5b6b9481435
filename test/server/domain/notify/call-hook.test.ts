// The merchant's onFinal hook, called with a deadline (server/domain/notify/call-hook.ts). The
// deadline's timer is a fake: nobody sleeps.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toBillNotice } from '../../../../server/domain/bill-view.js';
import { callHook } from '../../../../server/domain/notify/call-hook.js';
import { storedBill } from '../../support/unit.js';

const view = toBillNotice(storedBill({ isFinal: true, outcome: 'paid' }), false);

function fakeTimer() {
  const timers = new Map<number, () => void>();
  let next = 0;
  return {
    setTimer: (callback: () => void) => (timers.set(++next, callback), next),
    clearTimer: (id: unknown) => void timers.delete(id as number),
    fire: () => { for (const [id, callback] of timers) { timers.delete(id); callback(); } },
    pending: () => timers.size,
  };
}

test('the hook is given the notice and a signal; its deadline is cleared once it returns', async () => {
  const timer = fakeTimer();
  const seen: unknown[] = [];
  await callHook(async (bill, { signal }) => void seen.push(bill, signal.aborted), view, { timeoutMs: 10_000, ...timer });
  assert.deepEqual(seen, [view, false]);
  assert.equal(timer.pending(), 0);
});

test('a hook that throws (or throws at once, not async) fails the attempt with its error', async () => {
  const timer = fakeTimer();
  await assert.rejects(callHook(async () => { throw new Error('crm down'); }, view, { timeoutMs: 10_000, ...timer }), /crm down/);
  await assert.rejects(callHook(() => { throw new Error('sync'); }, view, { timeoutMs: 10_000, ...timer }), /sync/);
  assert.equal(timer.pending(), 0);
});

test('a hook that never returns fails at its deadline, and its signal aborts with the same error', async () => {
  const timer = fakeTimer();
  let signal: AbortSignal | undefined;
  const call = callHook((_, context) => { signal = context.signal; return new Promise<void>(() => undefined); }, view, { timeoutMs: 250, ...timer });
  await Promise.resolve();
  assert.equal(signal?.aborted, false);
  timer.fire();
  await assert.rejects(call, { message: 'onFinal did not finish within 250 ms' });
  assert.equal(signal?.aborted, true);
  assert.equal((signal?.reason as Error).message, 'onFinal did not finish within 250 ms');
});
