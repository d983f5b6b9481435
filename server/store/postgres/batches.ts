// The pure parts of the PostgreSQL store's work in batches: the input of one call of
// bc_apply_statuses for status changes stored together (apply-batch.ts), the input of one call of
// bc_finish_notice_attempts for attempts finished together (notices.ts), and the order claimed
// notices are answered in (an UPDATE … RETURNING keeps none).

import { attemptRecord, noticeId } from '../notice-values.js';
import type { AttemptRecord } from '../notice-values.js';
import type { NoticeRow } from '../rows.js';
import type { ApplyStatusInput, Notice, NoticeAttemptResult, NoticeChannel } from '../types.js';

/** One status change to store: applyStatus's arguments. */
export interface ApplyItem {
  input: ApplyStatusInput;
  channels: NoticeChannel[];
}

/** One element of bc_apply_statuses' JSON array: bc_apply_status's arguments, and `ord`, the item's place in the batch. */
export interface ApplyInput {
  ord: number;
  bill_id: string;
  status: number;
  status_name: string;
  outcome: string;
  date_time: number;
  checked_at: number;
  reason: string | null;
  notice_ids: string[];
  notice_channels: NoticeChannel[];
}

/**
 * The JSON array of bc_apply_statuses for `items`: in bill_id order (then as submitted), so that
 * two instances' batches lock bills alike and two changes of one bill apply in the order they came;
 * each element says its item's place (`ord`).
 */
export function applyStatusesInput(items: ApplyItem[]): ApplyInput[] {
  const order = items.map((item, ord) => ({ item, ord }))
    .sort((a, b) => byText(a.item.input.billId, b.item.input.billId) || a.ord - b.ord);
  return order.map(({ item: { input, channels }, ord }) => {
    const unique = [...new Set(channels)];
    return {
      ord, bill_id: input.billId, status: input.record.status, status_name: input.record.statusName, outcome: input.outcome,
      date_time: input.record.dateTime, checked_at: input.checkedAt, reason: input.reason ?? null,
      notice_ids: unique.map((channel) => noticeId(input.billId, channel)), notice_channels: unique,
    };
  });
}

/** One attempt to record: whose, and what happens to the notice next. */
export interface FinishItem {
  notice: Pick<Notice, 'id' | 'channel' | 'replay'>;
  result: NoticeAttemptResult;
}

/** One element of bc_finish_notice_attempts' JSON array: `ord` is the item's place in the batch. */
export type FinishInput = { ord: number } & AttemptRecord & { next_attempt_at: number | null };

/** Text order by code unit, as the store compares notice ids. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The JSON array of bc_finish_notice_attempts for `items`: in notice id order, so that two
 * instances' batches take the notices' locks alike; each element says its item's place (`ord`).
 */
export function finishAttemptsInput(items: FinishItem[]): FinishInput[] {
  const order = items.map((item, ord) => ({ item, ord })).sort((a, b) => byText(a.item.notice.id, b.item.notice.id));
  return order.map(({ item: { notice, result: { attempt, nextAttemptAt } }, ord }) => ({
    ord, ...attemptRecord(notice, attempt), next_attempt_at: nextAttemptAt,
  }));
}

/** When a notice is due: its next scheduled attempt, or its replay if that is earlier. */
export const dueAt = (r: Pick<NoticeRow, 'next_attempt_at' | 'replay_at'>): number => Math.min(r.next_attempt_at, r.replay_at ?? r.next_attempt_at);

/** Claimed notices sorted (in place) the way the claim chose them: the earliest due first, then by id. */
export function inDueOrder<T extends { row: NoticeRow }>(claimed: T[]): T[] {
  return claimed.sort((a, b) => dueAt(a.row) - dueAt(b.row) || byText(a.row.id, b.row.id));
}
