// The reconciler: every RECONCILE_INTERVAL_MS, a pass over the pending bills without fresh news,
// the most urgent first (the closest to their expiry, then the longest unchecked), paged by key
// through all of them. It paces itself within the budget toward the service: its requeries are
// `background` (news and customers are granted first), it sends no faster than its own ceiling
// (RECONCILE_MAX_RPS, else half of a limit set by configuration) nor than the due bills need, and
// it keeps at most a few requests waiting in the budget, so news arriving finds few of its ahead. A pass that
// cannot cover its bills within the interval stops there, says how far behind it is (lag()), and
// the next starts at once from the most urgent again.
import type { Logger } from '../../log.js';
import type { BillStore, ClaimStore, PendingCursor, StoredBill } from '../../store/types.js';
import type { Budget } from '../../upstream/budget.js';
import { BillApiRejectedError } from '../../upstream/errors.js';
import type { BillApi } from '../../upstream/types.js';
import type { Refresher } from './refresher.js';

/** The reconciler's own time: its pace, its passes' deadline and their schedule. */
export interface ReconcilerTimer {
  now(): number;
  setTimer(callback: () => void, ms: number): unknown;
  clearTimer(timer: unknown): void;
}

export interface ReconcilerOptions {
  store: BillStore & ClaimStore;
  refresher: Refresher;
  /** Settles a bill left in `creating` (its create outcome is unknown). */
  settle: (bill: StoredBill) => Promise<void>;
  /** Withdraws superseded and orphaned bills whose withdrawal the service has not confirmed yet. */
  upstream?: Pick<BillApi, 'cancelBill'>;
  /** The service this process talks to (serviceIdentity): only its bills are asked about. */
  serviceId?: string | null;
  /** Told the lifetime of each pending bill it reads (ms): the settling bound follows the longest. */
  observeLifetime?: (ms: number) => void;
  intervalMs: number;
  /** A bill still `creating` after this long is settled (no create in this process can still answer). */
  creatingAgeMs: number;
  /** The app's clock, the one bills are stamped with (checkedAt). */
  now: () => number;
  log: Logger;
  /** The budget toward the service (the upstream client's): its rate bounds the pace, its queue holds the pass back. */
  budget?: Pick<Budget, 'state'>;
  /** RECONCILE_MAX_RPS: requeries per second at most (within the budget's rate); default: see `limitKnown`. */
  maxRps?: number | null;
  /** The service's own limit of requeries per second, when it documents one (BILL_API_MAX_RPS_BY_OPERATION). */
  requeryMaxRps?: number | null;
  /**
   * The budget's rate is a limit set by configuration (BILL_API_MAX_RPS): without RECONCILE_MAX_RPS
   * the reconciler takes half of it (or of `requeryMaxRps`, if lower). Else the rate is being
   * learned and the reconciler may use all of it: only requests that wait make the budget try a higher one.
   */
  limitKnown?: boolean;
  /** Its requeries waiting for their turn in the budget at once, at most (default 2). */
  maxQueued?: number;
  /** Its requeries in flight at once, at most (default 32). */
  concurrency?: number;
  /** Bills read from the store at a time (default 200). */
  batchSize?: number;
  /** Default: real time, as the budget's. */
  timer?: ReconcilerTimer;
}

/** How far behind the reconciler is, as its last pass left it. */
export interface ReconcileLag {
  /** Pending bills that were due when the last pass started and that it did not reach within the interval. */
  backlogBills: number;
  /** How much longer than the interval the oldest of them has gone unchecked, ms (0 without backlog). */
  lagMs: number;
}

export interface ReconcilePass {
  requeried: number;
  settled: number;
  withdrawn: number;
  /** Pending bills left due when the pass ended (see ReconcileLag). */
  backlog?: number;
  skipped?: boolean;
}

export interface Reconciler {
  start(): void;
  stop(): Promise<void>;
  /**
   * One pass: requery pending bills without fresh news, settle stale creates. Skipped (all zero,
   * `skipped: true`) while another process sharing the store runs its pass. The passes of start()
   * spread their requeries over the interval; this one goes as fast as its ceiling allows.
   */
  runOnce(): Promise<ReconcilePass>;
  lag(): ReconcileLag;
}

/** Of a limit set by configuration, the reconciler's share (without RECONCILE_MAX_RPS). */
export const RECONCILE_SHARE = 0.5;
/** Toward a limit being learned, how much more than the budget's rate it asks. */
const LEARNING_PUSH = 1.25;
/** A spread pass aims to end within this share of the interval, so that a little delay does not cut it. */
const SPREAD_SHARE = 0.8;
/** With no rate to go by, how often a pass looks again at a full budget queue, ms. */
const RECHECK_MS = 10;

const realTimer: ReconcilerTimer = {
  now: Date.now,
  setTimer: (callback, ms) => setTimeout(callback, ms),
  clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export function createReconciler(options: ReconcilerOptions): Reconciler {
  const { store, refresher, settle, intervalMs, creatingAgeMs, now, log, budget } = options;
  const clock = options.timer ?? realTimer;
  const concurrency = Math.max(1, options.concurrency ?? 32);
  const batchSize = Math.max(1, options.batchSize ?? 200);
  const maxQueued = Math.max(1, options.maxQueued ?? 2);
  let loopTimer: unknown = null;
  let stopped = true;
  let running: Promise<unknown> | null = null;
  /** What the last pass left: the bills due at its start it did not reach, and the oldest check among them. */
  let left = { count: 0, oldestCheckedAt: null as number | null };
  /** Sleepers of the running pass, woken at once by stop(). */
  const sleepers = new Set<() => void>();

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        sleepers.delete(wake);
        clock.clearTimer(timer);
        resolve();
      };
      const timer = clock.setTimer(wake, ms);
      sleepers.add(wake);
    });
  }

  /**
   * Requeries per second this pass may send now: its ceiling within the budget, and no more than
   * `needRps`. Toward a limit being learned it asks a little more than the budget grants: the few
   * it keeps waiting there (maxQueued) are what lets the budget try a higher rate.
   */
  function rate(needRps: number, budgetRps: number): number {
    const limit = Math.min(budgetRps, options.requeryMaxRps ?? Infinity);
    const ceiling = options.maxRps ? Math.min(options.maxRps, limit)
      : options.limitKnown ? limit * RECONCILE_SHARE : Math.min(budgetRps * LEARNING_PUSH, options.requeryMaxRps ?? Infinity);
    return Math.min(ceiling, needRps);
  }

  /** `spread`: no faster than the due bills need; `halted`: stop() was called (the passes of start() end early). */
  async function pass(spread: boolean, halted: () => boolean): Promise<ReconcilePass & { cut: boolean }> {
    const outcome = await store.exclusive('bill-checkout:reconciler', () => passOnce(spread, halted));
    if (outcome.ran) return outcome.value;
    // Another process runs the passes: it tells how far behind they are, not this one.
    left = { count: 0, oldestCheckedAt: null };
    return { requeried: 0, settled: 0, withdrawn: 0, skipped: true, cut: false };
  }

  async function passOnce(spread: boolean, halted: () => boolean): Promise<ReconcilePass & { cut: boolean }> {
    const t = now();
    const deadline = clock.now() + intervalMs;
    const serviceId = options.serviceId ?? undefined;
    // Withdrawals first: a bill the service still calls payable that is no order's must end.
    const withdrawing = options.upstream ? await store.listWithdrawing(batchSize, serviceId) : [];
    let withdrawn = 0;
    await eachLimited(withdrawing, Math.min(concurrency, 4), async (bill) => {
      if (await withdraw(bill as StoredBill & { billId: string })) withdrawn++;
    });
    const { requeried, cut } = await requeryDue(t - intervalMs, deadline, spread, halted, serviceId);
    const creating = await store.listCreating(t - creatingAgeMs, batchSize);
    let settled = 0;
    await eachLimited(creating, Math.min(concurrency, 4), async (bill) => {
      try {
        await settle(bill);
        settled++;
      } catch (error) {
        log.warn('settling an unknown create failed; next pass retries', { merchantReference: bill.merchantReference, error });
      }
    });
    return { requeried, settled, withdrawn, backlog: left.count, cut };
  }

  /**
   * Every pending bill checked before `checkedBefore`, the most urgent first, paced; stops at the
   * deadline (`cut`). Then counts what is left of them: the backlog.
   */
  async function requeryDue(checkedBefore: number, deadline: number, spread: boolean, halted: () => boolean, serviceId: string | undefined) {
    const due = await store.countPendingDue(checkedBefore, serviceId);
    // Spread over the interval: never faster than the due bills need (bills made since the count go at that pace too).
    const needRps = spread ? (Math.max(1, due.count) * 1000) / (intervalMs * SPREAD_SHARE) : Infinity;
    const flying = new Set<Promise<void>>();
    let landed: (() => void) | null = null;
    let nextAt = clock.now();
    let requeried = 0;
    let cut = false;

    /** Resolves when one more requery may start now; false when the pass must stop (stopped, or past its deadline). */
    const turn = async (): Promise<boolean> => {
      for (;;) {
        if (halted()) return false;
        const at = clock.now();
        if (at >= deadline) {
          cut = true;
          return false;
        }
        if (flying.size >= concurrency) {
          await new Promise<void>((resolve) => void (landed = resolve));
          continue;
        }
        if (nextAt > at) {
          await sleep(nextAt - at);
          continue;
        }
        const state = budget?.state();
        const rps = rate(needRps, state?.rps ?? Infinity);
        // Hold back while its own requests wait in the budget: news arriving then finds few ahead.
        if (state && state.waiting.background >= maxQueued) {
          const pace = Math.min(rps, state.rps);
          await sleep(Number.isFinite(pace) && pace > 0 ? 1000 / pace : RECHECK_MS);
          continue;
        }
        // On the pace's own schedule while it keeps it (a late wake-up is not made up for by a burst after).
        const step = Number.isFinite(rps) && rps > 0 ? 1000 / rps : 0;
        nextAt = at - nextAt < step ? nextAt + step : at + step;
        return true;
      }
    };

    const requery = async (bill: StoredBill) => {
      try {
        const r = await refresher.read(bill.billId!, intervalMs, bill, { reason: 'reconcile' });
        if (r?.confirmed) requeried++;
      } catch (error) {
        log.warn('reconcile requery failed', { billId: bill.billId, error });
      }
    };

    let after: PendingCursor | undefined;
    try {
      paging: for (;;) {
        const page = await store.listPending(checkedBefore, batchSize, serviceId, after);
        for (const bill of page) {
          if (!(await turn())) break paging;
          if (bill.expiresLocalAt !== null) options.observeLifetime?.(bill.expiresLocalAt - bill.createdAt);
          const flight: Promise<void> = requery(bill).finally(() => {
            flying.delete(flight);
            const wake = landed;
            landed = null;
            wake?.();
          });
          flying.add(flight);
        }
        if (page.length < batchSize) break;
        after = page.at(-1);
      }
    } finally {
      // Also when the store fails mid-pass: the pass ends once its requeries have.
      await Promise.allSettled(flying);
    }
    left = due.count === 0 ? { count: 0, oldestCheckedAt: null } : await store.countPendingDue(checkedBefore, serviceId);
    return { requeried, cut };
  }

  /** One more cancel of a bill the BFF withdrew: confirmed once the service accepts it or calls the bill final. */
  async function withdraw(bill: StoredBill & { billId: string }): Promise<boolean> {
    try {
      await options.upstream!.cancelBill(bill.billId, { priority: 'background' });
    } catch (error) {
      // Refused as such: no longer pending there; the requery says what it is (final ends the withdrawal).
      if (!(error instanceof BillApiRejectedError) || error.retryable) {
        log.warn('withdrawing a bill failed; the next pass tries again', { billId: bill.billId, error });
        return false;
      }
    }
    await store.confirmWithdrawal(bill.billId, now());
    await refresher.news(bill.billId, { reason: 'reconcile', known: bill }).catch(() => null);
    return true;
  }

  function schedule(ms: number): void {
    if (stopped) return;
    loopTimer = clock.setTimer(tick, ms);
  }

  function tick(): void {
    loopTimer = null;
    if (running || stopped) return;
    const startedAt = clock.now();
    let behind = false;
    running = pass(true, () => stopped)
      .then((result) => {
        // Cut at its deadline: the next pass starts now, from the most urgent again.
        behind = result.cut;
      })
      .catch((error: unknown) => log.error('reconcile pass failed', { error }))
      .finally(() => {
        running = null;
        schedule(behind ? 0 : Math.max(0, startedAt + intervalMs - clock.now()));
      });
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      tick();
    },
    async stop() {
      stopped = true;
      if (loopTimer !== null) clock.clearTimer(loopTimer);
      loopTimer = null;
      for (const wake of [...sleepers]) wake();
      await running;
    },
    runOnce: () => pass(false, () => false),
    lag() {
      if (left.count === 0) return { backlogBills: 0, lagMs: 0 };
      const oldest = left.oldestCheckedAt ?? now();
      return { backlogBills: left.count, lagMs: Math.max(0, now() - oldest - intervalMs) };
    },
  };
}
