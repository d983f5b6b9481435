// The refresher alone: a real SQLite store, a scripted service at the edge.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { createAlerts } from '../../../../server/domain/alerts.js';
import { loadConfig } from '../../../../server/config.js';
import { silentLogger } from '../../../../server/log.js';
import { createHub } from '../../../../server/domain/status/hub.js';
import { createRefresher } from '../../../../server/domain/status/refresher.js';
import { createSqliteStore } from '../../../../server/store/sqlite/store.js';
import { BillApiNetworkError } from '../../../../server/upstream/errors.js';
import type { Turn } from '../../../../server/upstream/budget.js';
import type { BillApi, CallOptions, StatusRecord } from '../../../../server/upstream/types.js';
import type { BillView } from '../../../../contract/bill-view.js';

const PENDING = { status: 1, statusName: 'Pending Payment', isFinal: false };
const PAID = { status: 2, statusName: 'Paid', isFinal: true };
const CANCELLED = { status: 4, statusName: 'Cancelled', isFinal: true };

/** The store's WAL syncs, which the test can hold back: a disk that is slow to flush. */
function slowDisk() {
  let held: (() => void)[] | null = null;
  return {
    sync: (file: FileHandle) => (held ? new Promise<void>((resolve) => held!.push(resolve)) : Promise.resolve())
      .then(() => file.datasync()),
    hold: () => void (held = []),
    release: () => {
      const waiting = held ?? [];
      held = null;
      for (const resolve of waiting) resolve();
    },
  };
}

async function setup(t: TestContext, disk = slowDisk()) {
  const dir = mkdtempSync(join(tmpdir(), 'bff-refresher-'));
  const store = createSqliteStore(join(dir, 'db.sqlite'), { syncWal: disk.sync });
  await store.migrate();
  t.after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let time = 1_000_000;
  const clock = { now: () => time, advance: (ms: number) => void (time += ms) };
  /** Each requery waits for the test to answer it. */
  const asked: { answer: (s: typeof PENDING) => void; fail: (e: Error) => void }[] = [];
  /** Cancels asked of the service; each fails while `cancelFailing`. */
  const cancels: string[] = [];
  const cancelFailing = { now: false };
  const upstream = {
    cancelBill: async (billId: string) => {
      cancels.push(billId);
      if (cancelFailing.now) throw new BillApiNetworkError('down', { operation: 'cancel', retryable: true });
    },
    requeryBill: (billId: string) => new Promise<StatusRecord>((resolve, reject) => {
      asked.push({
        answer: (s) => resolve({ billId, merchantReference: 'bc_1', requestReference: null, paymentReference: null,
          billAmount: '5', currency: 'USD', dateTime: clock.now(), ...s }),
        fail: reject,
      });
    }),
  } as unknown as BillApi;
  const config = loadConfig({ REFRESH_WINDOW_MS: '2000', BILL_EXPIRY_GRACE_MS: '60000' });
  const hub = createHub();
  const published: BillView[] = [];
  hub.subscribe('B1', (v) => published.push(v));
  let finals = 0;
  const refresher = createRefresher({
    store, upstream, config, hub, alerts: createAlerts(silentLogger), channels: ['hook'], onBecameFinal: () => void finals++, now: clock.now, log: silentLogger,
  });
  await store.insertBill({ merchantReference: 'bc_1', orderId: null, idempotencyKey: null, amount: '5', orderAmount: null, orderCurrency: null, token: 't', hookToken: 'h', createdAt: clock.now() });
  await store.completeCreate('bc_1', { billId: 'B1', billUrl: 'u', billAmount: '5', requireGCAmount: null, currency: 'USD', merchantReference: 'bc_1', expiredOn: clock.now() + 900_000, expiresLocalAt: clock.now() + 900_000, clockDisagreed: false }, clock.now());
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { store, clock, asked, refresher, hub, published, finals: () => finals, settle, disk, cancels, cancelFailing };
}

test('watchers see a requeried payment once it is committed; its answer and notice wait for the disk', { timeout: 10_000 }, async (t) => {
  const { asked, refresher, hub, published, finals, settle, disk, store } = await setup(t);
  const news = refresher.news('B1');
  await settle();
  disk.hold();
  const told = new Promise<BillView>((resolve) => hub.subscribe('B1', resolve));
  asked[0]!.answer(PAID);
  // The watcher is told as soon as readers of the store see the payment...
  assert.equal((await told).outcome, 'paid');
  assert.equal((await store.getByBillId('B1'))?.outcome, 'paid');
  // ...while what answers the callback, and the merchant's notice, wait until it is on disk.
  assert.equal(await Promise.race([news.then(() => 'answered'), settle().then(() => 'waiting')]), 'waiting');
  assert.equal(finals(), 0);
  disk.release();
  const r = await news;
  assert.equal(r?.confirmed, true);
  assert.equal(r?.bill.outcome, 'paid');
  assert.equal(finals(), 1);
  assert.equal(published.length, 1, 'told once');
});

test('news during a requery in flight schedules exactly one follow-up, which sees the payment', async (t) => {
  const { asked, refresher, published, finals, settle } = await setup(t);
  const reads = Array.from({ length: 50 }, () => refresher.read('B1'));
  await settle();
  assert.equal(asked.length, 1);
  const news = [refresher.news('B1'), refresher.news('B1'), refresher.news('B1')];
  asked[0]!.answer(PENDING); // started before the payment
  assert.ok((await Promise.all(reads)).every((r) => r?.bill.outcome === 'pending'));
  await settle();
  assert.equal(asked.length, 2);
  asked[1]!.answer(PAID);
  const after = await Promise.all(news);
  assert.ok(after.every((r) => r?.confirmed && r.bill.outcome === 'paid'));
  assert.equal(asked.length, 2);
  assert.deepEqual(published.map((v) => v.outcome), ['pending', 'paid']);
  assert.equal(finals(), 1);
  // Final: never requeried again.
  await refresher.news('B1');
  await refresher.read('B1', 0);
  assert.equal(asked.length, 2);
});

test('a failed requery keeps the stored status and is not confirmed', async (t) => {
  const { asked, refresher, settle, store } = await setup(t);
  const r = refresher.news('B1');
  await settle();
  asked[0]!.fail(new Error('service down'));
  const result = await r;
  assert.equal(result?.confirmed, false);
  assert.equal((await store.getByBillId('B1'))!.status, null);
});

test('past expiredOn a pending bill keeps being requeried; after the grace the BFF asks the service to cancel and stores only its word', async (t) => {
  const { asked, refresher, settle, clock, store, finals, cancels, cancelFailing } = await setup(t);
  clock.advance(900_000 + 30_000); // past expiredOn, within the grace
  const within = refresher.read('B1');
  await settle();
  asked[0]!.answer(PENDING);
  assert.equal((await within)?.bill.outcome, 'pending');
  assert.deepEqual(cancels, []);

  clock.advance(31_000); // past expiredOn + grace; the service cannot be reached to cancel
  cancelFailing.now = true;
  const unreachable = refresher.read('B1');
  await settle();
  asked[1]!.answer(PENDING);
  const still = (await unreachable)!.bill;
  assert.equal(still.isFinal, false, 'never final by the BFF\'s own verdict');
  assert.equal(still.outcome, 'pending');
  assert.deepEqual(cancels, ['B1']);
  assert.equal(asked.length, 2, 'no second requery after a failed cancel');

  clock.advance(2_000);
  cancelFailing.now = false;
  const past = refresher.read('B1');
  await settle();
  asked[2]!.answer(PENDING);
  await settle();
  assert.deepEqual(cancels, ['B1', 'B1']);
  asked[3]!.answer(CANCELLED); // what the service says after the cancel
  const bill = (await past)!.bill;
  assert.equal(bill.outcome, 'cancelled');
  assert.equal(bill.isFinal, true);
  assert.equal(finals(), 1);
  assert.equal((await store.getByBillId('B1'))!.outcome, 'cancelled');
});

test('a refresh waits for its turn before it claims the bill: it holds no claim meanwhile, and a claim lost gives the turn back', async (t) => {
  const { store, clock, settle } = await setup(t);
  const config = loadConfig({ REFRESH_WINDOW_MS: '2000' });
  /** Turns the budget has yet to grant, in the order asked; what each call was sent on. */
  const turns: { grant: (turn: Turn) => void }[] = [];
  const sentOn: (Turn | undefined)[] = [];
  const released: string[] = [];
  const turnNamed = (name: string): Turn => ({ operation: 'requery', release: () => void released.push(name) });
  const upstream = {
    reserveTurn: () => new Promise<Turn>((grant) => turns.push({ grant })),
    requeryBill: async (billId: string, options?: CallOptions): Promise<StatusRecord> => {
      sentOn.push(options?.turn);
      return { billId, merchantReference: 'bc_1', requestReference: null, paymentReference: null, billAmount: '5', currency: 'USD', dateTime: clock.now(), ...PENDING };
    },
    cancelBill: async () => undefined,
  } as unknown as BillApi;
  const instance = () => createRefresher({
    store, upstream, config, hub: createHub(), alerts: createAlerts(silentLogger), channels: ['hook'], onBecameFinal: () => undefined, now: clock.now, log: silentLogger,
  });
  const streams = instance();
  const polls = instance();
  clock.advance(5_000);

  // A stream opened: its refresh waits for its turn, and has claimed nothing.
  streams.refreshBehind((await store.getByBillId('B1'))!, 'stream');
  await settle();
  assert.equal(turns.length, 1);
  // So another instance's poll of the bill requeries it meanwhile, on its own turn.
  const polled = polls.read('B1');
  await settle();
  assert.equal(turns.length, 2);
  const pollTurn = turnNamed('poll');
  turns[1]!.grant(pollTurn);
  assert.equal((await polled)?.confirmed, true);
  assert.deepEqual(sentOn, [pollTurn], 'the poll was sent on the turn it waited for');

  // The stream's turn comes: the bill was checked just now, so its claim is lost and its turn
  // goes back to the budget unused; nothing more is sent.
  turns[0]!.grant(turnNamed('stream'));
  await streams.idle();
  assert.deepEqual(sentOn, [pollTurn]);
  assert.deepEqual(released, ['poll', 'stream'], 'each turn released once its call is done (a used one gives nothing back)');
});
