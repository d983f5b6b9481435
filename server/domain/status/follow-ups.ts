// News the service has not confirmed yet is followed up (DESIGN rule 11): after a callback or a
// return whose requery is not final, and from the moment a bill expires on the service's clock,
// the bill is asked about again on a short schedule until the service calls it final or the
// schedule ends. A callback says a status is final; a replica behind the service's primary may
// still say pending for a second or two, and nobody should wait for the reconciler to learn it.
import type { StoredBill } from '../../store/types.js';

/** Delays before each follow-up, ms: about 0.5, 1, 2, 4 and 8 s apart. */
export const FOLLOW_UP_SCHEDULE_MS: readonly number[] = [500, 1000, 2000, 4000, 8000];
/** setTimeout's longest delay; a later expiry is looked at again when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface FollowUps {
  /**
   * News not confirmed: asks again on the schedule from now (unless already on it), until the bill
   * is final. `ask`: how to ask, when the news is a hint whose own limit the follow-ups must keep
   * (the return's once per refresh window); default the options' `requery`.
   */
  afterNews(billId: string, ask?: Ask): void;
  /** A pending bill: asks on the schedule from the moment it expires (at once, then 0.5, 1, 2… s later). */
  watchExpiry(bill: StoredBill): void;
  /** Bills with a follow-up scheduled. */
  size(): number;
  /** Cancels every scheduled follow-up. */
  stop(): void;
}

/** Asks the service about the bill now; resolves to the bill as it is then (null: no such bill). */
export type Ask = (billId: string) => Promise<StoredBill | null>;

export interface FollowUpsOptions {
  requery: Ask;
  /** Our clock's time at which the bill expires on the service's clock. */
  expiresAt(bill: StoredBill & { billId: string }): number;
  now: () => number;
  schedule?: readonly number[];
  /** Most bills followed at once; beyond it the oldest expiry watch is dropped (the reconciler still finds it). */
  maxBills?: number;
  setTimer?: (callback: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

interface Followed {
  timer: unknown;
  /** The next step of the schedule; -1 while waiting for the bill's expiry. */
  step: number;
  /** Our clock's time the next ask is due. */
  dueAt: number;
  ask: Ask;
}

export function createFollowUps(options: FollowUpsOptions): FollowUps {
  const { requery, expiresAt, now } = options;
  const schedule = options.schedule ?? FOLLOW_UP_SCHEDULE_MS;
  const maxBills = options.maxBills ?? 100_000;
  const setTimer = options.setTimer ?? ((callback: () => void, ms: number) => {
    const timer = setTimeout(callback, ms);
    // A process that is ending does not wait for a follow-up.
    (timer as { unref?: () => void }).unref?.();
    return timer;
  });
  const clearTimer = options.clearTimer ?? ((timer: unknown) => clearTimeout(timer as ReturnType<typeof setTimeout>));
  const followed = new Map<string, Followed>();

  function arm(billId: string, entry: Followed): void {
    entry.timer = setTimer(() => void fire(billId, entry), Math.min(MAX_TIMER_MS, Math.max(0, entry.dueAt - now())));
  }

  function set(billId: string, step: number, dueAt: number, ask: Ask): void {
    const old = followed.get(billId);
    if (old) clearTimer(old.timer);
    else if (followed.size >= maxBills) drop(followed.keys().next().value!);
    const entry: Followed = { timer: null, step, dueAt, ask };
    followed.set(billId, entry);
    arm(billId, entry);
  }

  function drop(billId: string): void {
    const entry = followed.get(billId);
    if (!entry) return;
    clearTimer(entry.timer);
    followed.delete(billId);
  }

  async function fire(billId: string, entry: Followed): Promise<void> {
    if (followed.get(billId) !== entry) return;
    // A far expiry is reached in several timers.
    if (entry.dueAt > now()) return arm(billId, entry);
    let bill: StoredBill | null | undefined;
    try {
      bill = await entry.ask(billId);
    } catch {
      // Logged where it failed; the schedule goes on.
    }
    if (followed.get(billId) !== entry) return;
    const next = entry.step + 1;
    if (bill === null || bill?.isFinal || next >= schedule.length) {
      followed.delete(billId);
      // News that ended before the bill's expiry: its expiry is still followed.
      if (bill && !bill.isFinal && bill.expiredOn !== null && expiresAt(bill as StoredBill & { billId: string }) > now()) watch(bill);
      return;
    }
    entry.step = next;
    entry.dueAt = now() + schedule[next]!;
    arm(billId, entry);
  }

  function watch(bill: StoredBill): void {
    if (bill.billId === null || bill.isFinal || bill.expiredOn === null || followed.has(bill.billId)) return;
    // At the expiry itself, then on the schedule: step -1 asks first at dueAt.
    set(bill.billId, -1, expiresAt(bill as StoredBill & { billId: string }), requery);
  }

  return {
    afterNews(billId, ask = requery) {
      // Already on the schedule: news repeated (a return opened again) does not ask more often.
      if ((followed.get(billId)?.step ?? -1) >= 0) return;
      set(billId, 0, now() + schedule[0]!, ask);
    },
    watchExpiry: watch,
    size: () => followed.size,
    stop() {
      for (const entry of followed.values()) clearTimer(entry.timer);
      followed.clear();
    },
  };
}
