// The store contract, implemented by SQLite (one process) and PostgreSQL (several), both held to
// the same contract tests: every method is async and every multi-step change is one transaction
// inside the store. Storage knows nothing of HTTP.

import type { NoticeAttemptView, NoticeChannel, NoticeState, RequeryReason } from '../../contract/admin.js';
import type { Outcome } from '../../contract/bill-view.js';
import type { CreatedBill, StatusRecord } from '../upstream/types.js';
import type { SqliteDriverName } from './sqlite/driver.js';

// The admin routes show these as they are (contract/admin.ts).
export type { NoticeChannel, NoticeState, RequeryReason } from '../../contract/admin.js';

/** Where a bill is in our own create flow (not the service's status). */
export type CreateState = 'creating' | 'created' | 'failed';

/** One bill as the BFF keeps it. `merchantReference` is ours, unique, made before the create call. */
export interface StoredBill {
  merchantReference: string;
  createState: CreateState;
  billId: string | null;
  orderId: string | null;
  idempotencyKey: string | null;
  /** Exact decimal text: what we asked the service for, as the merchant wrote it (its answer equals it as a decimal, or the create was refused). */
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
  /**
   * Our clock's time at which the bill expires, judged when its create answer arrived (the service's
   * clock cross-checked with the bill's lifetime); null for bills stored before it was kept.
   */
  expiresLocalAt: number | null;
  /** A callback named this bill while its create was still running (durable news): it is requeried once created. */
  earlyNewsAt: number | null;
  /**
   * Local clock, ms: when the BFF withdrew this bill at the service (the cancel was accepted) to make
   * the order another; it is no longer the order's bill, but is still followed until final.
   */
  supersededAt: number | null;
  /**
   * Local clock, ms: when the service confirmed the withdrawal (accepted our cancel). A bill
   * superseded or orphaned without it is cancelled again by the reconciler until the service
   * confirms or calls it final.
   */
  withdrawConfirmedAt: number | null;
  /**
   * Local clock, ms: when the BFF learned that the service made this bill for a create whose answer
   * never arrived (an orphan: found by merchantReference, named in an unusable answer, or by a late
   * callback). It was never shown to a customer; it is withdrawn, and its payment is a duplicate.
   */
  orphanedAt: number | null;
  /** Local clock, ms: when the service answered "not found" for this bill; it is never handed out or asked about again. */
  lostAt: number | null;
  /** Which service made the bill (serviceIdentity: its base URL and key); null for bills stored before it was kept. */
  serviceId: string | null;
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
  /** How the final status was learned (the reason of the requery that brought it); null while pending. */
  finalReason: RequeryReason | null;
  /** Local clock, ms: when the bill became final here; null while pending. */
  finalAt: number | null;
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
  /** Which service the create goes to (serviceIdentity); absent or null: not recorded. */
  serviceId?: string | null;
  createdAt: number;
}

export type InsertResult =
  | { inserted: true; bill: StoredBill }
  /**
   * Nothing was inserted: another bill holds this idempotency key, or is the order's current bill
   * (one not failed, not final and not superseded: an order has one at a time). That bill, untouched.
   */
  | { inserted: false; bill: StoredBill; conflict: 'idempotency_key' | 'order' };

export interface ApplyStatusInput {
  billId: string;
  record: StatusRecord;
  outcome: Outcome;
  /** Local clock, ms. */
  checkedAt: number;
  /** Why the service was asked: kept with the status when it changes (the bill's history); absent: not recorded. */
  reason?: RequeryReason;
}

export interface ApplyStatusResult {
  bill: StoredBill;
  /** Status, outcome or isFinal differ from what was stored. */
  changed: boolean;
  /** This call made the bill final (a notice was queued in the same transaction). */
  becameFinal: boolean;
}


/** A merchant notice in the outbox: one per final bill and channel. */
export interface Notice {
  /** Stable across retries, replays and restarts: the Standard Webhooks `webhook-id`. */
  id: string;
  channel: NoticeChannel;
  billId: string;
  state: NoticeState;
  /** Scheduled attempts made or under way (replays not counted). */
  attempts: number;
  nextAttemptAt: number;
  deliveredAt: number | null;
  lastError: string | null;
  /** A replay the admin asked for, due at this time; null: none. */
  replayAt: number | null;
  /** Set by claimNotices: this claim is a replay (outside the retry schedule). */
  replay: boolean;
  /** When the bill became final and the notice was queued. */
  createdAt: number;
}

/** A notice taken for delivery, with its bill as the claim read it (null if the bill is gone). */
export interface ClaimedNotice extends Notice {
  bill: StoredBill | null;
}

/** One try to deliver a notice, as the delivery log shows it, and whose it is. */
export interface NoticeAttempt extends NoticeAttemptView {
  noticeId: string;
  channel: NoticeChannel;
}

/** What finishNoticeAttempt records: the attempt and what happens to the notice next. */
export interface NoticeAttemptResult {
  attempt: Omit<NoticeAttempt, 'noticeId' | 'channel' | 'number'>;
  /** When a failed notice is tried next; null: the schedule ran out (state `failed`). Ignored when ok, or for a replay. */
  nextAttemptAt: number | null;
}

export interface NoticeQuery {
  state?: NoticeState;
  channel?: NoticeChannel;
  billId?: string;
  /** createdAt at or after (ms). */
  from?: number;
  /** createdAt before (ms). */
  to?: number;
  limit: number;
}

/** One step of a bill's history in the BFF. */
export interface BillEvent {
  at: number;
  /** `created`: the service answered the create; `create_failed`: it refused it; `status`: a requery changed the status. */
  kind: 'created' | 'create_failed' | 'status';
  reason: RequeryReason | null;
  status: number | null;
  statusName: string | null;
  outcome: Outcome | null;
}

/** The merchant's webhook endpoint as the store keeps it: disabled after a 410 until re-enabled. */
export interface WebhookEndpointState {
  url: string;
  disabledAt: number | null;
  disabledReason: string | null;
}

/** A customer bound at the service once, under the merchant's own key. */
export interface BoundCustomer {
  customerKey: string;
  customerId: string;
  boundAt: number;
}

export type CustomerClaim =
  | { kind: 'bound'; customer: BoundCustomer }
  /** This caller binds it now: completeCustomerBind or releaseCustomerBind follows. */
  | { kind: 'claimed' }
  /** Another caller is binding it (its lease has not run out). */
  | { kind: 'busy' };

/** Counts for the metrics. */
export interface NoticeCount {
  channel: NoticeChannel;
  state: NoticeState;
  count: number;
  /** createdAt of the oldest notice in this state, for pending ones; null otherwise. */
  oldestAt: number | null;
}

/** Messages between the processes that share one store (PostgreSQL LISTEN/NOTIFY). */
export interface StoreEvents {
  /**
   * Present when the store itself announces the status changes it commits, soon after each commit,
   * on `channel` as `{from, changes: [{billId, version}, …]}`; `from` is this store's own id.
   * Whoever shares changes between processes then sends none of its own for them.
   */
  statusAnnouncements?: { channel: string; from: string };
  /** Sends `payload` (at most a few KB) to every listener of `channel`, in every process. */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Calls `onMessage` with every payload sent on `channel`; resolves once listening, to a stop
   * function. A listener that lost its connection listens again by itself, then calls
   * `onResumed`: payloads sent meanwhile are lost, and the caller must catch up from the store.
   */
  listen(channel: string, onMessage: (payload: string) => void, onResumed?: () => void): Promise<() => Promise<void>>;
  /**
   * The bills whose status moved at or after `since` (ms on the store's own clock, as `at`
   * answered by an earlier call; null: none, only `at`), each with its status version now, and
   * `at`, the store's time when it read them. A status change committed by a process that died
   * before it announced it is found here (the shared hub's sweep). Changes are stamped when they are
   * written, before their commit: a caller that wants all of them asks again from before `at`.
   */
  statusChangesSince?(since: number | null): Promise<StatusChanges>;
  /**
   * Marks this store's process alive now, on the store's own clock, and answers how many processes
   * were marked alive within the last `withinMs` (this one included, so at least 1): what a limit
   * shared by the live instances is divided by (BILL_API_SHARED_MAX_RPS). One round trip.
   */
  instanceBeat?(withinMs: number): Promise<number>;
  /** Unmarks this store's process (a clean stop): the others count it out at their next beat. */
  instanceLeave?(): Promise<void>;
}

/** What StoreEvents.statusChangesSince answers. */
export interface StatusChanges {
  /** The store's clock (ms) when the changes were read. */
  at: number;
  changes: { billId: string; version: number }[];
}

/** What `exclusive` answers: whether this process ran the work, and its value. */
export type ExclusiveResult<T> = { ran: true; value: T } | { ran: false };

// The store's concerns, each an interface of its own so that a part of the BFF that needs one can
// be typed by it; `Store` is all of them, what each database implements (sqlite/store.ts and postgres/store.ts,
// each composed of one file per concern in sqlite/ and postgres/).

/** Opening, checking and closing the store, and its messages between processes. */
export interface StoreLifecycle {
  /** Creates or upgrades the schema. Safe to call on every start and from several processes. */
  migrate(): Promise<void>;
  /** Resolves when the store answers (health check). */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** The database driver it runs on (`node:sqlite`, `bun:sqlite`, `better-sqlite3`, `pg`), for the start-up log. */
  readonly driver?: SqliteDriverName | 'pg';
  /** Present when several processes share the store and can message each other through it. */
  readonly events?: StoreEvents;
}

/** Bills: our create flow, the statuses the service gave (and the notices a final one queues), the history. */
export interface BillStore {
  /**
   * Inserts a bill in `creating`; when its idempotency key is held, or its order already has a
   * current bill, returns that bill instead (for every process sharing the store).
   */
  insertBill(bill: NewBill): Promise<InsertResult>;
  /**
   * Fills in what create answered (and its expiry on our clock) and moves the bill to `created`.
   * Throws StoreConflictError when the answer's billId belongs to another of our bills (the service
   * repeated an id). The bill answered carries `earlyNewsAt` if a callback came first.
   */
  completeCreate(merchantReference: string, created: CreatedBill, now: number): Promise<StoredBill>;
  /**
   * Records a callback for a bill still in `creating` (durable news); resolves to the bill after
   * it, which tells the caller whether it was still being created (else it now has a billId).
   */
  recordEarlyNews(merchantReference: string, now: number): Promise<StoredBill | null>;
  /**
   * Marks the order's current bill withdrawn at the service (its cancel was accepted), so that the
   * order may have another; a final bill is left as it is.
   */
  supersede(merchantReference: string, now: number): Promise<void>;
  /**
   * Ends a create that made no bill we can use (the service surely did not make it, or settling
   * found none): the bill moves to `failed` and its idempotency key is released, so that the same
   * key makes a new attempt. A create no longer `creating` is left as it is.
   */
  failCreate(merchantReference: string, now: number): Promise<void>;
  /**
   * Keeps a bill the service made under `merchantReference` that was never handed out (an orphan):
   * on that create's row when it has no billId yet (the row moves to `created`, orphaned and
   * superseded, its key released), else on a row of its own (`merchantReference` + `.` + n). A
   * billId already kept is left as it is. Resolves to the orphan's row.
   */
  recordOrphan(merchantReference: string, billId: string, now: number): Promise<StoredBill>;
  /** The service accepted a cancel of this bill (or it is final): the reconciler stops withdrawing it. */
  confirmWithdrawal(billId: string, now: number): Promise<void>;
  /** The service answered "not found" for this bill: it is no longer the order's, and is never asked about again. */
  markLost(billId: string, now: number): Promise<void>;

  getByReference(merchantReference: string): Promise<StoredBill | null>;
  getByBillId(billId: string): Promise<StoredBill | null>;
  getByIdempotencyKey(key: string): Promise<StoredBill | null>;
  /**
   * The order's current bill, whatever any clock says of it: the one not failed, not final and not
   * superseded (still `creating`, or created and pending at the last word of the service).
   */
  findCurrentByOrderId(orderId: string): Promise<StoredBill | null>;
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

  /**
   * Created, non-final, not lost bills whose checkedAt is null or older than `checkedBefore`, the
   * most urgent first: the closest to their expiry (expiresLocalAt, none last), then the longest
   * unchecked (never checked first), then the oldest; with `serviceId`, only that service's (and
   * those stored before it was kept). `after`: the next page, after this bill of the last one
   * (keyset pagination: a bill checked meanwhile is no longer due, none is skipped or given twice).
   */
  listPending(checkedBefore: number, limit: number, serviceId?: string, after?: PendingCursor): Promise<StoredBill[]>;
  /**
   * How many bills listPending(checkedBefore, ∞, serviceId) would give, and the oldest last check
   * among them (checkedAt, or createdAt for a bill never checked; null when there is none).
   */
  countPendingDue(checkedBefore: number, serviceId?: string): Promise<PendingDue>;
  /** Created, non-final, not lost bills superseded or orphaned whose withdrawal the service has not confirmed, oldest first. */
  listWithdrawing(limit: number, serviceId?: string): Promise<StoredBill[]>;
  /** Bills left in `creating` since before `createdBefore` (their create outcome is unknown). */
  listCreating(createdBefore: number, limit: number): Promise<StoredBill[]>;

  /** The steps of a bill's history, oldest first. */
  billHistory(merchantReference: string): Promise<BillEvent[]>;
  /** Bills of orders whose id equals (or, `like`, contains) `orderId`, newest first. */
  findBillsByOrder(orderId: string, match: 'equal' | 'like', limit: number): Promise<StoredBill[]>;
  /** Created bills that are not final yet (metrics). */
  countPending(): Promise<number>;
}

/** Where a page of Store.listPending ended: its last bill's sort key. */
export type PendingCursor = Pick<StoredBill, 'expiresLocalAt' | 'checkedAt' | 'createdAt' | 'merchantReference'>;

/** The pending bills due for a requery: how many, and the oldest last check among them (ms). */
export interface PendingDue {
  count: number;
  oldestCheckedAt: number | null;
}

/** Merchant notices: the outbox, its delivery log and replays, their counts, and the webhook endpoint's state. */
export interface NoticeStore {
  /**
   * Takes up to `limit` notices of `channel` due at `now` (pending and due, or a replay due),
   * leasing each until `now + leaseMs` so that no other worker takes it meanwhile. A scheduled
   * claim counts in `attempts`; a replay does not (`replay: true`).
   */
  claimNotices(channel: NoticeChannel, now: number, leaseMs: number, limit: number): Promise<ClaimedNotice[]>;
  /**
   * Records one attempt of a claimed notice in its delivery log and, in the same transaction, what
   * follows: ok → delivered; a failed scheduled attempt → pending at `nextAttemptAt`, or failed
   * when that is null; a failed replay leaves the schedule as it was. Clears the lease and the replay.
   */
  finishNoticeAttempt(notice: Pick<Notice, 'id' | 'channel' | 'replay'>, result: NoticeAttemptResult): Promise<NoticeAttempt>;
  /** Notices of these bills, for the admin page. */
  noticesFor(billIds: string[]): Promise<Notice[]>;
  getNotice(id: string): Promise<Notice | null>;
  /** Notices matching `query`, newest first. */
  listNotices(query: NoticeQuery): Promise<Notice[]>;
  /** The delivery log of these notices, oldest attempt first. */
  noticeAttempts(noticeIds: string[]): Promise<NoticeAttempt[]>;
  /** Asks for one more delivery of the notice at `now` (same webhook-id). Null: no such notice. */
  replayNotice(id: string, now: number): Promise<Notice | null>;
  /** Replays every notice of `channel` created in [from, to) that is not delivered and has failed at least once; the count. */
  replayFailedNotices(channel: NoticeChannel, from: number, to: number, now: number): Promise<number>;
  /** Notices by channel and state, for the metrics. */
  countNotices(): Promise<NoticeCount[]>;

  /** The endpoint's state; an endpoint never disabled answers disabledAt null. */
  webhookEndpoint(url: string): Promise<WebhookEndpointState>;
  /** Stops deliveries to `url` (it answered 410 Gone) until enableWebhookEndpoint. */
  disableWebhookEndpoint(url: string, now: number, reason: string): Promise<void>;
  /** Delivers to `url` again: pending webhook notices become due at `now`. Resolves to how many. */
  enableWebhookEndpoint(url: string, now: number): Promise<number>;
}

/** Customers bound once at the service, under the merchant's key. */
export interface CustomerStore {
  /**
   * Binds a customer once: its stored id when `customerKey` is bound; else a claim (leased until
   * `now + leaseMs`) for this caller to bind it, unless another holds one.
   */
  claimCustomerBind(customerKey: string, now: number, leaseMs: number): Promise<CustomerClaim>;
  /** Stores the service's id for a claimed key. A key already bound keeps its id, which is answered. */
  completeCustomerBind(customerKey: string, customerId: string, now: number): Promise<BoundCustomer>;
  /** Gives a claim back (the bind failed). */
  releaseCustomerBind(customerKey: string): Promise<void>;
  /** Bound customers, newest first; `before`: boundAt below this. */
  listCustomers(limit: number, before?: number): Promise<BoundCustomer[]>;
}

/** Who may work on what, for every process sharing the store: requery claims and exclusive work. */
export interface ClaimStore {
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
}

/** The whole store: every concern (their intersection), as each database implements it. */
export interface Store extends StoreLifecycle, BillStore, NoticeStore, CustomerStore, ClaimStore {}
