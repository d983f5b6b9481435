import type { BillView } from '../../widget/bill-view.js';

export type HubListener = (view: BillView) => void;

/** In-process pub/sub of bill changes by billId (a PostgreSQL LISTEN/NOTIFY can feed it later). */
export interface Hub {
  subscribe(billId: string, listener: HubListener): () => void;
  publish(view: BillView): void;
  /** Listeners currently subscribed, all bills. */
  size(): number;
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
    publish(view) {
      for (const listener of [...(listeners.get(view.billId) ?? [])]) listener(view);
    },
    size: () => count,
  };
}
