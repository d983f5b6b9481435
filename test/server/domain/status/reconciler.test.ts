// The reconciler under a flash sale (issue 44): thousands of pending bills, a service that allows
// 300 requeries a second (refusing beyond it, counted in whole seconds of its clock, as the
// sandbox's rateLimit fault), BILL_API_MAX_RPS=300. Real parts but the edge: a SQLite store, the
// refresher, the upstream client and its budget; the service is a function at the HTTP edge that
// answers after 20 ms. Time is a fake clock whose timers run as the test moves it: no figure here
// is of wall-clock time.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { loadConfig } from '../../../../server/config.js';
import { createAlerts } from '../../../../server/domain/alerts.js';
import { serviceReference } from '../../../../server/domain/status/answer-check.js';
import { createHub } from '../../../../server/domain/status/hub.js';
import { createReconciler, type ReconcilerOptions } from '../../../../server/domain/status/reconciler.js';
import { createRefresher } from '../../../../server/domain/status/refresher.js';
import { silentLogger } from '../../../../server/log.js';
import { createMetrics } from '../../../../server/metrics/metrics.js';
import { createSqliteStore } from '../../../../server/store/sqlite/store.js';
import { createBudget } from '../../../../server/upstream/budget.js';
import { createBillApi } from '../../../../server/upstream/index.js';
import type { HttpClient, HttpResponse } from '../../../../server/upstream/types.js';
import { parseExposition } from '../../support/prometheus.js';

const T0 = 1_800_000_000_000;
const SERVICE_LIMIT = 300;
const LATENCY_MS = 20;

/** Lets promises, setImmediate chains (the store's group commits) and their follow-ups run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A clock whose timers run as it is advanced, a millisecond at a time, everything settling at each. */
function fakeTime(start: number) {
  let now = start;
  let timers: { at: number; run: () => void; id: number }[] = [];
  let next = 0;
  const time = {
    now: () => now,
    setTimer: (run: () => void, ms: number) => {
      const id = next++;
      timers.push({ at: now + Math.max(0, ms), run, id });
      return id;
    },
    clearTimer: (id: unknown) => {
      timers = timers.filter((timer) => timer.id !== id);
    },
    sleep: (ms: number) => new Promise<void>((resolve) => void time.setTimer(resolve, ms)),
    /** Moves the clock `ms` on; `each` runs after every millisecond. */
    async advance(ms: number, each?: () => void) {
      const end = now + ms;
      while (now < end) {
        now += 1;
        for (;;) {
          const due = timers.filter((timer) => timer.at <= now).sort((a, b) => a.at - b.at || a.id - b.id)[0];
          if (!due) break;
          timers = timers.filter((timer) => timer !== due);
          due.run();
          await settle();
        }
        await settle();
        each?.();
      }
    },
    /** Moves the clock on, `stepMs` at a time (`each` after every millisecond), until `promise` settles; its value. */
    async until<T>(promise: Promise<T>, stepMs: number, each?: () => void): Promise<T> {
      let settled = false;
      void promise.then(() => void (settled = true), () => void (settled = true));
      while (!settled) await time.advance(stepMs, each);
      return promise;
    },
  };
  return time;
}

interface Arrival {
  billId: string;
  at: number;
}

const answer = (status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers: { get: (name) => headers[name.toLowerCase()] ?? null },
  text: async () => JSON.stringify(body),
});

async function setup(t: TestContext, { bills, intervalMs, reconciler, apiMaxRps = SERVICE_LIMIT }: {
  bills: number; intervalMs: number; reconciler?: Partial<ReconcilerOptions>; apiMaxRps?: number | null;
}) {
  const time = fakeTime(T0);
  const store = createSqliteStore(':memory:');
  await store.migrate();
  t.after(() => store.close());
  // Pending bills made over the last minutes, none checked yet; their expiries in another order than their creation.
  const expiries = new Map<string, number>();
  for (let i = 0; i < bills; i++) {
    const merchantReference = `bc_${i}`;
    const billId = `B${i}`;
    const createdAt = T0 - 600_000 + i; // as createdAt() below
    const expiresLocalAt = T0 + 300_000 + ((i * 7_919) % bills) * 100;
    expiries.set(billId, expiresLocalAt);
    await store.insertBill({
      merchantReference, orderId: null, idempotencyKey: null, amount: '10.50', orderAmount: null, orderCurrency: null,
      token: `t${i}`, hookToken: `h${i}`, createdAt,
    });
    await store.completeCreate(merchantReference, {
      billId, billUrl: `https://pay.example/${billId}`, billAmount: '10.50', requireGCAmount: null, currency: 'USD', merchantReference,
      expiredOn: expiresLocalAt, expiresLocalAt, clockDisagreed: false,
    }, createdAt);
  }

  // The service: 300 requeries a second in whole seconds of its clock, beyond it 429; each answer after 20 ms.
  const arrivals: Arrival[] = [];
  const perSecond = new Map<number, number>();
  let refused = 0;
  const http: HttpClient = async (url) => {
    const billId = new URL(url).searchParams.get('billId')!;
    const at = time.now();
    const second = Math.floor(at / 1000);
    const counted = (perSecond.get(second) ?? 0) + 1;
    perSecond.set(second, counted);
    if (counted > SERVICE_LIMIT) {
      refused++;
      return answer(429, { code: 1006, message: 'rate limit exceeded', data: null }, { 'retry-after': '1' });
    }
    arrivals.push({ billId, at });
    await time.sleep(LATENCY_MS);
    const i = Number(billId.slice(1));
    return answer(200, {
      code: 0, message: 'OK', data: {
        billId, merchantReference: serviceReference(`bc_${i}`), requestReference: null, paymentReference: null, billAmount: '10.50',
        currency: 'USD', status: 1, statusName: 'Pending Payment', isFinal: false, dateTime: time.now(),
      },
    });
  };
  const config = loadConfig({
    BILL_API_BASE_URL: 'https://service.test', RECONCILE_INTERVAL_MS: String(intervalMs), ...(apiMaxRps === null ? {} : { BILL_API_MAX_RPS: String(apiMaxRps) }),
  });
  const budget = createBudget({ maxRps: config.upstream.maxRps, now: time.now, setTimer: time.setTimer, clearTimer: time.clearTimer });
  // Requests granted a turn, by priority, in order: what is in flight when news arrives.
  const granted: string[] = [];
  budget.observe({ granted: (_operation, priority) => void granted.push(priority), throttled: () => undefined });
  const upstream = createBillApi(config.upstream, {
    signer: () => ({ Authorization: 'Bearer test' }), pageBase: 1, http, budget, now: time.now, sleep: (ms) => time.sleep(ms),
  });
  const refresher = createRefresher({
    store, upstream, config, hub: createHub(), alerts: createAlerts(silentLogger), channels: ['hook'], onBecameFinal: () => undefined,
    now: time.now, log: silentLogger, leaseMs: 10_000,
  });
  const reconcilerInstance = createReconciler({
    store, refresher, settle: async () => undefined, intervalMs, creatingAgeMs: 60_000, now: time.now, log: silentLogger,
    budget, maxRps: config.reconcileMaxRps, limitKnown: config.upstream.maxRps !== null, timer: time, ...reconciler,
  });
  t.after(() => reconcilerInstance.stop());
  const metrics = createMetrics({ store, sseConnections: () => 0, now: time.now, budget, reconcileLag: () => reconcilerInstance.lag() });
  const gauge = async (name: string) => parseExposition((await metrics.scrape()).text).value(`bill_checkout_${name}`);
  /** The most urgent first: expiry, then (all never checked) creation. */
  const byUrgency = [...expiries.keys()].sort((a, b) => expiries.get(a)! - expiries.get(b)! || Number(a.slice(1)) - Number(b.slice(1)));
  const createdAt = (billId: string) => T0 - 600_000 + Number(billId.slice(1));
  return { time, store, budget, granted, createdAt, upstream, arrivals, refused: () => refused, refresher, reconciler: reconcilerInstance, gauge, byUrgency, perSecond };
}

/** The most requests that arrived within any `windowMs` (sliding), of those given. */
function busiest(arrivals: Arrival[], windowMs: number): number {
  let most = 0;
  let from = 0;
  for (let i = 0; i < arrivals.length; i++) {
    while (arrivals[i]!.at - arrivals[from]!.at >= windowMs) from++;
    most = Math.max(most, i - from + 1);
  }
  return most;
}

test('2,000 due bills that the budget cannot cover in one interval: paced within half the limit, the most urgent first, news overtakes it, and the backlog is told', { timeout: 300_000 }, async (t) => {
  // 2,000 bills in a 5 s interval need 400 requeries a second; the reconciler's share of 300 is 150.
  const h = await setup(t, { bills: 2_000, intervalMs: 5_000 });
  assert.equal(await h.gauge('reconcile_backlog_bills'), 0, 'before the first pass, nothing is known to be behind');
  let mostQueued = 0;
  const watchQueue = () => void (mostQueued = Math.max(mostQueued, h.budget.state().waiting.background));
  const pass = h.reconciler.runOnce();

  // Mid-pass: a callback's news for the least urgent bill, which the pass would reach last.
  await h.time.advance(2_000, watchQueue);
  const late = h.byUrgency.at(-1)!;
  const grantedBeforeNews = h.granted.length;
  assert.ok(h.granted.every((priority) => priority === 'background'));
  const news = h.refresher.news(late, { reason: 'callback' });
  await settle(); // the news reaches the budget before the clock moves on
  await h.time.until(news, 1, watchQueue);
  const newsAt = h.arrivals.findIndex((a) => a.billId === late);
  assert.ok(newsAt >= 0, "the callback's requery reached the service");
  assert.ok(newsAt <= grantedBeforeNews,
    `the callback's requery went before every reconcile request not yet granted when it came (${newsAt} before it, ${grantedBeforeNews} granted)`);
  assert.equal(h.granted[grantedBeforeNews], 'news', 'the very next turn of the budget was the news');

  // The pass ends at its deadline, an interval after it began.
  const passResult = await h.time.until(pass, 10, watchQueue);

  // (a) Never above its share: 150 a second (its pace has no burst), the service refused nothing.
  const reconciled = h.arrivals.filter((a) => a.billId !== late);
  assert.ok(busiest(reconciled, 1_000) <= 150 + 1, `at most 150 reconcile requeries in any second, saw ${busiest(reconciled, 1_000)}`);
  assert.equal(h.refused(), 0, 'the service refused none');
  for (const [second, count] of h.perSecond) assert.ok(count <= SERVICE_LIMIT, `second ${second}: ${count}`);
  assert.ok(mostQueued <= 2, `at most 2 reconcile requeries waited in the budget at once, saw ${mostQueued}`);
  // It used its share: about 150 a second over the 5 s (the callback's bill aside).
  assert.ok(reconciled.length >= 700 && reconciled.length <= 752, `reconcile requeries in the pass: ${reconciled.length}`);

  // (c) The most urgent first: exactly the bills closest to their expiry, in that order.
  assert.deepEqual(reconciled.map((a) => a.billId), h.byUrgency.slice(0, reconciled.length));

  // (d) Behind, and it says so: the due bills it could not reach, and how much longer than the interval they wait.
  const reached = new Set([late, ...reconciled.map((a) => a.billId)]);
  const unreached = h.byUrgency.filter((id) => !reached.has(id));
  const backlog = unreached.length;
  assert.equal(backlog, 2_000 - reconciled.length - 1);
  assert.equal(passResult.backlog, backlog);
  // Never checked: their last word is their creation, ten minutes ago.
  const oldest = Math.min(...unreached.map((id) => h.createdAt(id)));
  const lagMs = h.time.now() - oldest - 5_000;
  assert.deepEqual(h.reconciler.lag(), { backlogBills: backlog, lagMs });
  assert.ok(lagMs > 590_000);
  assert.equal(await h.gauge('reconcile_backlog_bills'), backlog);
  assert.equal(await h.gauge('reconcile_lag_seconds'), lagMs / 1000);

  // The next pass starts from the most urgent of what is left (the bills just checked are not due).
  const before = h.arrivals.length;
  const next = h.reconciler.runOnce();
  await h.time.advance(1_000);
  assert.deepEqual(h.arrivals.slice(before, before + 50).map((a) => a.billId), h.byUrgency.filter((id) => id !== late).slice(reconciled.length, reconciled.length + 50));
  await h.time.until(next, 10);
});

test('due bills the budget can cover: the passes of start() spread them over the interval, and nothing is behind', { timeout: 300_000 }, async (t) => {
  // 600 bills in a 10 s interval: 75 a second (aiming to end within 8 s), under the ceiling of 150.
  const h = await setup(t, { bills: 600, intervalMs: 10_000 });
  h.reconciler.start();
  await h.time.advance(10_000);
  assert.equal(h.arrivals.length, 600, 'every due bill requeried within the interval');
  assert.ok(busiest(h.arrivals, 1_000) <= 76, `no faster than the due bills need (75 a second), saw ${busiest(h.arrivals, 1_000)}`);
  assert.equal(h.refused(), 0);
  assert.deepEqual(h.arrivals.map((a) => a.billId), h.byUrgency);
  assert.deepEqual(h.reconciler.lag(), { backlogBills: 0, lagMs: 0 });
  assert.equal(await h.gauge('reconcile_backlog_bills'), 0);
  assert.equal(await h.gauge('reconcile_lag_seconds'), 0);
  // The next pass, an interval after the first began: the bills were checked within the interval, none is due.
  await h.time.advance(1_000);
  assert.equal(h.arrivals.length, 600);
  await h.reconciler.stop();
});

test('RECONCILE_MAX_RPS sets its ceiling within the budget', { timeout: 300_000 }, async (t) => {
  const h = await setup(t, { bills: 300, intervalMs: 5_000, reconciler: { maxRps: 40 } });
  const pass = h.reconciler.runOnce();
  await h.time.until(pass, 10);
  assert.ok(busiest(h.arrivals, 1_000) <= 41, `at most 40 a second, saw ${busiest(h.arrivals, 1_000)}`);
  assert.ok(h.arrivals.length >= 195 && h.arrivals.length <= 201, `about 200 in the 5 s pass, saw ${h.arrivals.length}`);
  assert.equal((await pass).backlog, 300 - h.arrivals.length);
});

test('a budget already full (polls at 200 a second): the reconciler takes what is left, keeps 2 in the queue, and news still goes first', { timeout: 300_000 }, async (t) => {
  // BILL_API_MAX_RPS=270 under the service's 300 (its burst of a tenth of a second stays within any whole second).
  const h = await setup(t, { bills: 1_000, intervalMs: 5_000, apiMaxRps: 270 });
  // Widgets' refreshes of other bills: one every 5 ms, each waiting its turn as `watch`.
  let polls = 0;
  const poll = () => {
    void h.upstream.requeryBill(`W${polls++ % 1_000}`, { priority: 'watch' }).catch(() => undefined);
    h.time.setTimer(poll, 5);
  };
  poll();
  let mostQueued = 0;
  const watchQueue = () => void (mostQueued = Math.max(mostQueued, h.budget.state().waiting.background));
  const pass = h.reconciler.runOnce();
  await h.time.advance(2_000, watchQueue);
  const late = h.byUrgency.at(-1)!;
  const grantedBeforeNews = h.granted.length;
  const waitingThen = h.budget.state().waiting;
  const news = h.refresher.news(late, { reason: 'callback' });
  await settle();
  await h.time.until(news, 1, watchQueue);
  assert.equal(h.granted[grantedBeforeNews], 'news', `the next turn was the news's, with ${waitingThen.background} reconcile and ${waitingThen.watch} poll requests waiting`);
  assert.ok(h.arrivals.findIndex((a) => a.billId === late) <= grantedBeforeNews);
  await h.time.until(pass, 10, watchQueue);
  assert.equal(h.refused(), 0, 'the service refused none');
  assert.ok(mostQueued <= 2, `at most 2 reconcile requeries waited in the budget at once, saw ${mostQueued}`);
  assert.ok(mostQueued >= 1 && waitingThen.background + waitingThen.watch >= 1, 'the budget was short: requests waited, and the news went before them');
  // The polls came first: the reconciler had about 270 − 200 = 70 a second, not its ceiling of 135.
  const reconciled = h.arrivals.filter((a) => a.billId.startsWith('B') && a.billId !== late);
  assert.ok(reconciled.length < 5 * 100, `reconcile requeries in the 5 s pass: ${reconciled.length}`);
  assert.ok(reconciled.length > 5 * 40, `reconcile requeries in the 5 s pass: ${reconciled.length}`);
  assert.deepEqual(reconciled.map((a) => a.billId), h.byUrgency.slice(0, reconciled.length));
  assert.equal((await pass).backlog, 1_000 - reconciled.length - 1);
});

test('without BILL_API_MAX_RPS: the reconciler goes as the budget grants, and the 2 it keeps waiting let the budget learn a higher rate', { timeout: 300_000 }, async (t) => {
  const h = await setup(t, { bills: 1_000, intervalMs: 5_000, apiMaxRps: null });
  const startRps = h.budget.state().rps;
  let mostQueued = 0;
  const pass = h.reconciler.runOnce();
  await h.time.until(pass, 10, () => void (mostQueued = Math.max(mostQueued, h.budget.state().waiting.background)));
  assert.ok(mostQueued <= 2, `at most 2 waiting, saw ${mostQueued}`);
  assert.ok(h.budget.state().rps > 4 * startRps, `the budget learned from its demand: ${startRps} → ${h.budget.state().rps} a second`);
  assert.equal(h.refused(), 0);
  assert.deepEqual(h.arrivals.map((a) => a.billId), h.byUrgency.slice(0, h.arrivals.length));
});
