// Rows as SQLite returns them, and their mapping to the store contract's types. PostgreSQL's rows
// are brought to the same shape first (postgres/rows.ts), so both stores map them here.

import type { Outcome } from '../../contract/bill-view.js';
import type {
  BillEvent, BoundCustomer, CreateState, Notice, NoticeAttempt, NoticeChannel, NoticeState, RequeryReason, StoredBill,
} from './types.js';

export interface BillRow {
  merchant_reference: string;
  bill_id: string | null;
  idempotency_key: string | null;
  order_id: string | null;
  amount: string;
  order_amount: string | null;
  order_currency: string | null;
  duplicate_payment: number;
  token: string;
  hook_token: string;
  create_state: CreateState;
  bill_url: string | null;
  currency: string | null;
  require_gc_amount: string | null;
  expired_on: number | null;
  expires_local_at: number | null;
  early_news_at: number | null;
  superseded_at: number | null;
  withdraw_confirmed_at: number | null;
  orphaned_at: number | null;
  lost_at: number | null;
  service_id: string | null;
  status: number | null;
  status_name: string;
  is_final: number;
  outcome: Outcome;
  date_time: number | null;
  status_version: number;
  checked_at: number | null;
  final_reason: RequeryReason | null;
  final_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface NoticeRow {
  id: string;
  channel: NoticeChannel;
  bill_id: string;
  state: NoticeState;
  attempts: number;
  next_attempt_at: number;
  lease_until: number | null;
  delivered_at: number | null;
  last_error: string | null;
  replay_at: number | null;
  created_at: number;
}

export interface NoticeAttemptRow {
  notice_id: string;
  number: number;
  channel: NoticeChannel;
  replay: number;
  at: number;
  duration_ms: number;
  ok: number;
  http_status: number | null;
  response: string | null;
  error: string | null;
}

export interface BillEventRow {
  at: number;
  kind: BillEvent['kind'];
  reason: RequeryReason | null;
  status: number | null;
  status_name: string | null;
  outcome: BillEvent['outcome'];
}

export interface CustomerRow {
  customer_key: string;
  customer_id: string | null;
  lease_until: number | null;
  bound_at: number | null;
}

export function toStoredBill(r: BillRow): StoredBill {
  return {
    merchantReference: r.merchant_reference,
    createState: r.create_state,
    billId: r.bill_id,
    orderId: r.order_id,
    idempotencyKey: r.idempotency_key,
    amount: r.amount,
    orderAmount: r.order_amount,
    orderCurrency: r.order_currency,
    duplicatePayment: r.duplicate_payment === 1,
    token: r.token,
    hookToken: r.hook_token,
    billUrl: r.bill_url,
    currency: r.currency,
    requireGCAmount: r.require_gc_amount,
    expiredOn: r.expired_on,
    expiresLocalAt: r.expires_local_at ?? null,
    earlyNewsAt: r.early_news_at ?? null,
    supersededAt: r.superseded_at ?? null,
    withdrawConfirmedAt: r.withdraw_confirmed_at ?? null,
    orphanedAt: r.orphaned_at ?? null,
    lostAt: r.lost_at ?? null,
    serviceId: r.service_id ?? null,
    status: r.status,
    statusName: r.status_name,
    isFinal: r.is_final === 1,
    outcome: r.outcome,
    dateTime: r.date_time,
    statusVersion: r.status_version,
    checkedAt: r.checked_at,
    finalReason: r.final_reason,
    finalAt: r.final_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** `claimedAt`: the time of the claim that took it, which makes a due replay this claim's business. */
export function toNotice(r: NoticeRow, claimedAt?: number): Notice {
  return {
    id: r.id,
    channel: r.channel,
    billId: r.bill_id,
    state: r.state,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    deliveredAt: r.delivered_at,
    lastError: r.last_error,
    replayAt: r.replay_at,
    replay: claimedAt !== undefined && r.replay_at !== null && r.replay_at <= claimedAt,
    createdAt: r.created_at,
  };
}

export function toNoticeAttempt(r: NoticeAttemptRow): NoticeAttempt {
  return {
    noticeId: r.notice_id,
    channel: r.channel,
    number: r.number,
    replay: r.replay === 1,
    at: r.at,
    durationMs: r.duration_ms,
    ok: r.ok === 1,
    httpStatus: r.http_status,
    response: r.response,
    error: r.error,
  };
}

export function toBillEvent(r: BillEventRow): BillEvent {
  return { at: r.at, kind: r.kind, reason: r.reason, status: r.status, statusName: r.status_name, outcome: r.outcome };
}

export function toBoundCustomer(r: CustomerRow & { customer_id: string; bound_at: number }): BoundCustomer {
  return { customerKey: r.customer_key, customerId: r.customer_id, boundAt: r.bound_at };
}
