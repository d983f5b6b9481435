// The SQLite store's merchant notices: the outbox (claims leased, attempts recorded with what
// follows), its delivery log, replays and counts, and the webhook endpoint's state.

import { attemptRecord, clipError } from '../notice-values.js';
import { toNotice, toNoticeAttempt, toStoredBill } from '../rows.js';
import type { BillRow, NoticeAttemptRow, NoticeRow } from '../rows.js';
import { noticeFilter } from '../sql.js';
import type { ClaimedNotice, Notice, NoticeAttempt, NoticeAttemptResult, NoticeChannel, NoticeCount, NoticeStore } from '../types.js';
import type { SqliteContext } from './context.js';

export function sqliteNotices({ db, q, writing }: SqliteContext): NoticeStore {
  const claimTx = db.transaction((channel: NoticeChannel, at: number, leaseMs: number, limit: number) => {
    const rows = q(`SELECT * FROM notices
      WHERE channel = ? AND (lease_until IS NULL OR lease_until <= ?)
        AND ((state = 'pending' AND next_attempt_at <= ?) OR (replay_at IS NOT NULL AND replay_at <= ?))
      ORDER BY MIN(next_attempt_at, COALESCE(replay_at, next_attempt_at)), id LIMIT ?`).all(channel, at, at, at, limit) as NoticeRow[];
    const lease = q('UPDATE notices SET lease_until = ?, attempts = attempts + ? WHERE id = ?');
    const billOf = q('SELECT * FROM bills WHERE bill_id = ?');
    return rows.map((r): ClaimedNotice => {
      const claimed = toNotice(r, at);
      const counted = claimed.replay ? 0 : 1;
      lease.run(at + leaseMs, counted, r.id);
      const bill = billOf.get(r.bill_id) as BillRow | undefined;
      return { ...claimed, attempts: r.attempts + counted, bill: bill ? toStoredBill(bill) : null };
    });
  });

  const finishTx = db.transaction((notice: Pick<Notice, 'id' | 'channel' | 'replay'>, result: NoticeAttemptResult): NoticeAttempt => {
    const { attempt } = result;
    const last = q('SELECT MAX(number) AS n FROM notice_attempts WHERE notice_id = ?').get(notice.id) as { n: number | null };
    const record = attemptRecord(notice, attempt);
    const row: NoticeAttemptRow = { ...record, number: (last.n ?? 0) + 1, replay: record.replay ? 1 : 0, ok: record.ok ? 1 : 0 };
    q(`INSERT INTO notice_attempts (notice_id, number, channel, replay, at, duration_ms, ok, http_status, response, error)
       VALUES (@notice_id, @number, @channel, @replay, @at, @duration_ms, @ok, @http_status, @response, @error)`).run(row);
    const replayDone = notice.replay ? ', replay_at = NULL' : '';
    if (attempt.ok) {
      q(`UPDATE notices SET state = 'delivered', delivered_at = COALESCE(delivered_at, ?), lease_until = NULL${replayDone}
         WHERE id = ?`).run(attempt.at, notice.id);
    } else if (notice.replay) {
      q(`UPDATE notices SET last_error = ?, lease_until = NULL, replay_at = NULL WHERE id = ?`).run(row.error, notice.id);
    } else {
      q(`UPDATE notices SET lease_until = NULL, last_error = ?,
           state = CASE WHEN state = 'pending' AND ? IS NULL THEN 'failed' ELSE state END,
           next_attempt_at = COALESCE(?, next_attempt_at)
         WHERE id = ?`).run(row.error, result.nextAttemptAt, result.nextAttemptAt, notice.id);
    }
    return toNoticeAttempt(row);
  });

  return {
    claimNotices(channel, at, leaseMs, limit) {
      return writing(() => claimTx.immediate(channel, at, leaseMs, limit));
    },
    finishNoticeAttempt(notice, result) {
      return writing(() => finishTx.immediate(notice, result));
    },
    async noticesFor(billIds) {
      if (billIds.length === 0) return [];
      const rows = q(`SELECT * FROM notices WHERE bill_id IN (SELECT value FROM json_each(?))
        ORDER BY bill_id, channel`).all(JSON.stringify(billIds)) as NoticeRow[];
      return rows.map((r) => toNotice(r));
    },
    async getNotice(id) {
      const row = q('SELECT * FROM notices WHERE id = ?').get(id) as NoticeRow | undefined;
      return row ? toNotice(row) : null;
    },
    async listNotices(query) {
      const { where, args } = noticeFilter(query, () => '?');
      const rows = q(`SELECT * FROM notices ${where} ORDER BY created_at DESC, id DESC LIMIT ?`).all(...args, query.limit) as NoticeRow[];
      return rows.map((r) => toNotice(r));
    },
    async noticeAttempts(ids) {
      if (ids.length === 0) return [];
      const rows = q(`SELECT * FROM notice_attempts WHERE notice_id IN (SELECT value FROM json_each(?))
        ORDER BY notice_id, number`).all(JSON.stringify(ids)) as NoticeAttemptRow[];
      return rows.map(toNoticeAttempt);
    },
    replayNotice(id, at) {
      return writing(() => {
        const row = q('UPDATE notices SET replay_at = ? WHERE id = ? RETURNING *').get(at, id) as NoticeRow | undefined;
        return row ? toNotice(row) : null;
      });
    },
    replayFailedNotices(channel, from, to, at) {
      return writing(() => q(`UPDATE notices SET replay_at = ?
        WHERE channel = ? AND created_at >= ? AND created_at < ? AND state <> 'delivered'
          AND last_error IS NOT NULL AND replay_at IS NULL`).run(at, channel, from, to).changes);
    },
    async countNotices() {
      const rows = q(`SELECT channel, state, COUNT(*) AS count, MIN(CASE WHEN state = 'pending' THEN created_at END) AS oldest_at
        FROM notices GROUP BY channel, state`).all() as { channel: NoticeChannel; state: NoticeCount['state']; count: number; oldest_at: number | null }[];
      return rows.map((r) => ({ channel: r.channel, state: r.state, count: r.count, oldestAt: r.oldest_at }));
    },

    async webhookEndpoint(url) {
      const row = q('SELECT disabled_at, disabled_reason FROM webhook_endpoints WHERE url = ?').get(url) as
        { disabled_at: number | null; disabled_reason: string | null } | undefined;
      return { url, disabledAt: row?.disabled_at ?? null, disabledReason: row?.disabled_reason ?? null };
    },
    disableWebhookEndpoint(url, at, reason) {
      return writing(() => {
        q(`INSERT INTO webhook_endpoints (url, disabled_at, disabled_reason) VALUES (?, ?, ?)
           ON CONFLICT (url) DO UPDATE SET disabled_at = excluded.disabled_at, disabled_reason = excluded.disabled_reason`)
          .run(url, at, clipError(reason));
      });
    },
    enableWebhookEndpoint(url, at) {
      return writing(() => db.transaction(() => {
        q('UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL WHERE url = ?').run(url);
        return q(`UPDATE notices SET next_attempt_at = MIN(next_attempt_at, ?) WHERE channel = 'webhook' AND state = 'pending'`)
          .run(at).changes;
      }).immediate());
    },
  };
}
