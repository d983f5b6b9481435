import type { Logger } from '../../log.js';
import type { StoredBill, Store } from '../../store/types.js';
import { BillApiRejectedError } from '../../upstream/errors.js';
import type { BillApi } from '../../upstream/types.js';
import type { Refresher } from './refresher.js';

export interface ReconcilerOptions {
  store: Store;
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
  runOnce(): Promise<{ requeried: number; settled: number; withdrawn: number; skipped?: boolean }>;
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
    return pass.ran ? pass.value : { requeried: 0, settled: 0, withdrawn: 0, skipped: true };
  }

  async function passOnce() {
    const t = now();
    const serviceId = options.serviceId ?? undefined;
    // Withdrawals first: a bill the service still calls payable that is no order's must end.
    const withdrawing = options.upstream ? await store.listWithdrawing(batchSize, serviceId) : [];
    let withdrawn = 0;
    await eachLimited(withdrawing, concurrency, async (bill) => {
      if (await withdraw(bill as StoredBill & { billId: string })) withdrawn++;
    });
    const pending = await store.listPending(t - intervalMs, batchSize, serviceId);
    for (const bill of pending) {
      if (bill.expiresLocalAt !== null) options.observeLifetime?.(bill.expiresLocalAt - bill.createdAt);
    }
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
    return { requeried, settled, withdrawn };
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
