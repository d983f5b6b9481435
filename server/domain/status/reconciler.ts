import type { Logger } from '../../log.js';
import type { StoredBill, Store } from '../../store/types.js';
import type { Refresher } from './refresher.js';

export interface ReconcilerOptions {
  store: Store;
  refresher: Refresher;
  /** Settles a bill left in `creating` (its create outcome is unknown). */
  settle: (bill: StoredBill) => Promise<void>;
  intervalMs: number;
  /** A bill still `creating` after this long is settled (no create in this process can still answer). */
  creatingAgeMs: number;
  now: () => number;
  log: Logger;
  concurrency?: number;
  batchSize?: number;
}

export interface Reconciler {
  start(): void;
  stop(): Promise<void>;
  /**
   * One pass: requery pending bills without fresh news, settle stale creates. Skipped (all zero,
   * `skipped: true`) while another process sharing the store runs its pass.
   */
  runOnce(): Promise<{ requeried: number; settled: number; skipped?: boolean }>;
}

async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export function createReconciler(options: ReconcilerOptions): Reconciler {
  const { store, refresher, settle, intervalMs, creatingAgeMs, now, log } = options;
  const concurrency = options.concurrency ?? 4;
  const batchSize = options.batchSize ?? 200;
  let timer: ReturnType<typeof setInterval> | null = null;
  let running: Promise<unknown> | null = null;

  async function runOnce() {
    const pass = await store.exclusive('bill-checkout:reconciler', passOnce);
    return pass.ran ? pass.value : { requeried: 0, settled: 0, skipped: true };
  }

  async function passOnce() {
    const t = now();
    const pending = await store.listPending(t - intervalMs, batchSize);
    let requeried = 0;
    await eachLimited(pending, concurrency, async (bill) => {
      try {
        const r = await refresher.read(bill.billId!, intervalMs, bill, { reason: 'reconcile' });
        if (r?.confirmed) requeried++;
      } catch (error) {
        log.warn('reconcile requery failed', { billId: bill.billId, error });
      }
    });
    const creating = await store.listCreating(t - creatingAgeMs, batchSize);
    let settled = 0;
    await eachLimited(creating, concurrency, async (bill) => {
      try {
        await settle(bill);
        settled++;
      } catch (error) {
        log.warn('settling an unknown create failed; next pass retries', { merchantReference: bill.merchantReference, error });
      }
    });
    return { requeried, settled };
  }

  const tick = () => {
    if (running) return;
    running = runOnce()
      .catch((error: unknown) => log.error('reconcile pass failed', { error }))
      .finally(() => {
        running = null;
      });
  };

  return {
    start() {
      if (timer) return;
      timer = setInterval(tick, intervalMs);
      tick();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
    runOnce,
  };
}
