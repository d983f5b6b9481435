// A fixed rate of one operation of the service, where it documents one (BILL_API_MAX_RPS_BY_OPERATION):
// a token bucket with a tenth of a second's burst.
import { refilled, untilToken } from './rate-rules.js';

export interface Bucket {
  rps: number;
  tokens: number;
  /** When `tokens` was last brought up to date, ms. */
  at: number;
}

/** A tenth of a second's worth, at least 1. */
export const bucketBurst = (rate: number): number => Math.max(1, rate / 10);

/** A full bucket for `rate` requests per second, at `at`. */
export const newBucket = (rate: number, at: number): Bucket => ({ rps: rate, tokens: bucketBurst(rate), at });

/** Refills `bucket` to `at`; when it lets a request go: `at` when now, else when its next token comes. */
export function bucketReadyAt(bucket: Bucket, at: number): number {
  bucket.tokens = refilled(bucket.tokens, at - bucket.at, bucket.rps, bucketBurst(bucket.rps));
  bucket.at = at;
  return bucket.tokens >= 1 ? at : at + untilToken(bucket.tokens, bucket.rps);
}
