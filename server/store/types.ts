// The store contract, implemented by SQLite (one process) and PostgreSQL (several), both held to
// the same contract tests: every method is async and every multi-step change is one transaction
// inside the store. Storage knows nothing of HTTP.

import type { Outcome } from '../../contract/bill-view.js';
import type { CreatedBill, StatusRecord } from '../upstream/types.js';

/** Where a bill is in our own create flow (not the service's status). */
export type CreateState = 'creating' | 'created' | 'failed';

/** One bill as the BFF keeps it. `merchantReference` is ours, unique, made before the create call. */
export interface StoredBill {
  merchantReference: string;
  createState: CreateState;
  billId: string | null;
  orderId: string | null;
  idempotencyKey: string | null;
  /** Exact decimal text: what we asked the service for, then what it answered (the same, or the create was refused). */
  amount: string;
  /** The order's amount as the merchant resolved it (decimal text); null for a bill without an order. */
  orderAmount: string | null;
  /** The order's currency as the merchant resolved it, when it said one. */
  orderCurrency: string | null;
  /** Paid while another bill of the same order was already paid: the merchant should refund one. */
  duplicatePayment: boolean;
  /** The browser's capability for this bill (read, watch, cancel). */
  token: string;
  /** Carried in callbackUrl and redirectUrl; a call without it is refused before any requery. */
  hookToken: string;
  billUrl: string | null;
  currency: string | null;
  requireGCAmount: string | null;
  expiredOn: number | null;
  /** Last requeried status; null until the first requery. */
  status: number | null;
  statusName: string;
  isFinal: boolean;
  outcome: Outcome;
  /** The service's dateTime of the stored status. */
  dateTime: number | null;
  /**
   * Moves up by one with every stored change of what a BillView says of the status (status,
   * statusName, isFinal, outcome, dateTime), in the same write: 0 until the first requery. Every
   * process sharing the store reads the same number, so it is the `id:` of SSE frames.
   */
  statusVersion: number;
  /** Local clock, ms: when the stored status was last confirmed by a requery (null: never). */
  checkedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface NewBill {
  merchantReference: string;
  orderId: string | null;
  idempotencyKey: string | null;
  amount: string;
  orderAmount: string | null;
  orderCurrency: string | null;
  token: string;
  hookToken: string;
  createdAt: number;
}

export type InsertResult =
  | { inserted: true; bill: StoredBill }
  /** Another bill already holds this idempotency key: that bill, untouched. */
  | { inserted: false; bill: StoredBill };

export interface ApplyStatusInput {
  billId: string;
  record: StatusRecord;
  outcome: Outcome;
  /** Local clock, ms. */
  checkedAt: number;
}

export interface ApplyStatusResult {
  bill: StoredBill;
  /** Status, outcome or isFinal differ from what was stored. */
  changed: boolean;
  /** This call made the bill final (a notice was queued in the same transaction). */
  becameFinal: boolean;
}

export type NoticeChannel = 'hook' | 'webhook';

/** A merchant notice in the outbox: one per final bill and channel. */
export interface Notice {
  /** Stable across retries and restarts: the Standard Webhooks `webhook-id`. */
  id: string;
  channel: NoticeChannel;
  billId: string;
  attempts: number;
  nextAttemptAt: number;
  deliveredAt: number | null;
  lastError: string | null;
}

/** Messages between the processes that share one store (PostgreSQL LISTEN/NOTIFY). */
export interface StoreEvents {
  /** Sends `payload` (at most a few KB) to every listener of `channel`, in every process. */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Calls `onMessage` with every payload sent on `channel`; resolves once listening, to a stop
   * function. A listener that lost its connection listens again by itself, then calls
   * `onResumed`: payloads sent meanwhile are lost, and the caller must catch up from the store.
   */
  listen(channel: string, onMessage: (payload: string) => void, onResumed?: () => void): Promise<() => Promise<void>>;
}

/** What `exclusive` answers: whether this process ran the work, and its value. */
export type ExclusiveResult<T> = { ran: true; value: T } | { ran: false };

export interface Store {
  /** Creates or upgrades the schema. Safe to call on every start and from several processes. */
  migrate(): Promise<void>;
  /** Resolves when the store answers (health check). */
  ping(): Promise<void>;
  close(): Promise<void>;

  /** Inserts a bill in `creating`; on an idempotency-key conflict returns the holder instead. */
  insertBill(bill: NewBill): Promise<InsertResult>;
  /**
   * Fills in what create answered and moves the bill to `created`. Throws StoreConflictError when
   * the answer's billId belongs to another of our bills (the service repeated an id).
   */
  completeCreate(merchantReference: string, created: CreatedBill, now: number): Promise<StoredBill>;
  /** Marks a create that the service refused, so its idempotency key answers the same error. */
  failCreate(merchantReference: string, now: number): Promise<void>;

  getByReference(merchantReference: string): Promise<StoredBill | null>;
  getByBillId(billId: string): Promise<StoredBill | null>;
  getByIdempotencyKey(key: string): Promise<StoredBill | null>;
  /** The newest created, non-final bill of `orderId` whose expiredOn is after `now`. */
  findOpenByOrderId(orderId: string, now: number): Promise<StoredBill | null>;
  /** The first bill of `orderId` that was paid (not a duplicate payment), if any. */
  findPaidByOrderId(orderId: string): Promise<StoredBill | null>;

  /**
   * Stores a requeried status. A final stored status never changes; when the stored bill is not
   * final and `outcome`/`record.isFinal` make it final, one notice per enabled channel is queued
   * in the same transaction. A bill that becomes paid while another bill of its order is already
   * paid is marked `duplicatePayment` in that transaction too. `onCommitted` gets the same result once the status is visible to
   * readers, which can be before the promise resolves: the promise waits until it is durable.
   */
  applyStatus(
    input: ApplyStatusInput, channels: NoticeChannel[], onCommitted?: (result: ApplyStatusResult) => void,
  ): Promise<ApplyStatusResult>;
  /** Records that a requery happened without storing a status (for example, it failed). */
  touchChecked(billId: string, checkedAt: number): Promise<void>;

  /** Created, non-final bills whose checkedAt is null or older than `checkedBefore`, oldest first. */
  listPending(checkedBefore: number, limit: number): Promise<StoredBill[]>;
  /** Bills left in `creating` since before `createdBefore` (their create outcome is unknown). */
  listCreating(createdBefore: number, limit: number): Promise<StoredBill[]>;

  /**
   * Takes up to `limit` undelivered notices of `channel` due at `now`, leasing each until
   * `now + leaseMs` so that no other worker takes it meanwhile.
   */
  claimNotices(channel: NoticeChannel, now: number, leaseMs: number, limit: number): Promise<Notice[]>;
  markNoticeDelivered(id: string, channel: NoticeChannel, now: number): Promise<void>;
  markNoticeFailed(id: string, channel: NoticeChannel, nextAttemptAt: number, error: string): Promise<void>;
  /** Notices of these bills, for the admin page. */
  noticesFor(billIds: string[]): Promise<Notice[]>;

  /**
   * Takes the right to requery a bill, for every process sharing the store: true when the bill
   * is not final, its status was not checked within `maxAgeMs` (`maxAgeMs <= 0`: whatever its age,
   * for news) and nobody holds an unexpired claim; the claim then lasts until `now + leaseMs`.
   */
  claimRefresh(billId: string, now: number, maxAgeMs: number, leaseMs: number): Promise<boolean>;
  /** Gives a claim back early (the requery is done); `leaseUntil` is `now + leaseMs` of the claim. */
  releaseRefresh(billId: string, leaseUntil: number): Promise<void>;
  /** Runs `work` unless another process sharing the store is running work under `name` (no wait). */
  exclusive<T>(name: string, work: () => Promise<T>): Promise<ExclusiveResult<T>>;
  /** Present when several processes share the store and can message each other through it. */
  readonly events?: StoreEvents;
}
