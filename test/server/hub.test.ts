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
  const events: StoreEvents = {
    notify: async () => undefined,
    async listen(_channel, _onMessage, onResumed) {
      resumed = onResumed;
      return async () => undefined;
    },
  };
  return { events, resume: () => resumed?.() };
}

test('after the LISTEN connection comes back, watched bills are re-read and their watchers get what they missed', { timeout: 5_000 }, async () => {
  const { events, resume } = fakeEvents();
  const asked: string[][] = [];
  const hub = createSharedHub(events, {
    log: createLogger({ write: () => undefined }),
    reload: async (billIds) => {
      asked.push(billIds);
      return billIds.map((billId) => view(billId, billId === 'paid-meanwhile' ? 'paid' : 'pending'));
    },
  });
  await hub.ready();
  const seen: BillView[] = [];
  let delivered!: () => void;
  const done = new Promise<void>((resolve) => (delivered = resolve));
  hub.subscribe('paid-meanwhile', (v) => {
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
