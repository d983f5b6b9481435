// The sandbox's public types (see sandbox.ts for createSandbox).
import type { Hono } from 'hono';
import type { Dialect } from './dialect.js';

export type Op = 'create' | 'list' | 'requery' | 'cancel' | 'bind';
export const OPS: readonly Op[] = ['create', 'list', 'requery', 'cancel', 'bind'];

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
  calls: Record<Op, number>;
  requeryByBill: Record<string, number>;
  callbacks: CallbackAttempt[];
}

export interface SandboxOptions {
  /** Default: the demo pair of server/config.ts. */
  key?: string;
  secret?: string;
  /** Base of billUrl, e.g. http://localhost:8787/sandbox; default: the request's origin + mount path. */
  publicUrl?: string;
  now?: () => number;
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
  dialect?: Partial<Dialect>;
  /** Used for callbacks. */
  fetch?: typeof fetch;
}

export interface Sandbox {
  app: Hono;
  pay(billId: string): StatusRecordWire;
  decline(billId: string): StatusRecordWire;
  /** Sets expiredOn to now and expires the bill. */
  expire(billId: string): StatusRecordWire;
  /** Expires every pending bill past expiredOn now (the timer calls it every sweepIntervalMs). */
  sweep(): void;
  setFaults(f: Partial<Faults>): void;
  resetFaults(): void;
  faults(): Faults;
  stats(): SandboxStats;
  /** Clears bills, customers, faults, stats and scheduled callbacks. */
  reset(): void;
  /** 'callback' events: CustomEvent<CallbackAttempt>, one per attempt. */
  readonly events: EventTarget;
  /** Resolves when no callback is scheduled or in flight. */
  idle(): Promise<void>;
  /** Stops the sweep, pending callback timers and held (hanging) responses. */
  close(): void;
}
