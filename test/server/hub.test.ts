// The shared hub over a stand-in for the store's LISTEN/NOTIFY: what it does when messages were lost.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../server/log.js';
import { createSharedHub } from '../../server/domain/status/hub.js';
import type { StoreEvents } from '../../server/store/types.js';
import type { BillView } from '../../contract/bill-view.js';

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
