// What the route groups share inside one sandbox.
import type { BillBook } from './bills.js';
import type { CustomerBook } from './customers.js';
import type { Dialect } from './dialect.js';
import type { TimerSet } from './timers.js';
import type { Faults, SandboxStats } from './types.js';

export interface Core {
  key: string;
  secret: string;
  publicUrl: string | null;
  pageBase: 0 | 1;
  dialect: Dialect;
  now: () => number;
  random: () => number;
  book: BillBook;
  customers: CustomerBook;
  faults: () => Faults;
  stats: SandboxStats;
  /** Latency and hang timers of responses. */
  timers: TimerSet;
}
