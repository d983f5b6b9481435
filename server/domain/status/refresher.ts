import type { Alerts } from '../alerts.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { StoreUnavailableError } from '../../store/errors.js';
import type { ApplyStatusResult, BillStore, ClaimStore, NoticeChannel, RequeryReason, StoredBill } from '../../store/types.js';
import { Urgency, type Priority, type Turn } from '../../upstream/budget.js';
import type { BillApi } from '../../upstream/types.js';
import { askService, cancelOverdue, isFresh, type AskDeps } from './ask-service.js';
import { cachedBill, createBillCache } from './bill-cache.js';
import type { BillCache, CachedBill } from './bill-cache.js';
import type { Hub } from './hub.js';
import { overdue } from './expiry.js';
import { isProcessing, outcomeOf } from './outcome.js';

export interface Refreshed {
  bill: StoredBill;
  /**
   * True when `bill` is known to be current: final, fresh, or just requeried and stored.
   * False when `bill` is the stored one: a requery or storing its result failed, or another
   * process holds the right to requery it now (its change arrives through the hub).
   */
  confirmed: boolean;
}

/** What one requery came to: the status changed, stayed, could not be had, or was refused as not this bill's. */
export type RequeryResult = 'changed' | 'unchanged' | 'failed' | 'mismatch';

export interface RequeryOptions {
  /** A requery this call starts is tried once (a hint from outside, such as the return). Default true. */
  retry?: boolean;
  /** Why the bill is asked about: counted, and stored with the status it brings. */
  reason?: RequeryReason;
  /** The bill as the caller just read it from the store: news that starts a requery starts from it, not from another read. */
  known?: StoredBill;
}

export interface Refresher {
  /**
   * The bill, requeried first when its stored status is older than `maxAgeMs` (default: the refresh
   * window). `known`: the bill just looked up for this request, so the store is not read twice.
   * A requery this read starts goes by `options` (default reason `poll`).
   */
  read(billId: string, maxAgeMs?: number, known?: StoredBill, options?: RequeryOptions): Promise<Refreshed | null>;
  /**
   * Starts a requery behind the caller when `bill` (as the caller just read it) is older than the
   * refresh window and none is in flight; never waits for it. Watchers see its result on their next
   * poll or on their stream: nobody's answer waits on the service.
   */
  refreshBehind(bill: StoredBill, reason: RequeryReason): void;
  /** The bill from this process's cache or else the store (then cached); null when there is none. */
  lookup(billId: string): Promise<CachedBill | null>;
  /**
   * The cached bill (cached within the refresh window, coherent with the store), whatever its
   * requery is doing: what a poll answers with no store read and no await. Undefined otherwise.
   */
  servable(billId: string): CachedBill | undefined;
  /** Drops the cached bill (another process changed it). */
  forget(billId: string): void;
  /**
   * News (callback, return, cancel): a requery that starts after this call, unless the bill is
   * final. `options` apply to that requery when this call starts it (default reason `callback`).
   * News takes no claim from the store: another process's requery in flight may have started
   * before the payment, so waiting for it would only delay this one, and ask the service as often.
   */
  news(billId: string, options?: RequeryOptions): Promise<Refreshed | null>;
  /** Requeries in flight, all bills. */
  inFlight(): number;
  /** Resolves once no requery is in flight (those started behind answers included). */
  idle(): Promise<void>;
}

export interface RefresherOptions {
  store: BillStore & ClaimStore;
  upstream: BillApi;
  config: Pick<Config, 'statuses' | 'refreshWindowMs' | 'expiryGraceMs'> & Partial<Pick<Config, 'notFoundCodes'>>;
  hub: Hub;
  alerts: Alerts;
  channels: NoticeChannel[];
  /** The service's time, unix ms (expiredOn is on its clock); default `now`. */
  serviceNow?: () => number;
  /** Called when a requery made a bill final (its notice is queued). */
  onBecameFinal: () => void;
  /** After every requery this process made (metrics). */
  onRequery?: (reason: RequeryReason, result: RequeryResult) => void;
  now: () => number;
  log: Logger;
  /** How long a claim to requery a bill keeps other processes' reads off it, ms (default 10_000). */
  leaseMs?: number;
  /** Bills cached in memory (default 10_000; 0 turns the cache off). */
  cacheEntries?: number;
  /** The cache to read through (refresherCache), when another part also drops entries from it (the hub); default: one of its own. */
  cache?: BillCache;
  /** The service this process talks to (serviceIdentity): a bill another one made is never asked about here. */
  serviceId?: string | null;
}

/**
 * A bill younger than this that the service does not find may just not have reached the replica it
 * reads from yet: only an older one is taken as lost there.
 */
export const LOST_AFTER_MS = 60_000;

/** Who waits on a requery of this reason: its turn in the budget toward the service. */
export const REQUERY_PRIORITY: Record<RequeryReason, Priority> = {
  callback: 'news', return: 'news', follow_up: 'news', cancel: 'customer', create: 'customer', poll: 'watch', stream: 'watch',
  reconcile: 'background',
};

interface Flight {
  promise: Promise<Refreshed | null>;
  /** Its turn in the budget: news arriving while it waits for one makes it as urgent. */
  urgency: Urgency;
  /** News that arrived while `promise` was in flight: one more requery after it, shared. */
  followUp: {
    promise: Promise<Refreshed | null>;
    resolve: (r: Refreshed | null) => void;
    reject: (e: unknown) => void;
    /** The reason of the first news that asked for it. */
    reason: RequeryReason;
  } | null;
}

/** A refresher's cache of bills: none outlives the refresh window. */
export function refresherCache(options: Pick<RefresherOptions, 'config' | 'now' | 'cacheEntries'>): BillCache {
  const { config } = options;
  return createBillCache({
    maxAgeMs: config.refreshWindowMs, maxEntries: options.cacheEntries ?? 10_000, now: options.now, processing: config.statuses.processing,
  });
}

/**
 * One refresher per process: every requery of a bill goes through it, at most one in flight per
 * bill here, and through the store's claim at most one among all processes sharing the store.
 */
export function createRefresher(options: RefresherOptions): Refresher {
  const { store, upstream, config, hub, alerts, channels, onBecameFinal, now, log } = options;
  const time = { now, serviceNow: options.serviceNow ?? now };
  const onRequery = options.onRequery ?? (() => undefined);
  const leaseMs = options.leaseMs ?? 10_000;
  const flights = new Map<string, Flight>();
  // In front of the store for reads; every status this process stores goes through it, other
  // processes' changes drop entries (forget, through the hub), and no entry outlives the window.
  const cache = options.cache ?? refresherCache(options);
  const asking: AskDeps = { upstream, alerts, log, notFoundCodes: config.notFoundCodes ?? [] };

  /**
   * The bill from the store (then cached). While the store is out of reach, the bill as this
   * process last saw it, however old (a final bill never changes; a pending one is refreshed once
   * the store is back); for a bill not seen here the StoreUnavailableError goes to the caller.
   */
  async function load(billId: string): Promise<StoredBill | null> {
    let bill: StoredBill | null;
    try {
      bill = await store.getByBillId(billId);
    } catch (error) {
      const last = error instanceof StoreUnavailableError ? cache.stale(billId) : undefined;
      if (last) return last.bill;
      throw error;
    }
    if (bill) cache.set(bill);
    else cache.forget(billId);
    return bill;
  }

  const fresh = (bill: StoredBill, maxAgeMs: number) => isFresh(bill, maxAgeMs, now());
  /** Lost at the service, or made at another one: never asked about here. */
  const askable = (bill: StoredBill) =>
    bill.lostAt === null && (bill.serviceId === null || !options.serviceId || bill.serviceId === options.serviceId);

  /**
   * A read requeries only if it wins the claim (else another process is on it: serve the stored
   * bill). News requeries whatever others do (see Refresher.news).
   */
  async function requery(flight: Flight, billId: string, maxAgeMs: number | 'news', retry: boolean, reason: RequeryReason, known?: StoredBill): Promise<Refreshed | null> {
    const bill = known ?? (await load(billId));
    if (!bill) return null;
    if (bill.isFinal) return { bill, confirmed: true };
    if (!askable(bill)) return { bill, confirmed: false };
    const priority = flight.urgency;
    if (maxAgeMs === 'news') return requeryClaimed(billId, bill, retry, reason, priority);
    // The turn in the budget first, then the claim: a refresh waiting for its turn (up to a minute
    // at the service's limit, for thousands of streams opened at once) holds no claim meanwhile, and
    // waits as one small promise rather than a whole requery's calls. A claim lost gives the turn back.
    let turn: Turn | undefined;
    if (upstream.reserveTurn) {
      try {
        turn = await upstream.reserveTurn('requery', { retry, priority });
      } catch (error) {
        log.warn('requery failed; serving the stored status', { billId, error });
        return unanswered(billId, bill, reason, 'failed');
      }
    }
    try {
      const at = now();
      if (!(await store.claimRefresh(billId, at, maxAgeMs, leaseMs))) return { bill, confirmed: false };
      try {
        return await requeryClaimed(billId, bill, retry, reason, priority, turn);
      } finally {
        await store.releaseRefresh(billId, at + leaseMs).catch(() => undefined);
      }
    } finally {
      turn?.release();
    }
  }

  /** No answer to apply: counted as a check, so that a failing service is not asked again on every read. */
  async function unanswered(billId: string, bill: StoredBill, reason: RequeryReason, outcome: 'failed' | 'mismatch'): Promise<Refreshed> {
    onRequery(reason, outcome);
    await store.touchChecked(billId, now()).catch(() => undefined);
    cache.forget(billId);
    return { bill, confirmed: false };
  }

  async function requeryClaimed(billId: string, bill: StoredBill, retry: boolean, reason: RequeryReason, priority: Urgency, turn?: Turn): Promise<Refreshed> {
    const known = bill as StoredBill & { billId: string };
    const answer = await askService(known, retry, priority, asking, turn);
    if (answer === 'not_found' && now() - bill.createdAt >= LOST_AFTER_MS) return lost(known);
    if (typeof answer === 'string') return unanswered(billId, bill, reason, answer === 'not_found' ? 'failed' : answer);
    let record = answer;
    // A bill in-between (paid, being confirmed) is never withdrawn: only the service ends it.
    if (outcomeOf(record, config.statuses) === 'pending' && !isProcessing(record, config.statuses.processing) && overdue(bill, time, config.expiryGraceMs)) {
      record = await cancelOverdue(known, record, priority, asking);
    }
    const checkedAt = now();
    const outcome = outcomeOf(record, config.statuses);
    try {
      let shown = false;
      const show = (stored: ApplyStatusResult) => {
        shown = true;
        const entry = cache.set(stored.bill);
        if (stored.changed) hub.publish(entry.view, stored.bill.statusVersion);
      };
      // Watchers see a requeried status as soon as readers of the store can: the service holds it.
      // What answers to it (this promise, so a callback's 200, and the notice) waits for the disk.
      const result = await store.applyStatus({ billId, record, outcome, checkedAt, reason }, channels, show);
      if (!shown) show(result);
      onRequery(reason, result.changed ? 'changed' : 'unchanged');
      if (result.becameFinal) onBecameFinal();
      if (result.becameFinal && result.bill.outcome === 'paid' && result.bill.orphanedAt !== null) {
        alerts.raise('orphan_paid', 'a bill made for a create whose answer never arrived was paid: a duplicate payment to refund', {
          billId, merchantReference: result.bill.merchantReference, orderId: result.bill.orderId,
        });
      }
      return { bill: result.bill, confirmed: true };
    } catch (error) {
      cache.forget(billId);
      onRequery(reason, 'failed');
      log.error('storing a requeried status failed', { billId, error });
      return { bill, confirmed: false };
    }
  }

  /**
   * The service no longer knows a bill it made (restarted with its bills in memory, or another
   * account): never handed out or asked about again; its order gets a new bill (DESIGN rule 10).
   */
  async function lost(bill: StoredBill & { billId: string }): Promise<Refreshed> {
    const at = now();
    await store.markLost(bill.billId, at);
    cache.forget(bill.billId);
    alerts.raise('bill_lost_at_service', 'the service answered "not found" for a bill it made; it is not used again', {
      billId: bill.billId, merchantReference: bill.merchantReference, orderId: bill.orderId,
    });
    return { bill: { ...bill, lostAt: bill.lostAt ?? at, supersededAt: bill.supersededAt ?? at }, confirmed: false };
  }

  function begin(billId: string, maxAgeMs: number | 'news', retry: boolean, reason: RequeryReason, known?: StoredBill): Flight {
    const flight: Flight = { promise: Promise.resolve(null), urgency: new Urgency(REQUERY_PRIORITY[reason]), followUp: null };
    flight.promise = requery(flight, billId, maxAgeMs, retry, reason, known).finally(() => {
      const next = flight.followUp;
      if (next) {
        begin(billId, 'news', true, next.reason).promise.then(next.resolve, next.reject);
      } else if (flights.get(billId) === flight) {
        flights.delete(billId);
      }
    });
    flights.set(billId, flight);
    return flight;
  }

  return {
    async read(billId, maxAgeMs = config.refreshWindowMs, known, readOptions) {
      const flight = flights.get(billId);
      if (flight) return flight.promise;
      const bill = known ?? cache.get(billId)?.bill ?? (await load(billId));
      if (!bill) return null;
      if (fresh(bill, maxAgeMs)) return { bill, confirmed: true };
      return (flights.get(billId) ?? begin(billId, maxAgeMs, readOptions?.retry ?? true, readOptions?.reason ?? 'poll')).promise;
    },
    async lookup(billId) {
      const hit = cache.get(billId);
      if (hit) return hit;
      const bill = await load(billId);
      if (!bill) return null;
      // Loaded and cached, or (the store out of reach) the entry last seen: its view is serialized already.
      const entry = cache.get(billId) ?? cache.stale(billId);
      return entry?.bill === bill ? entry : cachedBill(bill, config.statuses.processing);
    },
    // A requery waiting for its turn in the budget leaves the cached bill as good as the store's.
    servable: (billId) => cache.get(billId),
    refreshBehind(bill, reason) {
      const billId = bill.billId;
      if (billId === null || fresh(bill, config.refreshWindowMs) || flights.has(billId)) return;
      // Its errors are logged where they happen; what it stores reaches watchers through the hub.
      begin(billId, config.refreshWindowMs, true, reason, bill).promise.catch(() => undefined);
    },
    forget: (billId) => cache.forget(billId),
    news(billId, newsOptions) {
      const flight = flights.get(billId);
      const reason = newsOptions?.reason ?? 'callback';
      if (!flight) return begin(billId, 'news', newsOptions?.retry ?? true, reason, newsOptions?.known).promise;
      // A requery still waiting for its turn goes as urgently as this news: it may bring the payment.
      flight.urgency.raise(REQUERY_PRIORITY[reason]);
      if (!flight.followUp) {
        let resolve!: (r: Refreshed | null) => void;
        let reject!: (e: unknown) => void;
        const promise = new Promise<Refreshed | null>((res, rej) => {
          resolve = res;
          reject = rej;
        });
        flight.followUp = { promise, resolve, reject, reason };
      }
      return flight.followUp.promise;
    },
    inFlight: () => flights.size,
    async idle() {
      while (flights.size > 0) await Promise.allSettled([...flights.values()].map((flight) => flight.promise));
    },
  };
}
