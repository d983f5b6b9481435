// News the service has not confirmed is followed up (DESIGN rule 11): asked again at 0.5, 1, 2, 4
// and 8 s intervals until final, and from a bill's expiry on. Fake timers drive the schedule.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createFollowUps } from '../../../../server/domain/status/follow-ups.js';
import type { StoredBill } from '../../../../server/store/types.js';

function fakeTimers() {
  let now = 1_000_000;
  let timers: { at: number; run: () => void; id: number }[] = [];
  let next = 0;
  return {
    now: () => now,
    setTimer: (run: () => void, ms: number) => {
      timers.push({ at: now + ms, run, id: next++ });
      return next - 1;
    },
    clearTimer: (id: unknown) => {
      timers = timers.filter((t) => t.id !== id);
    },
    pending: () => timers.length,
    async advance(ms: number) {
      const end = now + ms;
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const due = timers[0];
        if (!due || due.at > end) break;
        timers.shift();
        now = due.at;
        due.run();
        for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      }
      now = end;
    },
  };
}

const bill = (over: Partial<StoredBill>): StoredBill => ({
  merchantReference: 'ref', createState: 'created', billId: 'B1', orderId: null, idempotencyKey: null, amount: '1', orderAmount: null,
  orderCurrency: null, duplicatePayment: false, token: 't', hookToken: 'h', billUrl: 'u', currency: 'USD', requireGCAmount: null,
  expiredOn: null, expiresLocalAt: null, earlyNewsAt: null, supersededAt: null, withdrawConfirmedAt: null, orphanedAt: null, lostAt: null, serviceId: null, status: 1, statusName: 'Pending Payment', isFinal: false,
  outcome: 'pending', dateTime: null, statusVersion: 1, checkedAt: null, finalReason: null, finalAt: null, createdAt: 0, updatedAt: 0, ...over,
});

function setup(finalAfter = Infinity) {
  const time = fakeTimers();
  const asked: number[] = [];
  const followUps = createFollowUps({
    now: time.now, setTimer: time.setTimer, clearTimer: time.clearTimer,
    requery: async () => {
      asked.push(time.now());
      const final = asked.length >= finalAfter;
      return bill(final ? { isFinal: true, outcome: 'paid' } : {});
    },
    expiresAt: (b) => b.expiresLocalAt!,
  });
  return { time, asked, followUps };
}

test('after news: asked at 0.5, 1.5, 3.5, 7.5 and 15.5 s, then no more', async () => {
  const { time, asked, followUps } = setup();
  const start = time.now();
  followUps.afterNews('B1');
  await time.advance(60_000);
  assert.deepEqual(asked.map((at) => at - start), [500, 1500, 3500, 7500, 15_500]);
  assert.equal(followUps.size(), 0);
});

test('the schedule stops once the service calls the bill final; news repeated meanwhile asks no more often', async () => {
  const { time, asked, followUps } = setup(2);
  const start = time.now();
  followUps.afterNews('B1');
  await time.advance(700);
  followUps.afterNews('B1');
  await time.advance(60_000);
  assert.deepEqual(asked.map((at) => at - start), [500, 1500]);
  assert.equal(time.pending(), 0);
});

test("from a bill's expiry on: at once, then on the schedule; a final bill is not watched", async () => {
  const { time, asked, followUps } = setup(3);
  const expiresAt = time.now() + 60_000;
  followUps.watchExpiry(bill({ expiredOn: expiresAt, expiresLocalAt: expiresAt }));
  followUps.watchExpiry(bill({ billId: 'B2', expiredOn: expiresAt, expiresLocalAt: expiresAt, isFinal: true }));
  await time.advance(59_999);
  assert.deepEqual(asked, []);
  await time.advance(60_000);
  assert.deepEqual(asked.map((at) => at - expiresAt), [0, 500, 1500]);
  followUps.stop();
  assert.equal(time.pending(), 0);
});
