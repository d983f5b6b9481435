// One budget of requests toward the service, shared by every operation of the process: a token
// bucket whose rate is BILL_API_MAX_RPS at most and, below it, learned from the service's refusals
// (additive increase, multiplicative decrease), with each operation paused for everyone while the
// service's Retry-After runs. Waiting requests are granted by priority, so news of a payment never
// waits behind polls. Toward a service whose limit is unknown the rate starts modest and grows by
// half each second that requests waited and none was refused (a slow start, as TCP's), until the
// first refusal; a burst of the whole demand at once would mostly be refused.
import type { BillOperation } from './errors.js';
import { priorityNow, type Priority, type PriorityOf } from './priority.js';
import { burstOf, loweredRate, raisedRate, refilled, untilToken, WINDOW_MS } from './rate-rules.js';
import { createSendWindow } from './send-window.js';
import { bucketBurst, bucketReadyAt, newBucket, type Bucket } from './token-bucket.js';
import { createWaitQueue, type Ticket } from './wait-queue.js';

export { PRIORITIES, moreUrgent, priorityNow, Urgency, type Priority, type PriorityOf, type Rising } from './priority.js';

export interface BudgetOptions {
  /** Requests per second this process may send at most, all operations together; null: no fixed limit. */
  maxRps: number | null;
  /** Requests per second of each operation of the service (create, list, requery, cancel, bind), where it documents one. */
  maxRpsByOperation?: Partial<Record<BillOperation, number>>;
  /** The lowest rate the adaptive limit falls to, requests per second (default 1). */
  minRps?: number;
  /** Without BILL_API_MAX_RPS: the rate the budget starts from, requests per second (default 8). */
  startRps?: number;
  /** The longest Retry-After obeyed, ms: a service's answer does not stop us for a day (default 60 s). */
  maxPauseMs?: number;
  /** A 429 without Retry-After pauses its operation this long, ms (default 1000). */
  defaultPauseMs?: number;
  now?: () => number;
  setTimer?: (callback: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

/** Told of each turn granted (how long it waited) and each refusal for load, for metrics. */
export interface BudgetObserver {
  granted(operation: BillOperation, priority: Priority, waitedMs: number): void;
  throttled(operation: BillOperation, status: number): void;
}

export interface TakeOptions {
  signal?: AbortSignal;
  /** Give up (BudgetExhaustedError) rather than wait longer than this, ms. */
  maxWaitMs?: number;
}

export interface BudgetState {
  /** The rate granted now, requests per second; Infinity while unlimited. */
  rps: number;
  /** Requests waiting, by priority. */
  waiting: Record<Priority, number>;
  /** Operations paused by the service's Retry-After, until when (ms). */
  paused: Partial<Record<BillOperation, number>>;
}

/**
 * A turn granted before its call is made (Budget.reserve): a caller that has work to do between its
 * turn and its request (a claim in the store) waits first, light, and holds nothing while it waits.
 * The call it is handed to sends without waiting again; a turn no call used is given back.
 */
export interface Turn {
  readonly operation: BillOperation;
  /** Gives the turn back if no call used it: its token goes to the next request waiting. */
  release(): void;
}

export interface Budget {
  /**
   * Resolves when a request of `operation` may be sent; a waiting request becomes more urgent when
   * its Urgency rises (or its function says so at a grant). Rejects if `signal` aborts or the wait
   * would pass `maxWaitMs`.
   */
  take(operation: BillOperation, priority: PriorityOf, options?: TakeOptions): Promise<void>;
  /** The same wait as `take`, for a turn handed to the call later (CallOptions.turn). */
  reserve(operation: BillOperation, priority: PriorityOf, options?: TakeOptions): Promise<Turn>;
  /** Whether `turn` is this budget's, of `operation`'s endpoint and unused; if so it is used now. */
  redeem(turn: Turn, operation: BillOperation): boolean;
  /**
   * What the service answered a request: a 429, or a 503 with Retry-After, is a refusal for load:
   * the operation pauses for everyone until the Retry-After and the rate is halved.
   */
  answered(operation: BillOperation, status: number, retryAfterMs: number | null): void;
  state(): BudgetState;
  /**
   * Changes the set limit (BILL_API_SHARED_MAX_RPS: this instance's share as instances come and
   * go). The rate granted moves in proportion (a rate lowered by refusals stays as far below the
   * new limit), and no more than a burst of the new rate is at hand. Only for a budget made with a
   * set limit: a learning one (maxRps null) throws.
   */
  setMaxRps(rps: number): void;
  /** Adds an observer (the app's metrics). */
  observe(observer: BudgetObserver): void;
}

/** The service asked us to slow down, and the caller could not wait that long. */
export class BudgetExhaustedError extends Error {
  override name = 'BudgetExhaustedError';
  /** When the budget expects to grant this operation again, ms from now. */
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}

/** Whether an answer is the service refusing for load (what pauses an operation). */
export function isThrottle(status: number, retryAfterMs: number | null): boolean {
  return status === 429 || (status === 503 && retryAfterMs !== null);
}

interface Waiter {
  operation: BillOperation;
  since: number;
  resolve: () => void;
  reject: (error: unknown) => void;
  /** Drops the waiter's abort and rise listeners. */
  done: () => void;
}

/** The service's operation a call is: findByMerchantReference is its list. */
const endpointOf = (operation: BillOperation): BillOperation => (operation === 'findByMerchantReference' ? 'list' : operation);

function exhausted(operation: BillOperation, retryAfterMs: number): BudgetExhaustedError {
  return new BudgetExhaustedError(
    `Bill API ${operation}: the service asked for fewer requests (429 or 503 with Retry-After) and this one could not wait; try again in ${Math.ceil(retryAfterMs / 1000)} s.` +
    ' If the service documents its limit, set BILL_API_MAX_RPS to it.',
    retryAfterMs,
  );
}

export function createBudget(options: BudgetOptions): Budget {
  const now = options.now ?? Date.now;
  const setTimer = options.setTimer ?? ((callback: () => void, ms: number) => setTimeout(callback, ms));
  const clearTimer = options.clearTimer ?? ((timer: unknown) => clearTimeout(timer as ReturnType<typeof setTimeout>));
  let maxRps = options.maxRps !== null && options.maxRps > 0 ? options.maxRps : Infinity;
  let minRps = Math.min(options.minRps ?? 1, maxRps);
  const learning = !Number.isFinite(maxRps);
  // A set limit is the service's documented pace: a tenth of a second's burst. A learned one lets
  // half a second's worth go at once, so a few customers' calls together wait for nobody.
  const burstShare = learning ? 0.5 : 0.1;
  // Until the first refusal the rate grows by half per second (then by a twentieth, at least 1).
  let slowStart = learning;
  const maxPauseMs = options.maxPauseMs ?? 60_000;
  const defaultPauseMs = options.defaultPauseMs ?? 1000;

  let rps = learning ? Math.max(minRps, options.startRps ?? 8) : maxRps;
  let tokens = burst(rps);
  let refilledAt = now();
  // The last decrease and the last increase: one decrease per window (the refusals of requests
  // already sent are one event), one increase per window without refusals while requests waited.
  let decreasedAt = -Infinity;
  let increasedAt = now();
  let waitedSinceIncrease = false;
  const paused = new Map<BillOperation, number>();
  const waiters = createWaitQueue<Waiter, BillOperation>();
  // Requests sent in the last window: the rate a decrease starts from.
  const sent = createSendWindow(now());
  const observers: BudgetObserver[] = [];
  const buckets = new Map<BillOperation, Bucket>();
  for (const [operation, rate] of Object.entries(options.maxRpsByOperation ?? {}) as [BillOperation, number][]) {
    if (rate > 0) buckets.set(endpointOf(operation), newBucket(rate, now()));
  }
  let timer: unknown = null;
  let timerAt = Infinity;
  const turns = new WeakMap<Turn, { used: boolean }>();

  function burst(rate: number): number {
    return burstOf(rate, burstShare);
  }

  function refill(at: number): void {
    if (Number.isFinite(rps)) tokens = refilled(tokens, at - refilledAt, rps, burst(rps));
    refilledAt = at;
    // Additive increase: a window passed without a refusal while the budget held requests back.
    if (Number.isFinite(rps) && rps < maxRps && at - increasedAt >= WINDOW_MS && at - decreasedAt >= WINDOW_MS) {
      if (waitedSinceIncrease || waiters.size > 0) rps = raisedRate(rps, maxRps, slowStart);
      // On the window's own cadence, not whenever a grant happened to look.
      increasedAt = Math.max(increasedAt + WINDOW_MS, at - WINDOW_MS);
      waitedSinceIncrease = false;
    }
  }

  function pausedUntil(operation: BillOperation, at: number): number {
    const endpoint = endpointOf(operation);
    const until = paused.get(endpoint);
    if (until === undefined) return 0;
    if (until <= at) {
      paused.delete(endpoint);
      return 0;
    }
    return until;
  }

  /** When the operation's own limit lets it go: `at` when now (or it has none). */
  function operationReadyAt(operation: BillOperation, at: number): number {
    const bucket = buckets.get(endpointOf(operation));
    return bucket ? bucketReadyAt(bucket, at) : at;
  }

  /** Takes the tokens of a grant now. */
  function spend(operation: BillOperation, at: number): void {
    tokens -= 1;
    const bucket = buckets.get(endpointOf(operation));
    if (bucket) bucket.tokens -= 1;
    sent.count(at);
  }

  function grant(ticket: Ticket<Waiter, BillOperation>, at: number): void {
    const waiter = ticket.item;
    waiters.remove(ticket);
    spend(waiter.operation, at);
    waiter.done();
    for (const observer of observers) observer.granted(waiter.operation, ticket.priority, at - waiter.since);
    waiter.resolve();
  }

  /** The tokens of a grant that sent nothing, back (the send window keeps counting it: a small overestimate). */
  function giveBack(operation: BillOperation): void {
    const at = now();
    refill(at);
    tokens = Math.min(tokens + 1, burst(rps));
    const bucket = buckets.get(endpointOf(operation));
    if (bucket) bucket.tokens = Math.min(bucket.tokens + 1, bucketBurst(bucket.rps));
    if (waiters.size > 0) dispatch();
  }

  /** When an endpoint may go: after its pause, and when its own limit lets it (`at` when now). */
  const endpointReadyAt = (at: number) => (endpoint: BillOperation) =>
    Math.max(pausedUntil(endpoint, at), operationReadyAt(endpoint, at));

  /** Grants what can be granted now, most urgent first (then first come), and sets the timer for the rest. */
  function dispatch(): void {
    const at = now();
    refill(at);
    let wakeAt = Infinity;
    const readyAt = endpointReadyAt(at);
    while (waiters.size > 0) {
      // A paused operation's waiters, and those of an operation at its own limit, step aside;
      // others behind them go.
      const next = waiters.next(at, readyAt);
      wakeAt = Math.min(wakeAt, next.wakeAt);
      if (!next.ticket) break;
      if (tokens < 1) {
        wakeAt = Math.min(wakeAt, at + untilToken(tokens, rps));
        break;
      }
      grant(next.ticket, at);
    }
    for (const { item: waiter } of waiters.expired(at)) {
      waiter.done();
      waiter.reject(exhausted(waiter.operation, Math.max(pausedUntil(waiter.operation, at) - at, Math.ceil(1000 / rps))));
    }
    schedule(Math.min(wakeAt, waiters.nextDeadline()));
  }

  function schedule(at: number): void {
    if (at === Infinity || at >= timerAt) return;
    if (timer !== null) clearTimer(timer);
    timerAt = at;
    timer = setTimer(() => {
      timer = null;
      timerAt = Infinity;
      dispatch();
    }, Math.max(0, at - now()));
  }

  const budget: Budget = {
    take(operation, priority, takeOptions = {}) {
      const { signal } = takeOptions;
      if (signal?.aborted) return Promise.reject(signal.reason);
      const at = now();
      refill(at);
      const until = pausedUntil(operation, at);
      const maxWaitMs = takeOptions.maxWaitMs ?? Infinity;
      if (until - at > maxWaitMs) return Promise.reject(exhausted(operation, until - at));
      // Nobody waiting and a token at hand: granted at once, no timer.
      if (until === 0 && tokens >= 1 && waiters.size === 0 && operationReadyAt(operation, at) === at) {
        spend(operation, at);
        for (const observer of observers) observer.granted(operation, priorityNow(priority), 0);
        return Promise.resolve();
      }
      waitedSinceIncrease = true;
      return new Promise<void>((resolve, reject) => {
        let stopRise: (() => void) | null = null;
        const onAbort = () => {
          waiters.remove(ticket);
          stopRise?.();
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          operation, since: at, resolve, reject,
          done: () => {
            signal?.removeEventListener('abort', onAbort);
            stopRise?.();
          },
        };
        const reread = typeof priority === 'function' ? priority : undefined;
        const ticket = waiters.add(waiter, endpointOf(operation), priorityNow(priority), at + maxWaitMs, reread);
        signal?.addEventListener('abort', onAbort, { once: true });
        if (typeof priority === 'object') {
          // Risen (news about its bill): it may be the most urgent now.
          stopRise = priority.onRise(() => {
            waiters.raise(ticket, priority.value);
            dispatch();
          });
        }
        dispatch();
      });
    },

    answered(operation, status, retryAfterMs) {
      if (!isThrottle(status, retryAfterMs)) return;
      const at = now();
      for (const observer of observers) observer.throttled(operation, status);
      const pause = Math.min(maxPauseMs, retryAfterMs ?? defaultPauseMs);
      const endpoint = endpointOf(operation);
      paused.set(endpoint, Math.max(paused.get(endpoint) ?? 0, at + pause));
      if (at - decreasedAt >= WINDOW_MS) {
        // Multiplicative decrease from what was really sent in the last window (an unlimited
        // budget has no rate of its own to halve).
        // A set limit is known to be about right: a refusal near it cuts a tenth, not a half.
        rps = loweredRate(rps, sent.sent(at), minRps, Number.isFinite(maxRps));
        tokens = Math.min(tokens, burst(rps));
        slowStart = false;
        decreasedAt = at;
        increasedAt = at;
        waitedSinceIncrease = false;
      }
    },

    state() {
      const at = now();
      refill(at);
      const pausedNow: Partial<Record<BillOperation, number>> = {};
      for (const [operation] of paused) {
        const until = pausedUntil(operation, at);
        if (until > 0) pausedNow[operation] = until;
      }
      const waiting: Record<Priority, number> = {
        news: waiters.waiting('news'), customer: waiters.waiting('customer'), watch: waiters.waiting('watch'), background: waiters.waiting('background'),
      };
      return { rps, waiting, paused: pausedNow };
    },

    setMaxRps(newMax) {
      if (learning) throw new Error('setMaxRps: this budget has no set limit (it learns one)');
      if (!(Number.isFinite(newMax) && newMax > 0)) throw new RangeError(`setMaxRps: a positive number of requests per second, got ${newMax}`);
      if (newMax === maxRps) return;
      const at = now();
      // The tokens earned so far were earned at the old rate.
      refill(at);
      rps = Math.min(newMax, rps * (newMax / maxRps));
      maxRps = newMax;
      minRps = Math.min(options.minRps ?? 1, maxRps);
      rps = Math.max(rps, minRps);
      tokens = Math.min(tokens, burst(rps));
      // Waiters' timer was set for the old rate: a higher one grants them sooner.
      if (waiters.size > 0) dispatch();
    },

    reserve(operation, priority, takeOptions) {
      return budget.take(operation, priority, takeOptions).then(() => {
        const state = { used: false };
        const turn: Turn = {
          operation,
          release() {
            if (state.used) return;
            state.used = true;
            giveBack(operation);
          },
        };
        turns.set(turn, state);
        return turn;
      });
    },

    redeem(turn, operation) {
      const state = turns.get(turn);
      if (!state || state.used || endpointOf(turn.operation) !== endpointOf(operation)) return false;
      state.used = true;
      return true;
    },

    observe(observer) {
      observers.push(observer);
    },
  };
  return budget;
}
