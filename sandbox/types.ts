// The sandbox's public types (see sandbox.ts for createSandbox).
import type { Hono } from 'hono';
import type { DialectOptions, StatusKey } from './dialect.js';
import type { SnapMode } from './snap.js';

export type Op = 'create' | 'list' | 'requery' | 'cancel' | 'bind';
export const OPS: readonly Op[] = ['create', 'list', 'requery', 'cancel', 'bind'];

/** Members an answer states instead of the truth; the bill in the book keeps its true values. */
export interface Lie {
  billId?: string;
  merchantReference?: string;
  /** Digits with an optional fraction; create writes them as a raw JSON number, requery quotes them. */
  billAmount?: string;
  currency?: string;
  /** Requery only: sets status, statusName and isFinal as a record in that status has them. */
  status?: StatusKey;
  /** Create only: the status record has no expiredOn. */
  expiredOn?: number;
}

/** One answer of the `refusals` fault: what an edge or the service says instead of serving. */
export interface Refusal {
  /** HTTP status, 400..599. */
  status: number;
  /** Whole seconds in a `Retry-After` header; none when absent. */
  retryAfterS?: number;
  /** An HTML page, as a load balancer in front of the service answers, instead of an envelope. */
  html?: boolean;
  /** Envelope code; default 1006 for 429, 1001 for 401, 1500 for 5xx, 1003 for other 4xx. */
  code?: number;
}

export interface Faults {
  /** Added to every service operation. */
  latencyMs: number;
  /** 0..1: answer HTTP 500, code 1500, before processing. */
  errorRate: Partial<Record<Op, number>>;
  /** 0..1: hold the response `hangMs`, then 503, before processing. */
  timeoutRate: Partial<Record<Op, number>>;
  hangMs: number;
  /** 0..1: processed, then answered 200 with a body that is not a valid envelope. */
  malformedRate: Partial<Record<Op, number>>;
  /** 0..1: the bill IS created, then the answer hangs `hangMs` and is a 503. */
  createLostResponseRate: number;
  /** 0..1: a delivery is silently not sent (recorded as 'dropped'; not retried: a lost callback). */
  callbackDropRate: number;
  /** 0..1: a callback is delivered twice. */
  callbackDuplicateRate: number;
  /** Random delay range before the first attempt. */
  callbackDelayMs: [number, number];
  /** Callbacks due within this window are sent in shuffled order. */
  callbackReorderWindowMs: number;
  /** Successful create and requery answers state these members instead of the bill's. */
  lies: Partial<Record<'create' | 'requery', Lie>>;
  /** 0..1: cancel answers as a successful cancel would, but the bill stays pending. */
  cancelNoOpRate: number;
  /**
   * Requests allowed per second, per operation (fixed one-second windows on the sandbox's clock);
   * beyond it HTTP 429, code 1006, `Retry-After: retryAfterS`, before anything is done. 0 or
   * absent: no limit.
   */
  rateLimit: Partial<Record<Op, number>>;
  /** Whole seconds in the `Retry-After` of a 429. */
  retryAfterS: number;
  /**
   * Requery and list read a replica this far (ms) behind the sandbox's clock: each bill as it was
   * then, and none created since. Pay, cancel, expiry and callbacks are the book's, not lagged.
   */
  replicaLagMs: number;
  /** A create pays the bill at once, as the pay page would (its callback is sent, with retries). */
  payOnCreate: boolean;
  /** A create's answer waits until the bill's callback delivery has ended, at most `hangMs`. */
  createAnswerAfterCallback: boolean;
  /** Delay between callback attempts; null: the option `callbackRetryDelayMs`. */
  callbackRetryDelayMs: number | null;
  /** A list asking a larger `paging.size` is refused with 1003; null: sizes above 100 are capped. */
  maxPageSize: number | null;
  /** Added to the sandbox's clock in the HTTP `Date` header only (a service whose header is wrong). */
  dateHeaderOffsetMs: number;
  /** Unit of `expiredOn` in the create answer; the bill expires at its true time either way. */
  expiredOnUnit: 'ms' | 's';
  /** The next N creates make the bill, then reset the connection without an answer; each one counts down. */
  createResetAfterMade: number;
  /** Per operation, answers given in turn (each request takes the first) before anything is done. */
  refusals: Partial<Record<Op, Refusal[]>>;
  /** Status-record fields a list may not filter on: such a list is refused with 1003. */
  listRefusedFilters: string[];
  /** Added to `dateTime` in every status record the service states (requery, cancel, list, callbacks). */
  recordDateTimeOffsetMs: number;
  /** Every answer of the service's operations sent with this Content-Encoding, whatever Accept-Encoding says; null: as it is. */
  compress: 'gzip' | 'deflate' | 'br' | null;
  /**
   * A payment (pay page, `pay`, payOnCreate) moves a pending bill to `processing`, not final and
   * not called back, until `confirm` pays it or `decline` fails it.
   */
  processingStep: boolean;
}

/** Section 2.3 as the sandbox writes it: billAmount quoted, references '' when unset. */
export interface StatusRecordWire {
  billId: string;
  merchantReference: string;
  requestReference: string;
  paymentReference: string;
  billAmount: string;
  currency: string;
  status: number;
  statusName: string;
  isFinal: boolean;
  dateTime: number;
}

export interface CallbackAttempt {
  billId: string;
  url: string;
  attempt: number;
  outcome: 'ok' | 'non-200' | 'network-error' | 'dropped';
  httpStatus: number | null;
  at: number;
}

export interface SandboxStats {
  /** Requests received per operation, refused ones included. */
  calls: Record<Op, number>;
  /** Requests refused with 429 by the `rateLimit` fault, per operation. */
  throttled: Record<Op, number>;
  requeryByBill: Record<string, number>;
  callbacks: CallbackAttempt[];
  /** Access tokens handed out (the `snap` mode). */
  tokensGranted: number;
}

export interface SandboxClockState {
  /** Unix milliseconds on the sandbox's clock. */
  now: number;
  offsetMs: number;
}

export interface SandboxOptions {
  /** Default: the demo pair of server/config.ts. */
  key?: string;
  secret?: string;
  /** Base of billUrl, e.g. http://localhost:8787/sandbox; default: the request's origin + mount path. */
  publicUrl?: string;
  /** The true time; the sandbox's clock is this plus `clockOffsetMs`. */
  now?: () => number;
  /**
   * How far the sandbox's clock runs ahead of `now` (negative: behind), in whole milliseconds:
   * expiredOn, dateTime, expiry, rate-limit windows and the `Date` header follow it. Default 0.
   */
  clockOffsetMs?: number;
  random?: () => number;
  billLifetimeMs?: number;
  currency?: string;
  gcRate?: string;
  pageBase?: 0 | 1;
  callbackRetryDelayMs?: number;
  /** 0 turns the timer off (reads still expire bills lazily; `sweep()` still works). */
  sweepIntervalMs?: number;
  faults?: Partial<Faults>;
  /**
   * Plays a service that chose differently: success code, status codes, signer, cancel and bind
   * routes (dialect.ts). Unset parts keep the sandbox's defaults; an inconsistent one throws TypeError.
   */
  dialect?: DialectOptions;
  /**
   * Plays a SNAP-style service (snap.ts): access tokens for an RSA signature at `tokenPath`, each call
   * checked by its bearer token and HMAC-SHA512 (X-SIGNATURE, in place of the dialect's sign), creates
   * deduplicated by X-EXTERNAL-ID.
   */
  snap?: SnapMode;
  /** Used for callbacks. */
  fetch?: typeof fetch;
  /** Serve `/_control` (pay, decline, expire any bill; faults; stats). Default true; never in production. */
  controls?: boolean;
}

/** One bill as the sandbox's book holds it (Sandbox.ledger). */
export interface LedgerEntry {
  billId: string;
  merchantReference: string;
  /** Canonical decimal text. */
  amount: string;
  createdAt: number;
  expiredOn: number;
  /** Each state, oldest first, with the sandbox time it began: pending, processing if it was, then its final state if any. */
  history: { status: StatusKey; at: number }[];
}

export interface Sandbox {
  app: Hono;
  /** Pays a pending bill (processing instead, with the `processingStep` fault); throws 1005 when not pending. */
  pay(billId: string): StatusRecordWire;
  /** Pays a processing bill, its callback sent; throws 1005 when not processing. */
  confirm(billId: string): StatusRecordWire;
  /** Fails a pending or processing bill. */
  decline(billId: string): StatusRecordWire;
  /** Sets expiredOn to now and expires the bill. */
  expire(billId: string): StatusRecordWire;
  /** Expires every pending bill past expiredOn now (the timer calls it every sweepIntervalMs). */
  sweep(): void;
  setFaults(f: Partial<Faults>): void;
  resetFaults(): void;
  faults(): Faults;
  stats(): SandboxStats;
  /** The sandbox's clock: its time now and its offset from the true time. */
  clock(): SandboxClockState;
  /** Moves the sandbox's clock `offsetMs` from the true time; throws SandboxError 1003 when not a whole number in range. */
  setClockOffset(offsetMs: number): void;
  /**
   * Clears bills, customers, faults, stats, rate-limit windows and scheduled callbacks, and releases
   * held answers; the clock goes back to `clockOffsetMs`.
   */
  reset(): void;
  /**
   * Forgets every bill, as a service restarted with its bills in memory: they are not found and
   * their pending callbacks are dropped. Clock, faults, stats and customers stay.
   */
  forget(): void;
  /**
   * The sandbox's own book, for tests that check what the service holds: every bill it knows, with
   * each state it has been in and since when (its clock). A forgotten bill is not in it.
   */
  ledger(): LedgerEntry[];
  /** 'callback' events: CustomEvent<CallbackAttempt>, one per attempt. */
  readonly events: EventTarget;
  /** Resolves when no callback is scheduled or in flight. */
  idle(): Promise<void>;
  /** Stops the sweep, pending callback timers and held (hanging) responses. */
  close(): void;
}
