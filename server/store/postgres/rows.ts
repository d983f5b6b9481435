// pg answers BIGINT (and COUNT) as text and BOOLEAN as boolean: these bring its rows to the shape
// SQLite answers (../rows.ts), which both stores then map to the contract's types.

import type { QueryResultRow } from 'pg';
import { toBillEvent, toBoundCustomer, toStoredBill } from '../rows.js';
import type { BillEventRow, BillRow, CustomerRow, NoticeAttemptRow, NoticeRow } from '../rows.js';
import type { BillEvent, BoundCustomer, StoredBill } from '../types.js';

export const num = (v: unknown): number => Number(v);
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function billRow(r: QueryResultRow): BillRow {
  return {
    ...(r as BillRow),
    expired_on: numOrNull(r.expired_on),
    expires_local_at: numOrNull(r.expires_local_at),
    early_news_at: numOrNull(r.early_news_at),
    superseded_at: numOrNull(r.superseded_at),
    withdraw_confirmed_at: numOrNull(r.withdraw_confirmed_at),
    orphaned_at: numOrNull(r.orphaned_at),
    lost_at: numOrNull(r.lost_at),
    status: numOrNull(r.status),
    is_final: r.is_final === true ? 1 : 0,
    duplicate_payment: r.duplicate_payment === true ? 1 : 0,
    date_time: numOrNull(r.date_time),
    status_version: num(r.status_version),
    checked_at: numOrNull(r.checked_at),
    final_at: numOrNull(r.final_at),
    created_at: num(r.created_at),
    updated_at: num(r.updated_at),
  };
}

export function noticeRow(r: QueryResultRow): NoticeRow {
  return {
    ...(r as NoticeRow),
    attempts: num(r.attempts),
    next_attempt_at: num(r.next_attempt_at),
    lease_until: numOrNull(r.lease_until),
    delivered_at: numOrNull(r.delivered_at),
    replay_at: numOrNull(r.replay_at),
    created_at: num(r.created_at),
  };
}

export function attemptRow(r: QueryResultRow): NoticeAttemptRow {
  return {
    ...(r as NoticeAttemptRow),
    replay: r.replay === true ? 1 : 0,
    ok: r.ok === true ? 1 : 0,
    at: num(r.at),
    duration_ms: num(r.duration_ms),
    http_status: numOrNull(r.http_status),
  };
}

export function toCustomer(r: QueryResultRow): BoundCustomer {
  return toBoundCustomer({ ...(r as CustomerRow & { customer_id: string }), bound_at: num(r.bound_at) });
}

export const toBill = (r: QueryResultRow): StoredBill => toStoredBill(billRow(r));

export function toEvent(r: QueryResultRow): BillEvent {
  return toBillEvent({ ...(r as BillEventRow), at: num(r.at), status: numOrNull(r.status) });
}
