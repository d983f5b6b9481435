// The pure parts of PostgreSQL's batched work (server/store/postgres/batches.ts): the input of
// bc_apply_statuses and of bc_finish_notice_attempts, and the order claimed notices are answered in;
// and the two lanes status changes are written in (apply-batch.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyStatusesInput, dueAt, finishAttemptsInput, inDueOrder } from '../../../../server/store/postgres/batches.js';
import type { ApplyItem, FinishItem } from '../../../../server/store/postgres/batches.js';
import type { NoticeRow } from '../../../../server/store/rows.js';

const T0 = 1_800_000_000_000;

const item = (id: string, ok: boolean, nextAttemptAt: number | null, replay = false): FinishItem => ({
  notice: { id, channel: 'webhook', replay },
  result: { attempt: { at: T0, durationMs: 3.4, ok, replay, httpStatus: ok ? 204 : 500, response: null, error: ok ? null : 'HTTP 500' }, nextAttemptAt },
});

test('attempts finished together: in notice id order, each with its place in the batch and what follows', () => {
  const input = finishAttemptsInput([item('msg_c', true, null), item('msg_a', false, T0 + 5000), item('msg_b', false, null, true)]);
  assert.deepEqual(input.map((i) => [i.notice_id, i.ord]), [['msg_a', 1], ['msg_b', 2], ['msg_c', 0]]);
  assert.deepEqual(input[0], {
    ord: 1, notice_id: 'msg_a', channel: 'webhook', replay: false, at: T0, duration_ms: 3, ok: false,
    http_status: 500, response: null, error: 'HTTP 500', next_attempt_at: T0 + 5000,
  });
  assert.equal(input[1]!.replay, true);
  assert.equal(input[2]!.next_attempt_at, null);
  // The order is by code unit, as JavaScript compares text: upper case before lower case.
  assert.deepEqual(finishAttemptsInput([item('msg_b', true, null), item('msg_B', true, null)]).map((i) => i.notice_id), ['msg_B', 'msg_b']);
  assert.deepEqual(finishAttemptsInput([]), []);
});

const row = (id: string, next: number, replay: number | null): NoticeRow => ({
  id, channel: 'webhook', bill_id: id, state: 'pending', attempts: 1, next_attempt_at: next, lease_until: null,
  delivered_at: null, last_error: null, replay_at: replay, created_at: T0,
});

test('a notice is due at its next attempt, or at its replay if that is earlier', () => {
  assert.equal(dueAt(row('a', T0 + 10, null)), T0 + 10);
  assert.equal(dueAt(row('a', T0 + 10, T0 + 5)), T0 + 5);
  assert.equal(dueAt(row('a', T0 + 10, T0 + 50)), T0 + 10);
});

test('claimed notices: the earliest due first, then by id', () => {
  const claimed = [row('d', T0 + 30, null), row('c', T0 + 10, null), row('b', T0 + 50, T0 + 10), row('a', T0 + 20, null)].map((r) => ({ row: r }));
  const sorted = inDueOrder(claimed);
  assert.equal(sorted, claimed, 'sorted in place');
  assert.deepEqual(sorted.map((c) => c.row.id), ['b', 'c', 'a', 'd']);
});

const change = (billId: string, status: number, channels: ApplyItem['channels'], reason?: ApplyItem['input']['reason']): ApplyItem => ({
  input: {
    billId, outcome: status === 2 ? 'paid' : 'pending', checkedAt: T0 + 1, ...(reason ? { reason } : {}),
    record: {
      billId, merchantReference: 'ref', requestReference: null, paymentReference: null, billAmount: '1.00', currency: 'IDR',
      status, statusName: status === 2 ? 'Paid' : 'Pending', isFinal: status === 2, dateTime: T0,
    },
  },
  channels,
});

test('status changes stored together: in bill_id order (then as submitted), each with its place and its notices', () => {
  const input = applyStatusesInput([
    change('B2', 2, ['webhook', 'webhook']), change('B1', 1, [], 'callback'), change('B2', 2, ['webhook']),
  ]);
  assert.deepEqual(input.map((i) => [i.bill_id, i.ord]), [['B1', 1], ['B2', 0], ['B2', 2]]);
  assert.deepEqual(input[1], {
    ord: 0, bill_id: 'B2', status: 2, status_name: 'Paid', outcome: 'paid', date_time: T0, checked_at: T0 + 1, reason: null,
    notice_ids: ['msg_B2'], notice_channels: ['webhook'],
  });
  assert.equal(input[0]!.reason, 'callback');
  assert.deepEqual(input[0]!.notice_ids, []);
  assert.deepEqual(applyStatusesInput([]), []);
});
