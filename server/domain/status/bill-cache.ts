import { toBillView } from '../bill-view.js';
import type { StoredBill } from '../../store/types.js';
import type { BillView } from '../../../contract/bill-view.js';

/** A bill as this process last saw it in the store, with its BillView serialized once. */
export interface CachedBill {
  bill: StoredBill & { billId: string };
  view: BillView;
  /** JSON of `view`. */
  json: string;
}

// The view and its JSON are made when first asked for: a bill loaded only to be requeried never needs them.
class Cached implements CachedBill {
  #view: BillView | undefined;
  #json: string | undefined;
  /** Forgotten: no longer served fresh, kept only as what this process last saw (`stale`). */
  outdated = false;
  constructor(readonly bill: CachedBill['bill'], readonly at: number, readonly processing: readonly number[]) {}
  get view(): BillView {
    return (this.#view ??= toBillView(this.bill, this.processing));
  }
  get json(): string {
    return (this.#json ??= JSON.stringify(this.view));
  }
}

/** `processing`: the in-between status codes (Config.statuses.processing). */
export function cachedBill(bill: StoredBill, processing: readonly number[]): CachedBill {
  return new Cached(bill as CachedBill['bill'], 0, processing);
}

export interface BillCache {
  /** The entry, unless absent or cached longer than `maxAgeMs` ago (then the store is asked again). */
  get(billId: string): CachedBill | undefined;
  /**
   * The entry however long ago it was cached, forgotten or not, for when the store cannot be asked
   * (it is out of reach): what this process last saw of the bill. Such entries stay for this until
   * `maxEntries` pushes them out.
   */
  stale(billId: string): CachedBill | undefined;
  /** Caches the bill (unless the cache is off) and returns it as a CachedBill. */
  set(bill: StoredBill): CachedBill;
  /** `get` no longer answers the entry (it may be outdated); `stale` still does. */
  forget(billId: string): void;
  size(): number;
}

export interface BillCacheOptions {
  /** No entry is trusted longer than this, ms: bounds what a lost hub message can leave stale. */
  maxAgeMs: number;
  maxEntries: number;
  now: () => number;
  /** The in-between status codes (Config.statuses.processing), for the views. */
  processing: readonly number[];
}

/**
 * Bounded by `maxEntries` (the oldest set goes first); kept coherent by whoever writes the store.
 * An entry past `maxAgeMs`, or forgotten, is not served by `get` but stays, for `stale`.
 */
export function createBillCache({ maxAgeMs, maxEntries, now, processing }: BillCacheOptions): BillCache {
  const entries = new Map<string, Cached>();
  return {
    get(billId) {
      const entry = entries.get(billId);
      return entry && !entry.outdated && now() - entry.at < maxAgeMs ? entry : undefined;
    },
    stale: (billId) => entries.get(billId),
    set(bill) {
      const entry = new Cached(bill as CachedBill['bill'], now(), processing);
      const billId = bill.billId;
      if (billId === null || maxEntries <= 0) return entry;
      entries.delete(billId);
      entries.set(billId, entry);
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      return entry;
    },
    forget(billId) {
      const entry = entries.get(billId);
      if (entry) entry.outdated = true;
    },
    size: () => entries.size,
  };
}
