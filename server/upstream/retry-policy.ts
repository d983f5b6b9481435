// Whether a failed exchange is tried again, and after how long: transient failures of operations
// safe to repeat, with jittered exponential backoff; a refusal for load only for news (a payment
// may have landed), in the budget's turn after the service's Retry-After, never for a watcher.
import { priorityNow, type PriorityOf } from './priority.js';
import type { Attempt } from './classify-response.js';

export interface Backoff {
  /** In [0, 1): the jitter. */
  random: () => number;
  baseBackoffMs: number;
  maxBackoffMs: number;
}

export interface Retried {
  /** Retry network errors, timeouts, 5xx and 429 (only for operations safe to repeat). */
  retry: boolean;
  /** Who waits on it (default `customer`). */
  priority?: PriorityOf;
}

/**
 * The pause before the next try after try `n` (0 for the first) failed with `failure`, ms; null:
 * give up. `attempts`: how many tries the operation has in all.
 */
export function retryDelay(
  spec: Retried, failure: Extract<Attempt, { ok: false }>, n: number, attempts: number, backoff: Backoff,
): number | null {
  const giveUp = failure.throttled && priorityNow(spec.priority ?? 'customer') !== 'news';
  if (!spec.retry || !failure.error.retryable || giveUp || n + 1 >= attempts) return null;
  const cap = Math.min(backoff.maxBackoffMs, backoff.baseBackoffMs * 2 ** n);
  // After a refusal for load the budget holds the operation until the Retry-After.
  let delay = failure.throttled ? 0 : Math.floor(backoff.random() * cap);
  // A Retry-After that is no refusal for load (a 502's, say) is still honoured, within the cap.
  if (failure.retryAfterMs !== null && !failure.throttled) delay = Math.max(delay, Math.min(failure.retryAfterMs, backoff.maxBackoffMs));
  return delay;
}
