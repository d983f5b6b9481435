import type { Context, MiddlewareHandler } from 'hono';
import { CheckoutError } from '../../domain/errors.js';

export interface RateLimitOptions {
  /** Requests allowed per window and client. */
  limit: number;
  windowMs: number;
  key: (c: Context) => string;
  now: () => number;
  /** Most clients tracked at once; beyond it, expired entries are dropped. */
  maxClients?: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** A token bucket per client: `limit` at once, refilled evenly over the window. */
export function rateLimit({ limit, windowMs, key, now, maxClients = 10_000 }: RateLimitOptions): MiddlewareHandler {
  const buckets = new Map<string, Bucket>();
  const perMs = limit / windowMs;

  const prune = (t: number) => {
    for (const [k, b] of buckets) {
      if (b.tokens + (t - b.updatedAt) * perMs >= limit) buckets.delete(k);
    }
  };

  return async function limitRate(c, next) {
    const t = now();
    const k = key(c);
    const bucket = buckets.get(k) ?? { tokens: limit, updatedAt: t };
    bucket.tokens = Math.min(limit, bucket.tokens + Math.max(0, t - bucket.updatedAt) * perMs);
    bucket.updatedAt = t;
    if (bucket.tokens < 1) {
      buckets.set(k, bucket);
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
      throw new CheckoutError('too_many', 'rate_limited', 'Too many bills created; try again shortly.', retryAfter);
    }
    bucket.tokens -= 1;
    if (!buckets.has(k) && buckets.size >= maxClients) {
      prune(t);
      // Many new addresses at once leave nothing to prune: drop the oldest, or the map grows without bound.
      if (buckets.size >= maxClients) buckets.delete(buckets.keys().next().value!);
    }
    buckets.set(k, bucket);
    await next();
  };
}
