// The shared hub over a stand-in for the store's LISTEN/NOTIFY: what it does when messages were lost.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../../../server/log.js';
import { createSharedHub } from '../../../../server/domain/status/hub.js';
import type { StatusChanges, StoreEvents } from '../../../../server/store/types.js';
import type { BillView } from '../../../../contract/bill-view.js';

function view(billId: string, outcome: BillView['outcome']): BillView {
  return {
    billId, merchantReference: `bc_${billId}`, billUrl: 'https://pay.example/b', billAmount: '5.00', currency: 'USD',
    requireGCAmount: null, expiredOn: 0, status: outcome === 'paid' ? 2 : 1, statusName: outcome,
    isFinal: outcome !== 'pending', outcome, dateTime: 1,
  };
}

/** One channel, one listener: `resume()` plays a connection that came back after losing messages. */
function fakeEvents() {
  let resumed: (() => void) | undefined;
  let deliver: ((payload: string) => void) | undefined;
  const events: StoreEvents = {
    notify: async () => undefined,
    async listen(_channel, onMessage, onResumed) {
      resumed = onResumed;
      deliver = onMessage;
      return async () => undefined;
    },
  };
  return { events, resume: () => resumed?.(), message: (payload: unknown) => deliver?.(JSON.stringify(payload)) };
}

test('after the LISTEN connection comes back, watched bills are re-read and their watchers get what they missed', { timeout: 5_000 }, async () => {
  const { events, resume } = fakeEvents();
  const asked: string[][] = [];
  const hub = createSharedHub(events, {
    log: createLogger({ write: () => undefined }),
    reload: async (billIds) => {
      asked.push(billIds);
      return billIds.map((billId) => ({ view: view(billId, billId === 'paid-meanwhile' ? 'paid' : 'pending'), version: 2 }));
    },
  });
  await hub.ready();
  const seen: BillView[] = [];
  let delivered!: () => void;
  const done = new Promise<void>((resolve) => (delivered = resolve));
  hub.subscribe('paid-meanwhile', (v, version) => {
    assert.equal(version, 2);
    seen.push(v);
    delivered();
  });
  const stop = hub.subscribe('still-pending', (v) => seen.push(v));
  stop();
  resume();
  await done;
  assert.deepEqual(asked, [['paid-meanwhile']], 'only bills someone still watches are read');
  assert.deepEqual(seen.map((v) => [v.billId, v.outcome]), [['paid-meanwhile', 'paid']]);
});

test("another process's change reaches watchers with its status version; one without (older code) is read from the store", { timeout: 5_000 }, async () => {
  const { events, message } = fakeEvents();
  const asked: string[][] = [];
  const hub = createSharedHub(events, {
    log: createLogger({ write: () => undefined }),
    instance: 'here',
    reload: async (billIds) => {
      asked.push(billIds);
      return billIds.map((billId) => ({ view: view(billId, 'paid'), version: 7 }));
    },
  });
  await hub.ready();
  const seen: [string, number][] = [];
  let count = 0;
  let second!: () => void;
  const both = new Promise<void>((resolve) => (second = resolve));
  hub.subscribe('B1', (v, version) => {
    seen.push([v.outcome, version]);
    if (++count === 2) second();
  });
  message({ from: 'there', view: view('B1', 'pending'), version: 3 });
  message({ from: 'older', view: view('B1', 'paid') });
  await both;
  assert.deepEqual(seen, [['pending', 3], ['paid', 7]]);
  assert.deepEqual(asked, [['B1']]);
});

/** A stand-in for StoreEvents.statusChangesSince that the test answers call by call. */
function sweptStore() {
  type Call = { since: number | null; answer: (a: StatusChanges) => void; fail: (e: Error) => void };
  const calls: Call[] = [];
  const waiting: ((call: Call) => void)[] = [];
  let inFlight = 0;
  let overlapped = false;
  const statusChangesSince = (since: number | null) => new Promise<StatusChanges>((resolve, reject) => {
    if (++inFlight > 1) overlapped = true;
    const done = () => inFlight--;
    const call: Call = { since, answer: (a) => { done(); resolve(a); }, fail: (e) => { done(); reject(e); } };
    calls.push(call);
    waiting.shift()?.(call);
  });
  /** The next call of the sweep (the one already made, or the one to come). */
  let taken = 0;
  const next = () => new Promise<Call>((resolve) => {
    const call = calls[taken];
    if (call) {
      taken++;
      resolve(call);
    } else {
      waiting.push((c) => {
        taken++;
        resolve(c);
      });
    }
  });
  return { statusChangesSince, next, calls, overlapped: () => overlapped };
}

test('the sweep shows watchers a change committed but never announced, reads again only newer versions, survives a failure and stops on close', { timeout: 5_000 }, async () => {
  const { events } = fakeEvents();
  const store = sweptStore();
  events.statusChangesSince = store.statusChangesSince;
  const asked: string[][] = [];
  const lines: string[] = [];
  const hub = createSharedHub(events, {
    log: createLogger({ write: (line) => lines.push(line) }),
    sweepMs: 1,
    sweepMarginMs: 100,
    reload: async (billIds) => {
      asked.push(billIds);
      return billIds.map((billId) => ({ view: view(billId, 'paid'), version: 3 }));
    },
  });
  await hub.ready();
  const seen: [string, number][] = [];
  let shown!: () => void;
  const paid = new Promise<void>((resolve) => (shown = resolve));
  hub.subscribe('A', (v, version) => {
    seen.push([v.outcome, version]);
    shown();
  });

  // The first sweep only learns the store's clock; each next one looks from its `at`, less the margin.
  let call = await store.next();
  assert.equal(call.since, null);
  call.answer({ at: 1_000, changes: [] });
  call = await store.next();
  assert.equal(call.since, 900);
  // A's payment, committed by a process that died before its NOTIFY; C is watched by nobody here.
  call.answer({ at: 2_000, changes: [{ billId: 'A', version: 3 }, { billId: 'C', version: 1 }] });
  await paid;
  assert.deepEqual(seen, [['paid', 3]]);
  assert.deepEqual(asked, [['A']]);

  call = await store.next();
  assert.equal(call.since, 1_900);
  call.fail(new Error('connection reset'));
  call = await store.next();
  assert.equal(call.since, 1_900, 'a failed sweep does not move the window');
  assert.ok(lines.some((line) => line.includes('status sweep failed')), lines.join('\n'));
  // The same change seen again in the overlapping window: version 3 was shown, nothing is read.
  call.answer({ at: 3_000, changes: [{ billId: 'A', version: 3 }] });
  call = await store.next();
  assert.equal(call.since, 2_900);
  assert.deepEqual(asked, [['A']]);

  // close() waits for the sweep in flight, and no sweep starts after it.
  let closed = false;
  const closing = hub.close().then(() => (closed = true));
  await Promise.resolve();
  assert.equal(closed, false);
  call.answer({ at: 4_000, changes: [] });
  await closing;
  const after = store.calls.length;
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(store.calls.length, after);
  assert.equal(store.overlapped(), false, 'one sweep at a time');
});
