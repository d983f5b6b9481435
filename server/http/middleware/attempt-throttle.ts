// Failed attempts per client (wrong credentials), counted with the create's rate limit (rate-limit.ts):
// a token bucket per client that only failures draw on. The attempt one too many locks the client
// out for a whole window, whatever it sends meanwhile: a right credential included, so that no
// answer during the lock-out tells a right guess from a wrong one. By then its bucket is full again.
import type { Context } from 'hono';
import { CheckoutError } from '../../domain/errors.js';
import { rateLimit } from './rate-limit.js';

export interface AttemptThrottleOptions {
  /** Failed attempts a client may make at once; the bucket refills this many over `windowMs`. */
  limit: number;
  windowMs: number;
  key: (c: Context) => string;
  now: () => number;
  /** Most clients tracked at once (each map: the buckets, the lock-outs). */
  maxClients?: number;
}

export interface AttemptThrottle {
  /** Whole seconds the client of `c` is still locked out for (its Retry-After), or 0. */
  lockedFor(c: Context): number;
  /** Counts a failed attempt of the client of `c`; true when it was one too many: the client is locked out from now on for a window. */
  failed(c: Context): Promise<boolean>;
}

export function attemptThrottle({ limit, windowMs, key, now, maxClients = 10_000 }: AttemptThrottleOptions): AttemptThrottle {
  const bucket = rateLimit({ limit, windowMs, key, now, maxClients });
  const lockedUntil = new Map<string, number>();
  const nothing = async () => undefined;

  return {
    lockedFor(c) {
      const k = key(c);
      const until = lockedUntil.get(k);
      if (until === undefined) return 0;
      const left = until - now();
      if (left > 0) return Math.max(1, Math.ceil(left / 1000));
      lockedUntil.delete(k);
      return 0;
    },
    async failed(c) {
      try {
        await bucket(c, nothing);
        return false;
      } catch (error) {
        if (!(error instanceof CheckoutError && error.kind === 'too_many')) throw error;
      }
      const t = now();
      if (lockedUntil.size >= maxClients) {
        for (const [k, until] of lockedUntil) if (until <= t) lockedUntil.delete(k);
        // Many clients locked at once leave nothing to prune: drop the oldest, or the map grows without bound.
        if (lockedUntil.size >= maxClients) lockedUntil.delete(lockedUntil.keys().next().value!);
      }
      lockedUntil.set(key(c), t + windowMs);
      return true;
    },
  };
}
