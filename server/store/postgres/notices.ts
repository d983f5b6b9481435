// The PostgreSQL store's merchant notices: the outbox (claimed with FOR UPDATE SKIP LOCKED,
// attempts finished together recorded in one call of bc_finish_notice_attempts), its delivery log,
// replays and counts, and the webhook endpoint's state.

import type { QueryResultRow } from 'pg';
import { coalesce } from '../coalesce.js';
import { clipError } from '../notice-values.js';
import { toNotice, toNoticeAttempt } from '../rows.js';
import { noticeFilter } from '../sql.js';
import type { NoticeAttempt, NoticeChannel, NoticeCount, NoticeStore } from '../types.js';
import { finishAttemptsInput, inDueOrder } from './batches.js';
import type { FinishItem } from './batches.js';
import { named } from './context.js';
import type { PgContext } from './context.js';
import { attemptRow, noticeRow, num, numOrNull, toBill } from './rows.js';

const finishAttemptsCall = named('bc_finish_notice_attempts', 'SELECT ord, attempt FROM bc_finish_notice_attempts($1::jsonb)');

export function pgNotices({ pool, tx }: PgContext): NoticeStore {
  // Attempts finished while a batch is being written go together in the next (coalesce.ts).
  const finishAttempt = coalesce(async (items: FinishItem[]): Promise<NoticeAttempt[]> => {
    // In notice id order, so that two instances' batches take the notices' locks alike (batches.ts).
    const { rows } = await pool.query(finishAttemptsCall([JSON.stringify(finishAttemptsInput(items))]));
    const attempts = new Array<NoticeAttempt>(items.length);
    for (const r of rows) attempts[Number(r.ord)] = toNoticeAttempt(attemptRow(r.attempt as QueryResultRow));
    return attempts;
  }, 100, setImmediate);

  return {
    async claimNotices(channel: NoticeChannel, at, leaseMs, limit) {
      // A replay that is due is this claim's business and does not count in `attempts`. The bill
      // comes with each notice, so its delivery reads nothing more.
      const { rows } = await pool.query(
        `WITH claimed AS (
           UPDATE notices n SET lease_until = $3,
             attempts = n.attempts + CASE WHEN n.replay_at IS NOT NULL AND n.replay_at <= $2 THEN 0 ELSE 1 END
           FROM (SELECT bill_id, channel FROM notices
                 WHERE channel = $1 AND (lease_until IS NULL OR lease_until <= $2)
                   AND ((state = 'pending' AND next_attempt_at <= $2) OR (replay_at IS NOT NULL AND replay_at <= $2))
                 ORDER BY LEAST(next_attempt_at, COALESCE(replay_at, next_attempt_at)), id COLLATE "C" LIMIT $4
                 FOR UPDATE SKIP LOCKED) due
           WHERE n.bill_id = due.bill_id AND n.channel = due.channel
           RETURNING n.*)
         SELECT claimed.*, to_jsonb(b) AS bill FROM claimed LEFT JOIN bills b ON b.bill_id = claimed.bill_id`,
        [channel, at, at + leaseMs, limit],
      );
      const claimed = rows.map((r) => ({ row: noticeRow(r), bill: r.bill ? toBill(r.bill as QueryResultRow) : null }));
      return inDueOrder(claimed).map(({ row, bill }) => ({ ...toNotice(row, at), bill }));
    },
    finishNoticeAttempt: (notice, result) => finishAttempt({ notice, result }),
    async noticesFor(billIds) {
      if (billIds.length === 0) return [];
      const { rows } = await pool.query(`SELECT * FROM notices WHERE bill_id = ANY($1::text[])
        ORDER BY bill_id COLLATE "C", channel COLLATE "C"`, [billIds]);
      return rows.map((r) => toNotice(noticeRow(r)));
    },
    async getNotice(id) {
      const { rows } = await pool.query('SELECT * FROM notices WHERE id = $1', [id]);
      return rows[0] ? toNotice(noticeRow(rows[0])) : null;
    },
    async listNotices(query) {
      const { where, args } = noticeFilter(query, (n) => `$${n}`);
      args.push(query.limit);
      const { rows } = await pool.query(`SELECT * FROM notices ${where}
        ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $${args.length}`, args);
      return rows.map((r) => toNotice(noticeRow(r)));
    },
    async noticeAttempts(ids) {
      if (ids.length === 0) return [];
      const { rows } = await pool.query(`SELECT * FROM notice_attempts WHERE notice_id = ANY($1::text[])
        ORDER BY notice_id COLLATE "C", number`, [ids]);
      return rows.map((r) => toNoticeAttempt(attemptRow(r)));
    },
    async replayNotice(id, at) {
      const { rows } = await pool.query('UPDATE notices SET replay_at = $1 WHERE id = $2 RETURNING *', [at, id]);
      return rows[0] ? toNotice(noticeRow(rows[0])) : null;
    },
    async replayFailedNotices(channel, from, to, at) {
      const { rowCount } = await pool.query(`UPDATE notices SET replay_at = $1
        WHERE channel = $2 AND created_at >= $3 AND created_at < $4 AND state <> 'delivered'
          AND last_error IS NOT NULL AND replay_at IS NULL`, [at, channel, from, to]);
      return rowCount ?? 0;
    },
    async countNotices() {
      const { rows } = await pool.query(`SELECT channel, state, COUNT(*) AS count,
          MIN(CASE WHEN state = 'pending' THEN created_at END) AS oldest_at
        FROM notices GROUP BY channel, state`);
      return rows.map((r): NoticeCount => ({
        channel: r.channel as NoticeChannel, state: r.state as NoticeCount['state'], count: num(r.count), oldestAt: numOrNull(r.oldest_at),
      }));
    },

    async webhookEndpoint(url) {
      const { rows } = await pool.query('SELECT disabled_at, disabled_reason FROM webhook_endpoints WHERE url = $1', [url]);
      return { url, disabledAt: numOrNull(rows[0]?.disabled_at), disabledReason: (rows[0]?.disabled_reason as string | null | undefined) ?? null };
    },
    async disableWebhookEndpoint(url, at, reason) {
      await pool.query(`INSERT INTO webhook_endpoints (url, disabled_at, disabled_reason) VALUES ($1, $2, $3)
        ON CONFLICT (url) DO UPDATE SET disabled_at = excluded.disabled_at, disabled_reason = excluded.disabled_reason`,
      [url, at, clipError(reason)]);
    },
    async enableWebhookEndpoint(url, at) {
      return tx(async (c) => {
        await c.query('UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL WHERE url = $1', [url]);
        const { rowCount } = await c.query(`UPDATE notices SET next_attempt_at = LEAST(next_attempt_at, $1)
          WHERE channel = 'webhook' AND state = 'pending'`, [at]);
        return rowCount ?? 0;
      });
    },
  };
}
