import type { Logger } from '../../log.js';
import type { StoreEvents } from '../../store/types.js';
import type { BillView } from '../../../contract/bill-view.js';

/** `version`: the stored bill's statusVersion of this view (the same in every process). */
export type HubListener = (view: BillView, version: number) => void;

/** Pub/sub of bill changes by billId: in-process, or across the processes sharing a store. */
export interface Hub {
  subscribe(billId: string, listener: HubListener): () => void;
  /** Delivers to local listeners at once, and to other processes when the hub is shared. */
  publish(view: BillView, version: number): void;
  /** Listeners currently subscribed in this process, all bills. */
  size(): number;
  /** The bills that have listeners in this process. */
  watched(): string[];
  /** Whether `billId` has listeners in this process. */
  watching(billId: string): boolean;
  /** Resolves once changes from other processes arrive (at once for an in-process hub). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function createHub(): Hub {
  const listeners = new Map<string, Set<HubListener>>();
  let count = 0;
  return {
    subscribe(billId, listener) {
      let set = listeners.get(billId);
      if (!set) listeners.set(billId, (set = new Set()));
      set.add(listener);
      count++;
      return () => {
        if (set.delete(listener)) count--;
        if (set.size === 0 && listeners.get(billId) === set) listeners.delete(billId);
      };
    },
    publish(view, version) {
      for (const listener of [...(listeners.get(view.billId) ?? [])]) listener(view, version);
    },
    size: () => count,
    watched: () => [...listeners.keys()],
    watching: (billId) => listeners.has(billId),
    ready: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

export interface SharedHubOptions {
  log: Logger;
  /** The store's channel name (default `bill_status`). */
  channel?: string;
  /** Tells this process's own messages apart (default: a random UUID). */
  instance?: string;
  /** Sees each change from another process before this process's watchers do (to drop a cached copy). */
  onRemote?: (billId: string) => void;
  /**
   * The stored views of these bills, read after the LISTEN connection came back (changes sent
   * while it was down are lost): each is handed to this process's watchers, which skip what they
   * already showed. Without it, watchers catch up on their next requery.
   */
  reload?: (billIds: string[]) => Promise<VersionedView[]>;
  /**
   * How often (ms) the hub asks the store which bills' statuses moved since its last sweep
   * (StoreEvents.statusChangesSince) and catches up, through `reload`, the ones watched here whose
   * version is newer than what they were shown: a change whose process died between its commit
   * and its announcement reaches watchers within this. Default 5000; 0 turns the sweep off; it
   * needs `reload` and a store that answers statusChangesSince.
   */
  sweepMs?: number;
  /**
   * How far (ms) before the previous sweep each sweep looks again: longer than a status change's
   * transaction may last after it stamped its moment (SWEEP_MARGIN_MS).
   */
  sweepMarginMs?: number;
}

/** The default of SharedHubOptions.sweepMs. */
export const SWEEP_MS = 5_000;
/**
 * The default of SharedHubOptions.sweepMarginMs. The store stamps a status change on its own clock
 * when the UPDATE runs (migration 10), so what a sweep may read too early is only the rest of its
 * transaction: the other changes of its batch (at most 64, each a row lock that waits at most for
 * another instance's batch) and the commit's WAL flush, milliseconds, at worst a stalled disk's
 * seconds. Ten seconds is far over that and, at 200 changes/s, keeps a sweep at about
 * (5 s + 10 s) × 200 = 3,000 rows of a bill id and a version.
 */
export const SWEEP_MARGIN_MS = 10_000;

export interface VersionedView {
  view: BillView;
  version: number;
}

/**
 * What another process sent: the view itself (a store that does not announce its changes, or a
 * process of an older version in a rolling upgrade), or the store's announcement of a change.
 */
interface Message {
  from: string;
  view?: BillView;
  /** Absent in messages of a process that runs an older version of this code. */
  version?: number;
  /** The store's announcement: which bills changed, to what versions. */
  changes?: { billId?: unknown; version?: unknown }[];
}

/**
 * The hub across processes (PostgreSQL LISTEN/NOTIFY through the store): a change is delivered
 * locally at once. When the store announces the changes it commits (StoreEvents.statusAnnouncements),
 * another process drops its cached copies and reads the bills it has watchers of, once each, for
 * them. Otherwise the hub sends `{from, view}`
 * itself; a BillView is a few hundred bytes, well under NOTIFY's 8 KB payload limit.
 */
export function createSharedHub(events: StoreEvents, options: SharedHubOptions): Hub {
  const { log } = options;
  const announced = events.statusAnnouncements;
  const channel = announced?.channel ?? options.channel ?? 'bill_status';
  const instance = announced?.from ?? options.instance ?? crypto.randomUUID();
  const local = createHub();
  const changesSince = events.statusChangesSince?.bind(events);
  const sweepMs = options.sweepMs ?? SWEEP_MS;
  const marginMs = options.sweepMarginMs ?? SWEEP_MARGIN_MS;
  const sweeps = changesSince !== undefined && options.reload !== undefined && sweepMs > 0;
  // With the sweep, the highest version handed to this process's watchers of each watched bill, so
  // that a sweep reads again only the bills whose stored version is newer (each sweep drops the
  // bills no longer watched).
  const shown = new Map<string, number>();
  const publishLocal = (view: BillView, version: number) => {
    if (sweeps && local.watching(view.billId) && version > (shown.get(view.billId) ?? -1)) shown.set(view.billId, version);
    local.publish(view, version);
  };
  const catchUp = async (billIds = local.watched()) => {
    if (!options.reload || billIds.length === 0) return;
    for (const { view, version } of await options.reload(billIds)) publishLocal(view, version);
  };
  const onResumed = () => {
    log.info('status messages resumed; watchers catch up from the store', { watched: local.watched().length });
    catchUp().catch((error: unknown) => log.warn('catching up after LISTEN resumed failed', { error }));
  };
  const listening = events.listen(channel, (payload) => {
    let message: Message;
    try {
      message = JSON.parse(payload) as Message;
    } catch (error) {
      log.warn('status message is not JSON; ignored', { error });
      return;
    }
    if (typeof message !== 'object' || message === null || message.from === instance) return;
    if (message.view === undefined && Array.isArray(message.changes)) {
      const watched: string[] = [];
      for (const { billId } of message.changes) {
        if (typeof billId !== 'string') continue;
        options.onRemote?.(billId);
        if (local.watching(billId)) watched.push(billId);
      }
      catchUp(watched).catch((error: unknown) => log.warn('reading changed bills failed', { billIds: watched, error }));
      return;
    }
    const view = message.view;
    if (typeof view?.billId === 'string') {
      options.onRemote?.(view.billId);
      if (typeof message.version === 'number') {
        publishLocal(view, message.version);
      } else {
        // From a process without versions: the stored bill has one (PostgreSQL keeps it).
        catchUp([view.billId]).catch((error: unknown) => log.warn('reading a changed bill failed', { billId: view.billId, error }));
      }
    }
  }, onResumed);
  listening.catch(() => undefined); // reported by ready()

  // The catch-up sweep: what the store committed but never announced (its process died in between).
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sweeping: Promise<void> | null = null;
  // From the store's `at` of the last sweep that caught up, less the margin; null before the first.
  let since: number | null = null;
  const sweep = async () => {
    // Idle (nothing watched here): only the clock is read, so the next window still starts in time.
    const read = await changesSince!(local.size() === 0 ? null : since);
    const due = new Set<string>();
    for (const { billId, version } of read.changes) {
      if (local.watching(billId) && version > (shown.get(billId) ?? -1)) due.add(billId);
    }
    for (const billId of shown.keys()) if (!local.watching(billId)) shown.delete(billId);
    if (due.size > 0) {
      // Most often a change whose instance died before announcing it (or whose message is yet to come).
      log.info('status sweep: watched bills changed without this process showing it; watchers catch up from the store', { bills: due.size });
      await catchUp([...due]);
    }
    // Moved only once caught up: a failed sweep is covered by the next one's wider window.
    since = read.at - marginMs;
  };
  const schedule = (ms: number) => {
    if (closed) return;
    timer = setTimeout(() => {
      sweeping = sweep()
        .catch((error: unknown) => log.warn('status sweep failed; tried again at the next', { error }))
        .finally(() => {
          sweeping = null;
          schedule(sweepMs);
        });
    }, ms);
  };
  if (sweeps) schedule(0);
  return {
    subscribe: local.subscribe,
    size: local.size,
    watched: local.watched,
    watching: local.watching,
    publish(view, version) {
      publishLocal(view, version);
      if (announced) return; // the store told the others when it committed the change
      events.notify(channel, JSON.stringify({ from: instance, view, version } satisfies Message)).catch((error: unknown) => {
        log.warn('status notify failed; other instances see it on their next requery', { billId: view.billId, error });
      });
    },
    ready: async () => {
      await listening;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await sweeping;
      const stop = await listening.catch(() => null);
      await stop?.();
    },
  };
}
