// What the route groups share inside one sandbox.
import type { BillBook } from './bills.js';
import type { CallbackSender } from './callbacks.js';
import type { CustomerBook } from './customers.js';
import type { Dialect } from './dialect.js';
import type { RateLimiter } from './rate-limit.js';
import type { TimerSet } from './timers.js';
import type { Faults, Op, Refusal, SandboxStats } from './types.js';

export interface Core {
  key: string;
  secret: string;
  publicUrl: string | null;
  pageBase: 0 | 1;
  dialect: Dialect;
  /** The sandbox's clock (the true time plus its offset). */
  now: () => number;
  random: () => number;
  book: BillBook;
  /** Sends the book's callbacks; a create can wait for a bill's to end. */
  callbacks: CallbackSender;
  customers: CustomerBook;
  faults: () => Faults;
  /** Removes and returns the first of the operation's queued refusals (the `refusals` fault). */
  takeRefusal: (op: Op) => Refusal | undefined;
  /** True, and one less to go, when the `createResetAfterMade` fault is still counting. */
  takeCreateReset: () => boolean;
  stats: SandboxStats;
  /** Counts requests per operation for the `rateLimit` fault. */
  limiter: RateLimiter;
  /** Latency and hang timers of responses. */
  timers: TimerSet;
  /**
   * The header a create's request id travels in, where creates are deduplicated by it (the snap
   * mode's X-EXTERNAL-ID), and the bill made for each id; null where they are not.
   */
  createIds: { header: string; billIds: Map<string, string> } | null;
}
