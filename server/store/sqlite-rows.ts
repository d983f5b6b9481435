// Rows as SQLite returns them, and their mapping to the store contract's types.

import type { Outcome } from '../../contract/bill-view.js';
import type { CreateState, Notice, NoticeChannel, StoredBill } from './types.js';

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
  status: number | null;
  status_name: string;
  is_final: number;
  outcome: Outcome;
  date_time: number | null;
  status_version: number;
  checked_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface NoticeRow {
  id: string;
  channel: NoticeChannel;
  bill_id: string;
  attempts: number;
  next_attempt_at: number;
  lease_until: number | null;
  delivered_at: number | null;
  last_error: string | null;
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
    status: r.status,
    statusName: r.status_name,
    isFinal: r.is_final === 1,
    outcome: r.outcome,
    dateTime: r.date_time,
    statusVersion: r.status_version,
    checkedAt: r.checked_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function toNotice(r: NoticeRow): Notice {
  return {
    id: r.id,
    channel: r.channel,
    billId: r.bill_id,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    deliveredAt: r.delivered_at,
    lastError: r.last_error,
  };
}

/** The notice id: the Standard Webhooks `webhook-id`, the same on every retry of one notice. */
export function noticeId(billId: string, channel: NoticeChannel): string {
  return channel === 'webhook' ? `msg_${billId}` : `msg_${billId}_${channel}`;
}
