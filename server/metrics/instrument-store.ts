// The store with its writes timed (bill_checkout_store_commit_duration_seconds). A Proxy, so that
// every other member (reads, `events`, methods added later) passes through untouched.
import type { Store } from '../store/types.js';
import type { Metrics } from './metrics.js';

/** The methods that write: each resolves once its transaction is durable. */
export const TIMED_WRITES = [
  'insertBill', 'completeCreate', 'recordEarlyNews', 'supersede', 'failCreate', 'recordOrphan', 'confirmWithdrawal', 'markLost', 'applyStatus', 'touchChecked', 'claimNotices', 'finishNoticeAttempt',
  'replayNotice', 'replayFailedNotices', 'disableWebhookEndpoint', 'enableWebhookEndpoint', 'claimCustomerBind',
  'completeCustomerBind', 'releaseCustomerBind', 'claimRefresh', 'releaseRefresh',
] as const satisfies readonly (keyof Store)[];

const timedWrites = new Set<PropertyKey>(TIMED_WRITES);

type AnyMethod = (...args: unknown[]) => unknown;

export function instrumentStore(store: Store, metrics: Pick<Metrics, 'storeCommit'>): Store {
  return new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      // Bound on every access, never cached: a store wrapped by a test may answer differently each time.
      const method = (value as AnyMethod).bind(target);
      if (!timedWrites.has(prop)) return method;
      const operation = String(prop);
      return async (...args: unknown[]) => {
        const started = performance.now();
        try {
          return await method(...args);
        } finally {
          metrics.storeCommit(operation, (performance.now() - started) / 1000);
        }
      };
    },
  });
}
