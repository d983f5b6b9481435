// The admin routes' answers (/api/admin/*, Bearer ADMIN_TOKEN): what the merchant's admin page and
// the merchant's own tools read. Times are unix milliseconds of the BFF's clock unless named otherwise.
import type { Outcome } from './bill-view.js';

/**
 * Why the service was asked about a bill; the reason of the requery that made it final is how it was
 * learned. `follow_up`: news the service had not confirmed yet (a callback or return whose requery
 * was not final, a bill past its expiry), asked again on a short schedule.
 */
export const REQUERY_REASONS = ['poll', 'stream', 'callback', 'return', 'reconcile', 'cancel', 'create', 'follow_up'] as const;
export type RequeryReason = (typeof REQUERY_REASONS)[number];

export type NoticeChannel = 'hook' | 'webhook';

/**
 * `pending`: tried again at `nextAttemptAt`; `delivered`: the merchant answered 2xx (the hook
 * returned); `failed`: the retry schedule ran out, only a replay sends it again.
 */
export type NoticeState = 'pending' | 'delivered' | 'failed';

/** One try to deliver a notice: a line of the delivery log. */
export interface NoticeAttemptView {
  /** 1, 2, … over every attempt of the notice, replays included. */
  number: number;
  replay: boolean;
  at: number;
  durationMs: number;
  ok: boolean;
  /** The merchant's HTTP status; null for the in-process hook or when no answer came. */
  httpStatus: number | null;
  /** The first 200 bytes of the merchant's answer. */
  response: string | null;
  error: string | null;
}

/** A notice to the merchant of one final bill on one channel, with its delivery log. */
export interface NoticeView {
  /** The Standard Webhooks `webhook-id`: the same on every retry and replay. */
  id: string;
  channel: NoticeChannel;
  billId: string;
  state: NoticeState;
  /** Scheduled attempts made (replays not counted). */
  attempts: number;
  /** When the next scheduled attempt is due (pending only). */
  nextAttemptAt: number | null;
  deliveredAt: number | null;
  lastError: string | null;
  /** A replay is queued, due at this time. */
  replayAt: number | null;
  /** When the bill became final and the notice was queued. */
  createdAt: number;
  log: NoticeAttemptView[];
}

/** What the BFF stored about a bill of the service's list; null for bills this BFF did not create. */
export interface LocalBill {
  outcome: Outcome;
  /** True when every notice of the bill was delivered; false while one is not, or when none was sent. */
  notified: boolean;
  /** The bill's webhook notice state; `none` while the bill is pending or when no channel is configured. */
  notice: NoticeState | 'none';
  /** The merchant's order the bill pays; null for a bill created with an amount. */
  orderId: string | null;
  /** The amount the merchant's server resolved for the order (decimal text). */
  orderAmount: string | null;
  orderCurrency: string | null;
  /** Paid although another bill of the same order was already paid: the customer is owed a refund. */
  duplicatePayment: boolean;
  /** When the BFF learned the service made this bill for a create whose answer never arrived (never shown; withdrawn); null otherwise. */
  orphanedAt: number | null;
  /** When the service answered "not found" for this bill (lost at the service; never used again); null otherwise. */
  lostAt: number | null;
  /** How the final status was learned; null while pending. */
  finalReason: RequeryReason | null;
  finalAt: number | null;
  createdAt: number;
}

/** One step of a bill's history in the BFF. */
export interface BillEventView {
  at: number;
  /** `created`: the service answered the create; `create_failed`: it refused it; `status`: a requery changed the status. */
  kind: 'created' | 'create_failed' | 'status';
  reason: RequeryReason | null;
  status: number | null;
  statusName: string | null;
  outcome: Outcome | null;
}

/** GET /api/admin/bills/:billId */
export interface AdminBillDetail {
  bill: {
    billId: string;
    merchantReference: string;
    billAmount: string;
    currency: string | null;
    status: number | null;
    statusName: string;
    isFinal: boolean;
    /** The service's time of the status (service clock). */
    dateTime: number | null;
    expiredOn: number | null;
    /** When the BFF last confirmed the status with a requery. */
    checkedAt: number | null;
  };
  local: LocalBill;
  history: BillEventView[];
  notices: NoticeView[];
}

/** The merchant's webhook endpoint (MERCHANT_WEBHOOK_URL); null in answers when none is configured. */
export interface WebhookEndpointView {
  /** Without userinfo. */
  url: string;
  enabled: boolean;
  disabledAt: number | null;
  disabledReason: string | null;
  /** How many secrets sign each notice (rotation). */
  secrets: number;
}

/** GET /api/admin/notices */
export interface NoticeList {
  notices: NoticeView[];
  webhook: WebhookEndpointView | null;
}

/** POST /api/admin/notices/:id/replay */
export interface NoticeReplayed {
  /** The notice after the replay was tried here (its log then has the new attempt), or queued for another instance. */
  notice: NoticeView;
}

/** POST /api/admin/notices/replay */
export interface NoticesReplayed {
  replayed: number;
}

/** POST /api/admin/customers: the service's id for the merchant's customer, bound once. */
export interface BoundCustomerView {
  /** The merchant's own key for the customer; null when the bind named none (then nothing is remembered). */
  customerKey: string | null;
  customerId: string;
  /** `new`: the service was called now; `existing`: the key was bound before, the service was not called. */
  bound: 'new' | 'existing';
  boundAt: number | null;
}

/** GET /api/admin/customers */
export interface CustomerList {
  customers: { customerKey: string; customerId: string; boundAt: number }[];
}

/** A status record of the service's list (section 2.3 of the spec), amounts as decimal text. */
export interface ServiceBillRecord {
  billId: string;
  merchantReference: string;
  requestReference: string | null;
  paymentReference: string | null;
  billAmount: string;
  currency: string;
  status: number;
  statusName: string;
  isFinal: boolean;
  dateTime: number;
}

/**
 * POST /api/admin/bills: the service's list, each row with what this BFF stored. A filter named
 * `orderId` is the BFF's own: it finds this BFF's bills of matching orders and asks the service for
 * those references only (the service knows no order ids).
 */
export interface AdminBillList {
  lists: (ServiceBillRecord & { local: LocalBill | null })[];
  total: number;
  paging: { index: number; size: number } | null;
}
