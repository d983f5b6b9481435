// The budget toward the service: its pace, its order (news first), the service's pauses, and the
// rate it learns from refusals. Time is a fake clock whose timers run as it is advanced.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BudgetExhaustedError, createBudget, Urgency, type BudgetOptions, type Priority, type PriorityOf } from '../../../server/upstream/budget.js';
import type { BillOperation } from '../../../server/upstream/errors.js';

function fakeTime() {
  let now = 1_000_000;
  let timers: { at: number; run: () => void; id: number }[] = [];
  let next = 0;
  return {
    now: () => now,
    setTimer: (run: () => void, ms: number) => {
      const id = next++;
      timers.push({ at: now + ms, run, id });
      return id;
    },
    clearTimer: (id: unknown) => {
      timers = timers.filter((t) => t.id !== id);
    },
    /** Moves the clock to `now + ms`, running each timer at its time, then lets the promises settle. */
    async advance(ms: number) {
      const end = now + ms;
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const due = timers[0];
        if (!due || due.at > end) break;
        timers.shift();
        now = Math.max(now, due.at);
        due.run();
        await settle();
      }
      now = end;
      await settle();
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

function budgetWith(options: Partial<BudgetOptions> = {}) {
  const time = fakeTime();
  const budget = createBudget({ maxRps: null, now: time.now, setTimer: time.setTimer, clearTimer: time.clearTimer, ...options });
  const granted: string[] = [];
  const take = (name: string, operation: BillOperation, priority: PriorityOf, maxWaitMs?: number) =>
    budget.take(operation, priority, maxWaitMs === undefined ? {} : { maxWaitMs }).then(() => {
      granted.push(name);
    });
  return { time, budget, granted, take };
}

test('BILL_API_MAX_RPS: requests wait for their turn and go at the set pace, whatever the demand', async () => {
  const { time, granted, take } = budgetWith({ maxRps: 10 });
  for (let i = 0; i < 100; i++) void take(`r${i}`, 'requery', 'watch');
  await settle();
  // A burst of a tenth of a second's worth, then one every 100 ms.
  assert.equal(granted.length, 1);
  const perSecond: number[] = [];
  for (let s = 0; s < 5; s++) {
    const before = granted.length;
    await time.advance(1000);
    perSecond.push(granted.length - before);
  }
  assert.deepEqual(perSecond, [10, 10, 10, 10, 10]);
});

test('news first: waiting requests are granted by priority, then in arrival order', async () => {
  const { time, granted, take } = budgetWith({ maxRps: 1 });
  void take('first', 'requery', 'watch');
  await settle();
  void take('reconcile', 'requery', 'background');
  void take('poll-1', 'requery', 'watch');
  void take('create', 'create', 'customer');
  void take('poll-2', 'requery', 'watch');
  void take('callback', 'requery', 'news');
  await time.advance(5000);
  assert.deepEqual(granted, ['first', 'callback', 'create', 'poll-1', 'poll-2', 'reconcile']);
});

test('a waiting request whose priority rises (news about its bill) goes before those that were more urgent', async () => {
  const { time, granted, take } = budgetWith({ maxRps: 1 });
  void take('first', 'requery', 'watch');
  await settle();
  let poll: Priority = 'watch';
  void take('create', 'create', 'customer');
  void take('poll', 'requery', () => poll);
  poll = 'news';
  await time.advance(2000);
  assert.deepEqual(granted, ['first', 'poll', 'create']);
});

test('an Urgency raised while its request waits (a callback for the bill a poll asks about) moves it up at once', async () => {
  const { time, budget, granted, take } = budgetWith({ maxRps: 1 });
  void take('first', 'requery', 'watch');
  await settle();
  const poll = new Urgency('watch');
  void take('create', 'create', 'customer');
  void take('poll', 'requery', poll);
  assert.deepEqual(budget.state().waiting, { news: 0, customer: 1, watch: 1, background: 0 });
  poll.raise('news');
  assert.deepEqual(budget.state().waiting, { news: 1, customer: 1, watch: 0, background: 0 });
  await time.advance(2000);
  assert.deepEqual(granted, ['first', 'poll', 'create']);
});

test("a rising priority is known by its shape: another copy of the module's Urgency (a second bundle) moves up too", async () => {
  const { time, granted, take } = budgetWith({ maxRps: 1 });
  void take('first', 'requery', 'watch');
  await settle();
  let listeners: (() => void)[] = [];
  const foreign = { value: 'watch' as Priority, onRise: (listener: () => void) => { listeners.push(listener); return () => { listeners = listeners.filter((l) => l !== listener); }; } };
  void take('create', 'create', 'customer');
  void take('poll', 'requery', foreign);
  foreign.value = 'news';
  for (const listener of listeners) listener();
  await time.advance(2000);
  assert.deepEqual(granted, ['first', 'poll', 'create']);
  assert.equal(listeners.length, 0, 'the budget stops listening once the request is granted');
});

test("a flash sale's twenty thousand waiting refreshes: news still goes next, and the waiting counts stay right", async () => {
  const { time, budget, granted, take } = budgetWith({ maxRps: 300 });
  const polls = Array.from({ length: 20_000 }, () => new Urgency('watch'));
  polls.forEach((urgency, i) => void take(`poll-${i}`, 'requery', urgency));
  for (let i = 0; i < 500; i++) void take(`reconcile-${i}`, 'requery', 'background');
  await settle();
  const before = granted.length;
  void take('callback', 'requery', 'news');
  polls[15_000]!.raise('news');
  await time.advance(10);
  assert.deepEqual(granted.slice(before, before + 2), ['poll-15000', 'callback'], 'the raised poll came first, then the callback');
  await time.advance(1000);
  const state = budget.state();
  assert.equal(state.waiting.news, 0);
  assert.equal(state.waiting.watch + state.waiting.background + granted.length, 20_501, 'each request granted or still waiting, once');
  assert.ok(granted.slice(before).every((name) => !name.startsWith('reconcile')), 'no background turn while refreshes wait');
});

test("a 429's Retry-After pauses that operation for everyone; other operations go on meanwhile", async () => {
  const { time, budget, granted, take } = budgetWith({ maxRps: 100 });
  budget.answered('requery', 429, 3000);
  assert.equal(budget.state().paused.requery, time.now() + 3000);
  void take('requery', 'requery', 'news');
  void take('create', 'create', 'customer');
  await time.advance(100);
  assert.deepEqual(granted, ['create']);
  await time.advance(2800);
  assert.deepEqual(granted, ['create']);
  await time.advance(200);
  assert.deepEqual(granted, ['create', 'requery']);
  // A 503 without Retry-After is a failure, not a request to slow down; a 500 neither.
  budget.answered('list', 503, null);
  budget.answered('list', 500, 5000);
  assert.equal(budget.state().paused.list, undefined);
});

test('a Retry-After longer than maxPauseMs is capped: the service does not stop us for a day', async () => {
  const { time, budget } = budgetWith({ maxPauseMs: 60_000 });
  budget.answered('requery', 429, 86_400_000);
  assert.equal(budget.state().paused.requery, time.now() + 60_000);
});

test('a caller that cannot wait as long as the pause is refused at once, with when to try again', async () => {
  const { budget } = budgetWith();
  budget.answered('create', 429, 4000);
  await assert.rejects(budget.take('create', 'customer', { maxWaitMs: 1000 }), (error: unknown) => {
    assert.ok(error instanceof BudgetExhaustedError);
    assert.equal(error.retryAfterMs, 4000);
    assert.match(error.message, /try again in 4 s/);
    return true;
  });
});

test('a waiter that reaches its maxWaitMs in the queue is refused; an aborted one leaves the queue', async () => {
  const { time, budget, granted, take } = budgetWith({ maxRps: 1 });
  void take('first', 'requery', 'watch');
  await settle();
  const late = budget.take('requery', 'customer', { maxWaitMs: 300 });
  const controller = new AbortController();
  const aborted = budget.take('requery', 'watch', { signal: controller.signal });
  assert.deepEqual(budget.state().waiting, { news: 0, customer: 1, watch: 1, background: 0 });
  controller.abort(new Error('gone'));
  await assert.rejects(aborted, /gone/);
  const lateResult = late.then(() => 'granted', (error: unknown) => error);
  await time.advance(400);
  assert.ok((await lateResult) instanceof BudgetExhaustedError);
  assert.deepEqual(budget.state().waiting, { news: 0, customer: 0, watch: 0, background: 0 });
  assert.deepEqual(granted, ['first']);
});

test('adaptive: a modest start, growing by half each second requests wait, until the first refusal; then half the rate really sent, climbing back a step at a time', async () => {
  const { time, budget, granted, take } = budgetWith({ maxRps: null, startRps: 8 });
  for (let i = 0; i < 200; i++) void take(`r${i}`, 'requery', 'watch');
  await settle();
  // Half a second's worth goes at once; the rest waits for its turn.
  assert.equal(granted.length, 4);
  assert.equal(budget.state().rps, 8);
  const sent = [granted.length];
  const slow = [budget.state().rps];
  for (let s = 0; s < 3; s++) {
    await time.advance(1000);
    sent.push(granted.length);
    slow.push(budget.state().rps);
  }
  assert.deepEqual(slow, [8, 12, 18, 27], 'half again each second while requests waited');
  // A refusal: half of what was really sent in the last second.
  const lastSecond = sent.at(-1)! - sent.at(-2)!;
  budget.answered('requery', 429, 1000);
  // (What the budget counts as the last second may start a grant later than this test's second.)
  assert.ok(Math.abs(budget.state().rps - lastSecond * 0.5) <= 1, `${budget.state().rps} from ${lastSecond} sent`);
  const after = budget.state().rps;
  budget.answered('requery', 429, 1000);
  assert.equal(budget.state().rps, after, "the refusals of requests already sent are the same event");
  // With requests waiting and no refusal for a second, the rate rises a step at a time: no more slow start.
  const rates = [after];
  await time.advance(1000);
  for (let s = 0; s < 3; s++) {
    await time.advance(1000);
    rates.push(budget.state().rps);
  }
  assert.ok(rates.every((rate, i) => i === 0 || rate > rates[i - 1]!), `rising: ${rates.join(', ')}`);
  assert.ok(rates.at(-1)! <= after + 4, `a step at a time: ${rates.join(', ')}`);
  // Another refusal halves it again.
  budget.answered('list', 429, 1000);
  assert.ok(budget.state().rps <= rates.at(-1)! / 2 + 1);
});

test('adaptive, without waiters the rate does not climb: a quiet spell earns no burst', async () => {
  const { time, budget, take } = budgetWith({ maxRps: null, startRps: 8 });
  for (let i = 0; i < 4; i++) void take(`r${i}`, 'requery', 'watch');
  await settle();
  await time.advance(10_000);
  assert.equal(budget.state().rps, 8, 'nothing waited: no growth');
  for (let i = 0; i < 12; i++) void take(`w${i}`, 'requery', 'watch');
  await time.advance(2000);
  assert.deepEqual(budget.state().waiting, { news: 0, customer: 0, watch: 0, background: 0 });
  budget.answered('requery', 429, 1000);
  const learned = budget.state().rps;
  assert.ok(learned < 8, `learned ${learned}`);
  await time.advance(10_000);
  assert.equal(budget.state().rps, learned);
});

test("an operation's own documented limit holds it alone: other operations go past it", async () => {
  const { time, granted, take } = budgetWith({ maxRps: 100, maxRpsByOperation: { requery: 2, list: 1 } });
  for (let i = 0; i < 10; i++) void take(`requery-${i}`, 'requery', 'news');
  void take('create', 'create', 'customer');
  // findByMerchantReference is the service's list: it counts against list's limit.
  void take('list', 'list', 'customer');
  void take('find', 'findByMerchantReference', 'customer');
  await settle();
  assert.equal(granted.includes('find'), false, 'find waits for list\'s next turn');
  await time.advance(1000);
  const requeries = granted.filter((name) => name.startsWith('requery'));
  assert.ok(requeries.length >= 2 && requeries.length <= 3, `requeries in the first second: ${requeries.length}`);
  assert.ok(granted.includes('create'), 'create went past the waiting requeries');
  assert.ok(granted.includes('list'));
  assert.ok(granted.includes('find'), 'a second later, its turn');
  // A refusal of a find pauses the list endpoint.
  const { budget } = budgetWith();
  budget.answered('findByMerchantReference', 429, 1000);
  assert.ok((budget.state().paused.list ?? 0) > 0);
});

test('BILL_API_MAX_RPS and BILL_API_MAX_RPS_BY_OPERATION are checked like the other settings', async () => {
  const { loadConfig, ConfigError } = await import('../../../server/config.js');
  const base = { PORT: '8787' };
  assert.deepEqual(loadConfig({ ...base, BILL_API_MAX_RPS_BY_OPERATION: 'requery=10, create=0.5' }).upstream.maxRpsByOperation, { requery: 10, create: 0.5 });
  assert.equal(loadConfig({ ...base, BILL_API_MAX_RPS: '2.5' }).upstream.maxRps, 2.5);
  assert.equal(loadConfig(base).upstream.maxRps, null);
  for (const bad of ['requery', 'poll=3', 'requery=0', 'requery=-1', 'requery=ten']) {
    assert.throws(() => loadConfig({ ...base, BILL_API_MAX_RPS_BY_OPERATION: bad }), ConfigError, bad);
  }
  for (const bad of ['0', '-5', 'fast']) assert.throws(() => loadConfig({ ...base, BILL_API_MAX_RPS: bad }), ConfigError, bad);
});

test('setMaxRps (BILL_API_SHARED_MAX_RPS): the granted rate follows the new limit at once, with a burst of the new rate', async () => {
  const { time, budget, granted, take } = budgetWith({ maxRps: 50 });
  for (let i = 0; i < 1000; i++) void take(`r${i}`, 'requery', 'watch');
  await settle();
  const perSecond = async () => {
    const before = granted.length;
    await time.advance(1000);
    return granted.length - before;
  };
  await perSecond();
  assert.equal(await perSecond(), 50);
  // The other instance died: this one takes the whole limit; its waiters are granted at once at the new pace.
  budget.setMaxRps(100);
  assert.equal(budget.state().rps, 100);
  const near = (n: number, rate: number) => assert.ok(Math.abs(n - rate) <= 1, `${n} granted in a second at ${rate}/s`);
  near(await perSecond(), 100);
  near(await perSecond(), 100);
  // Another instance joined: half again; no tokens earned at the higher rate are spent as a burst.
  budget.setMaxRps(50);
  assert.equal(budget.state().rps, 50);
  const first = await perSecond();
  assert.ok(first <= 51, `${first} granted in the first second at 50/s`);
  near(await perSecond(), 50);
});

test('setMaxRps keeps a rate lowered by refusals as far below the new limit; a learning budget has no limit to set', async () => {
  const { time, budget, take } = budgetWith({ maxRps: 100 });
  for (let i = 0; i < 300; i++) void take(`r${i}`, 'requery', 'watch');
  await time.advance(1000);
  budget.answered('requery', 429, 1);
  const lowered = budget.state().rps;
  assert.ok(lowered < 100, `lowered to ${lowered}`);
  budget.setMaxRps(50);
  assert.ok(Math.abs(budget.state().rps - lowered / 2) < 1e-9, `${budget.state().rps} is half of ${lowered}`);
  assert.throws(() => budgetWith({ maxRps: null }).budget.setMaxRps(10), /no set limit/);
  assert.throws(() => budget.setMaxRps(0), RangeError);
});

test('BILL_API_SHARED_MAX_RPS: PostgreSQL only, not with BILL_API_MAX_RPS; the client starts at half of it', async () => {
  const { loadConfig, ConfigError } = await import('../../../server/config.js');
  const { startingShare } = await import('../../../server/upstream/client.js');
  const pg = { PORT: '8787', DATABASE_URL: 'postgres://db.example/checkout' };
  const config = loadConfig({ ...pg, BILL_API_SHARED_MAX_RPS: '300' });
  assert.equal(config.upstream.sharedMaxRps, 300);
  assert.equal(config.upstream.maxRps, null);
  assert.equal(startingShare(config.upstream.sharedMaxRps ?? null), 150);
  assert.equal(loadConfig(pg).upstream.sharedMaxRps, null);
  assert.throws(() => loadConfig({ ...pg, BILL_API_SHARED_MAX_RPS: '300', BILL_API_MAX_RPS: '150' }),
    (error: unknown) => error instanceof ConfigError && /BILL_API_SHARED_MAX_RPS and BILL_API_MAX_RPS are both set/.test(error.message));
  assert.throws(() => loadConfig({ PORT: '8787', BILL_API_SHARED_MAX_RPS: '300' }),
    (error: unknown) => error instanceof ConfigError && /with SQLite there is one process; set BILL_API_MAX_RPS/.test(error.message));
  assert.throws(() => loadConfig({ ...pg, BILL_API_SHARED_MAX_RPS: '0' }), ConfigError);
});

test('learned limit: 60 bills polled once a second toward an unknown limit of 10 requeries/s, 15 s: at most 10 % refused, news first', async () => {
  const { time, budget } = budgetWith({ maxRps: null });
  const LIMIT = 10;
  const WINDOW_MS = 2000;
  // The service counts every requery it receives in fixed one-second windows, as the sandbox's rateLimit does.
  let second = -1;
  let inSecond = 0;
  let attempts = 0;
  let refused = 0;
  // Counted as it arrives; its answer (a 429 beyond the limit) comes back 80 ms later, while others go out.
  const send = () => new Promise<boolean>((resolve) => {
    attempts++;
    const s = Math.floor(time.now() / 1000);
    if (s !== second) [second, inSecond] = [s, 0];
    const ok = ++inSecond <= LIMIT;
    time.setTimer(() => {
      if (!ok) {
        refused++;
        budget.answered('requery', 429, 1000);
      }
      resolve(ok);
    }, 80);
  });
  const checkedAt = new Array<number>(60).fill(-Infinity);
  const inFlight = new Set<number>();
  // A poll of a bill older than the refresh window starts one requery behind it (refreshBehind).
  const poll = (bill: number) => {
    if (inFlight.has(bill) || time.now() - checkedAt[bill]! < WINDOW_MS) return;
    inFlight.add(bill);
    void budget.take('requery', 'watch', { maxWaitMs: 60_000 }).then(send).then((ok) => {
      if (ok) checkedAt[bill] = time.now();
      inFlight.delete(bill);
    }, () => inFlight.delete(bill));
  };
  let paidShownAfter = Infinity;
  const start = time.now();
  for (let ms = 0; ms < 15_000; ms += 100) {
    // Every widget's first poll at once (a page of bills opened together), then each at its own phase.
    for (let bill = 0; bill < 60; bill++) if (ms === 0 || bill % 10 === (ms / 100) % 10) poll(bill);
    if (ms === 7_000) {
      // A callback's requery: news, before every waiting poll.
      const paidAt = time.now();
      void budget.take('requery', 'news').then(send).then((ok) => {
        if (ok) paidShownAfter = time.now() - paidAt;
      });
    }
    await time.advance(100);
  }
  await time.advance(1000);
  const share = refused / attempts;
  console.log(`# budget.learned attempts ${attempts} refused ${refused} share ${share.toFixed(3)} rate_end ${budget.state().rps.toFixed(1)} paid_shown_ms ${paidShownAfter} over ${(time.now() - start) / 1000} s`);
  assert.ok(share <= 0.1, `${refused} of ${attempts} refused`);
  assert.ok(paidShownAfter <= 3000, `news waited ${paidShownAfter} ms`);
  assert.ok(attempts >= 90, `the rate was learned, not given up: ${attempts} attempts`);
});

test('a turn reserved ahead: the call it is handed to goes once on it; one given back goes to the next waiting', async () => {
  const { time, budget, granted, take } = budgetWith({ maxRps: 10 });
  // The burst (one) is taken: the reservation waits its turn like any request, by its priority.
  await take('first', 'requery', 'customer');
  const reserving = budget.reserve('requery', 'watch');
  void take('behind', 'requery', 'background');
  await time.advance(100);
  const turn = await reserving;
  assert.deepEqual(granted, ['first'], 'the background request still waits behind the reserved one');
  // Used once, by a call of the same endpoint; not by another endpoint, nor a second time.
  assert.equal(budget.redeem(turn, 'cancel'), false);
  assert.equal(budget.redeem(turn, 'requery'), true);
  assert.equal(budget.redeem(turn, 'requery'), false);
  turn.release(); // used: nothing to give back
  assert.deepEqual(granted, ['first']);

  // A reserved turn not used (its claim lost) is given back: the next waiting request goes at once.
  await time.advance(100);
  assert.deepEqual(granted, ['first', 'behind']);
  const unused = budget.reserve('requery', 'watch');
  void take('later', 'requery', 'background');
  await time.advance(100);
  const back = await unused;
  assert.deepEqual(granted, ['first', 'behind']);
  back.release();
  await settle();
  assert.deepEqual(granted, ['first', 'behind', 'later'], 'granted with the token given back, before its own would come');
  back.release();
  assert.equal(budget.redeem(back, 'requery'), false, 'a turn given back is no turn');

  // A turn of another budget, or a look-alike, is none of this one's.
  const other = budgetWith({ maxRps: 10 }).budget;
  const foreign = await other.reserve('requery', 'watch');
  assert.equal(budget.redeem(foreign, 'requery'), false);
  assert.equal(budget.redeem({ operation: 'requery', release() {} }, 'requery'), false);
});

test('a reservation waits like a take: refused past its longest wait, and raised by its Urgency', async () => {
  const { time, budget, granted, take } = budgetWith({ maxRps: 1 });
  await take('burst', 'requery', 'customer');
  for (let i = 0; i < 3; i++) void take(`w${i}`, 'requery', 'watch');
  const urgency = new Urgency('watch');
  let reserved = false;
  void budget.reserve('requery', urgency).then(() => {
    reserved = true;
  });
  const refused = assert.rejects(budget.reserve('requery', 'background', { maxWaitMs: 500 }), BudgetExhaustedError);
  await time.advance(600);
  await refused;
  urgency.raise('news');
  await time.advance(1000);
  assert.equal(reserved, true);
  assert.deepEqual(granted, ['burst'], 'the raised reservation went before the three watchers that came first');
});
