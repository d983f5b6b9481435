// The PostgreSQL store (pg Pool), for several BFF instances on one database. Every multi-step
// change is one transaction that locks the bill row (SELECT … FOR UPDATE); uniqueness is held by
// constraints (INSERT … ON CONFLICT DO NOTHING), so concurrent instances agree without retries.
// Notices are claimed with FOR UPDATE SKIP LOCKED; requery claims are a leased column updated in
// one statement; `exclusive` is a session advisory lock; `events` is LISTEN/NOTIFY.
// The hot path is one round trip per write: a status change is one call of bc_apply_status, and
// notice attempts finished together are one call of bc_finish_notice_attempts (both in migration
// 5). Status changes committed together are announced to other instances in one NOTIFY after
// their commits (coalesce.ts): a transaction that notifies holds the database's notify lock until
// its commit is flushed, which made every status change wait for the one before (600 callbacks/s).

import pg from 'pg';
import type { PoolClient, QueryResultRow } from 'pg';
import type { CreatedBill } from '../upstream/types.js';
import { coalesce } from './coalesce.js';
import { BillNotFoundError, StoreConflictError } from './errors.js';
import { attemptRecord, clipError, noticeId } from './notice-values.js';
import { migratePostgres } from './postgres-migrations.js';
import { attemptRow, noticeRow, num, numOrNull, toBill, toCustomer, toEvent } from './postgres/rows.js';
import { pgUnavailable } from './postgres/unavailable.js';
import { toNotice, toNoticeAttempt } from './rows.js';
import type { NoticeRow } from './rows.js';
import { containsPattern, noticeFilter } from './sql.js';
import type {
  ApplyStatusResult, Notice, NoticeAttempt, NoticeAttemptResult, NoticeChannel, NoticeCount, Store, StoreEvents, StoredBill,
} from './types.js';
import { classifyFailures } from './unavailable.js';

export { pgUnavailable };

export interface PostgresStoreOptions {
  /** Pool size (default 10). */
  max?: number;
  /** Schema to work in (search_path), for tests that share one database. */
  schema?: string;
  /** Clock for bookkeeping the contract does not pass a time for (migrations). */
  now?: () => number;
  /** Called when a LISTEN connection fails (it reconnects by itself). */
  onError?: (error: unknown) => void;
}

/** SQLSTATE of bc_apply_status when the bill is not there. */
const NO_DATA_FOUND = 'P0002';

/** One entry of a status announcement (StoreEvents.statusAnnouncements). */
interface StatusChange {
  billId: string;
  version: number;
}

interface FinishItem {
  notice: Pick<Notice, 'id' | 'channel' | 'replay'>;
  result: NoticeAttemptResult;
}
const LISTEN_RETRY_MS = 500;

type Queryable = Pick<PoolClient, 'query'>;

/**
 * The statements of every callback are named: each connection prepares one once, then only binds
 * and runs it, which spares PostgreSQL a parse and a plan per call. Each answers JSONB, never a
 * row of `bills`: a column that a later migration adds would break a plan prepared before it
 * (0A000 "cached plan must not change result type") on the instances still running.
 */
const named = (name: string, text: string) => (values: unknown[]) => ({ name, text, values });
const applyStatusCall = named('bc_apply_status', 'SELECT bill, changed, became_final FROM bc_apply_status($1, $2, $3, $4, $5, $6, $7, $8, $9)');
const finishAttemptsCall = named('bc_finish_notice_attempts', 'SELECT ord, attempt FROM bc_finish_notice_attempts($1::jsonb)');
const notifyCall = named('bc_notify', 'SELECT pg_notify($1, $2)');

export function createPostgresStore(connectionString: string, options: PostgresStoreOptions = {}): Store {
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => undefined);
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error('schema must be a plain lower-case name');
  const clientConfig = { connectionString, ...(schema ? { options: `-c search_path=${schema}` } : {}) };
  // A database that drops packets instead of refusing: a new connection gives up after 5 s (then
  // 503 store_unavailable), not after the operating system's TCP timeout.
  const pool = new pg.Pool({ ...clientConfig, max: options.max ?? 10, connectionTimeoutMillis: 5000 });
  // An idle client whose server went away: the next query reports it; this must not crash the process.
  pool.on('error', onError);
  const listeners = new Set<() => Promise<void>>();
  // Status changes are announced on this channel; NOTIFY reaches the whole database, so stores in
  // other schemas of it (tests) use their own.
  const statusChannel = schema ? `bill_status_${schema}` : 'bill_status';
  const instance = crypto.randomUUID();

  async function tx<T>(work: (c: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const value = await work(client);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** A bill by one of its unique columns, as JSONB through a named statement (see `named`). */
  async function billWhere(db: Queryable, column: 'merchant_reference' | 'bill_id' | 'idempotency_key', value: string, lock = false) {
    const read = named(`bc_bill_by_${column}${lock ? '_for_update' : ''}`,
      `SELECT to_jsonb(b) AS bill FROM bills b WHERE ${column} = $1${lock ? ' FOR UPDATE' : ''}`);
    const { rows } = await db.query(read([value]));
    return rows[0] ? toBill(rows[0].bill as QueryResultRow) : null;
  }
  /** The order's current bill: not failed, not final, not superseded (the unique index bills_order_current). */
  async function currentOf(orderId: string): Promise<StoredBill | null> {
    const { rows } = await pool.query(`SELECT * FROM bills WHERE order_id = $1 AND create_state <> 'failed' AND NOT is_final
      AND superseded_at IS NULL`, [orderId]);
    return rows[0] ? toBill(rows[0]) : null;
  }
  async function mustGet(db: Queryable, column: 'merchant_reference' | 'bill_id', value: string, lock = false) {
    const bill = await billWhere(db, column, value, lock);
    if (!bill) throw new BillNotFoundError(`No bill with ${column} "${value}"`);
    return bill;
  }

  // Changes announced while a NOTIFY is in flight go together in the next (coalesce.ts); a payload
  // of 50 stays far under NOTIFY's 8,000 bytes.
  const announce = coalesce(async (changes: StatusChange[]) => {
    await pool.query(notifyCall([statusChannel, JSON.stringify({ from: instance, changes })]));
    return changes.map(() => undefined);
  }, 50, setImmediate);

  // Attempts finished while a batch is being written go together in the next (coalesce.ts).
  const finishAttempt = coalesce(async (items: FinishItem[]): Promise<NoticeAttempt[]> => {
    // In notice id order, so that two instances' batches take the notices' locks alike.
    const order = items.map((item, ord) => ({ item, ord })).sort((a, b) => (a.item.notice.id < b.item.notice.id ? -1 : a.item.notice.id > b.item.notice.id ? 1 : 0));
    const input = order.map(({ item: { notice, result: { attempt, nextAttemptAt } }, ord }) => ({
      ord, ...attemptRecord(notice, attempt), next_attempt_at: nextAttemptAt,
    }));
    const { rows } = await pool.query(finishAttemptsCall([JSON.stringify(input)]));
    const attempts = new Array<NoticeAttempt>(items.length);
    for (const r of rows) attempts[Number(r.ord)] = toNoticeAttempt(attemptRow(r.attempt as QueryResultRow));
    return attempts;
  }, 100, setImmediate);

  const events: StoreEvents = {
    statusAnnouncements: { channel: statusChannel, from: instance },
    async notify(channel, payload) {
      await pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async listen(channel, onMessage, onResumed) {
      let stopped = false;
      let client: pg.Client | null = null;
      const connect = async (): Promise<void> => {
        const c = new pg.Client(clientConfig);
        c.on('notification', (n) => {
          if (n.channel === channel && n.payload !== undefined) onMessage(n.payload);
        });
        c.on('error', (error) => {
          onError(error);
          void c.end().catch(() => undefined);
          if (client === c) client = null;
          if (!stopped) setTimeout(() => void reconnect(), LISTEN_RETRY_MS);
        });
        await c.connect();
        await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        client = c;
      };
      const reconnect = async () => {
        if (stopped || client) return;
        try {
          await connect();
        } catch (error) {
          onError(error);
          if (!stopped) setTimeout(() => void reconnect(), LISTEN_RETRY_MS);
          return;
        }
        onResumed?.();
      };
      await connect();
      const stop = async () => {
        stopped = true;
        listeners.delete(stop);
        await client?.end().catch(() => undefined);
        client = null;
      };
      listeners.add(stop);
      return stop;
    },
  };

  return classifyFailures({
    events,
    async migrate() {
      const client = await pool.connect();
      try {
        await migratePostgres(client, now());
      } finally {
        client.release();
      }
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      await Promise.all([...listeners].map((stop) => stop()));
      if (!pool.ended) await pool.end();
    },

    async insertBill(bill) {
      // Any unique key: the idempotency key, or the order's one current bill (bills_order_current).
      const { rows } = await pool.query(
        `INSERT INTO bills (merchant_reference, order_id, idempotency_key, amount, order_amount, order_currency,
           token, hook_token, create_state, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'creating', $9, $9)
         ON CONFLICT DO NOTHING RETURNING *`,
        [bill.merchantReference, bill.orderId, bill.idempotencyKey, bill.amount, bill.orderAmount, bill.orderCurrency,
          bill.token, bill.hookToken, bill.createdAt],
      );
      if (rows[0]) return { inserted: true, bill: toBill(rows[0]) };
      // ON CONFLICT waited for the holder's transaction to commit: these reads see it.
      const keyHolder = bill.idempotencyKey === null ? null : await billWhere(pool, 'idempotency_key', bill.idempotencyKey);
      if (keyHolder) return { inserted: false, bill: keyHolder, conflict: 'idempotency_key' };
      const current = bill.orderId === null ? null : await currentOf(bill.orderId);
      if (current) return { inserted: false, bill: current, conflict: 'order' };
      throw new StoreConflictError('The bill conflicts with another, and no holder of its idempotency key or order was found; try again');
    },
    async completeCreate(ref, created: CreatedBill, at) {
      return tx(async (c) => {
        const bill = await mustGet(c, 'merchant_reference', ref, true);
        if (bill.billId !== null && bill.billId !== created.billId) {
          throw new StoreConflictError(`Bill ${ref} already has billId "${bill.billId}", not "${created.billId}"`);
        }
        if (bill.billId === created.billId && bill.createState === 'created') return bill;
        const held = await c.query<{ merchant_reference: string }>('SELECT merchant_reference FROM bills WHERE bill_id = $1', [created.billId]);
        if (held.rows[0]) {
          throw new StoreConflictError(`billId "${created.billId}" already belongs to bill ${held.rows[0].merchant_reference}, not ${ref}`);
        }
        const { rows } = await c.query(
          // The amount stays the text we asked for: the answer's equals it as a decimal (answer-check.ts).
          `UPDATE bills SET bill_id = $1, bill_url = $2, currency = $3, require_gc_amount = $4,
             expired_on = $5, expires_local_at = $6, create_state = 'created', updated_at = $7
           WHERE merchant_reference = $8 RETURNING *`,
          [created.billId, created.billUrl, created.currency, created.requireGCAmount,
            created.expiredOn, created.expiresLocalAt, at, ref],
        );
        await c.query(`INSERT INTO bill_events (merchant_reference, at, kind) VALUES ($1, $2, 'created')`, [ref, at]);
        return toBill(rows[0]!);
      });
    },
    async recordEarlyNews(ref, at) {
      // Under the row's lock: a completeCreate committing meanwhile is either before (no update,
      // the bill read has its billId) or after (it reads early_news_at).
      const { rows } = await pool.query(
        `UPDATE bills SET early_news_at = COALESCE(early_news_at, $2)
         WHERE merchant_reference = $1 AND create_state = 'creating' RETURNING *`, [ref, at]);
      return rows[0] ? toBill(rows[0]) : billWhere(pool, 'merchant_reference', ref);
    },
    async supersede(ref, at) {
      await pool.query('UPDATE bills SET superseded_at = COALESCE(superseded_at, $2) WHERE merchant_reference = $1 AND NOT is_final', [ref, at]);
    },
    async failCreate(ref, at) {
      await tx(async (c) => {
        await mustGet(c, 'merchant_reference', ref, true);
        const { rowCount } = await c.query(`UPDATE bills SET create_state = 'failed', updated_at = $1
          WHERE merchant_reference = $2 AND create_state = 'creating'`, [at, ref]);
        if (rowCount) await c.query(`INSERT INTO bill_events (merchant_reference, at, kind) VALUES ($1, $2, 'create_failed')`, [ref, at]);
      });
    },

    getByReference: (ref) => billWhere(pool, 'merchant_reference', ref),
    getByBillId: (billId) => billWhere(pool, 'bill_id', billId),
    getByIdempotencyKey: (key) => billWhere(pool, 'idempotency_key', key),
    findCurrentByOrderId: (orderId) => currentOf(orderId),
    async findPaidByOrderId(orderId) {
      const { rows } = await pool.query(`SELECT * FROM bills WHERE order_id = $1 AND outcome = 'paid' AND NOT duplicate_payment
        ORDER BY updated_at, seq LIMIT 1`, [orderId]);
      return rows[0] ? toBill(rows[0]) : null;
    },

    async applyStatus({ billId, record, outcome, checkedAt, reason = null }, channels, onCommitted) {
      // One statement (bc_apply_status, migration 5), its own transaction: PostgreSQL's commit is
      // its sync, visible and durable at once. Then the change is announced, not waited for.
      const unique = [...new Set(channels)];
      let rows: QueryResultRow[];
      try {
        ({ rows } = await pool.query(applyStatusCall([billId, record.status, record.statusName, outcome, record.dateTime,
          checkedAt, reason, unique.map((channel) => noticeId(billId, channel)), unique])));
      } catch (error) {
        if ((error as { code?: string }).code === NO_DATA_FOUND) throw new BillNotFoundError(`No bill with bill_id "${billId}"`);
        throw error;
      }
      const row = rows[0]!;
      const result: ApplyStatusResult = { bill: toBill(row.bill as QueryResultRow), changed: row.changed === true, becameFinal: row.became_final === true };
      if (result.changed) announce({ billId, version: result.bill.statusVersion }).catch(onError);
      try {
        onCommitted?.(result);
      } catch {
        // The caller's own failure: the status is stored all the same, and the promise says so.
      }
      return result;
    },
    async touchChecked(billId, checkedAt) {
      await pool.query('UPDATE bills SET checked_at = $1 WHERE bill_id = $2', [checkedAt, billId]);
    },

    async listPending(checkedBefore, limit) {
      const { rows } = await pool.query(`SELECT * FROM bills
        WHERE create_state = 'created' AND NOT is_final AND (checked_at IS NULL OR checked_at < $1)
        ORDER BY checked_at NULLS FIRST, created_at LIMIT $2`, [checkedBefore, limit]);
      return rows.map(toBill);
    },
    async listCreating(createdBefore, limit) {
      const { rows } = await pool.query(`SELECT * FROM bills WHERE create_state = 'creating' AND created_at < $1
        ORDER BY created_at LIMIT $2`, [createdBefore, limit]);
      return rows.map(toBill);
    },

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
      const due = (r: NoticeRow) => Math.min(r.next_attempt_at, r.replay_at ?? r.next_attempt_at);
      claimed.sort((a, b) => due(a.row) - due(b.row) || (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0));
      return claimed.map(({ row, bill }) => ({ ...toNotice(row, at), bill }));
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

    async billHistory(ref) {
      const { rows } = await pool.query('SELECT * FROM bill_events WHERE merchant_reference = $1 ORDER BY id', [ref]);
      return rows.map(toEvent);
    },
    async findBillsByOrder(orderId, match, limit) {
      const { rows } = match === 'equal'
        ? await pool.query('SELECT * FROM bills WHERE order_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2', [orderId, limit])
        : await pool.query(`SELECT * FROM bills WHERE order_id ILIKE $1 ESCAPE '\\' ORDER BY created_at DESC, seq DESC LIMIT $2`,
          [containsPattern(orderId), limit]);
      return rows.map(toBill);
    },
    async countPending() {
      const { rows } = await pool.query(`SELECT COUNT(*) AS n FROM bills WHERE create_state = 'created' AND NOT is_final`);
      return num(rows[0]?.n);
    },

    async claimCustomerBind(key, at, leaseMs) {
      // One statement takes a free key or an expired claim; the row lock makes a concurrent claim wait and re-check.
      const claimed = await pool.query(`INSERT INTO customers (customer_key, lease_until) VALUES ($1, $2)
        ON CONFLICT (customer_key) DO UPDATE SET lease_until = excluded.lease_until
          WHERE customers.customer_id IS NULL AND (customers.lease_until IS NULL OR customers.lease_until <= $3)
        RETURNING customer_key`, [key, at + leaseMs, at]);
      if (claimed.rowCount) return { kind: 'claimed' };
      const { rows } = await pool.query('SELECT * FROM customers WHERE customer_key = $1', [key]);
      const row = rows[0];
      if (row?.customer_id != null && row.bound_at != null) return { kind: 'bound', customer: toCustomer(row) };
      return { kind: 'busy' };
    },
    async completeCustomerBind(key, customerId, at) {
      const { rows } = await pool.query(`INSERT INTO customers (customer_key, customer_id, bound_at) VALUES ($1, $2, $3)
        ON CONFLICT (customer_key) DO UPDATE SET customer_id = COALESCE(customers.customer_id, excluded.customer_id),
          bound_at = COALESCE(customers.bound_at, excluded.bound_at), lease_until = NULL
        RETURNING *`, [key, customerId, at]);
      return toCustomer(rows[0]!);
    },
    async releaseCustomerBind(key) {
      await pool.query('DELETE FROM customers WHERE customer_key = $1 AND customer_id IS NULL', [key]);
    },
    async listCustomers(limit, before) {
      const { rows } = await pool.query(`SELECT * FROM customers WHERE customer_id IS NOT NULL AND bound_at < $1
        ORDER BY bound_at DESC, customer_key COLLATE "C" LIMIT $2`, [before ?? Number.MAX_SAFE_INTEGER, limit]);
      return rows.map(toCustomer);
    },

    async claimRefresh(billId, at, maxAgeMs, leaseMs) {
      // One statement: the row lock makes a concurrent claim re-check these conditions after us.
      const { rowCount } = await pool.query(
        `UPDATE bills SET refresh_lease_until = $2 + $4::bigint
         WHERE bill_id = $1 AND NOT is_final
           AND ($3::bigint <= 0 OR checked_at IS NULL OR checked_at <= $2 - $3::bigint)
           AND (refresh_lease_until IS NULL OR refresh_lease_until <= $2)`,
        [billId, at, maxAgeMs, leaseMs],
      );
      return rowCount === 1;
    },
    async releaseRefresh(billId, leaseUntil) {
      await pool.query('UPDATE bills SET refresh_lease_until = NULL WHERE bill_id = $1 AND refresh_lease_until = $2',
        [billId, leaseUntil]);
    },
    async exclusive(name, work) {
      // A session lock needs one connection for the whole run; work itself uses the pool.
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        const { rows } = await client.query<{ locked: boolean }>(
          'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked', [name]);
        if (!rows[0]?.locked) return { ran: false };
        try {
          return { ran: true, value: await work() };
        } finally {
          await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [name]).catch((e: Error) => (broken = e));
        }
      } finally {
        client.release(broken);
      }
    },
  }, (error) => pgUnavailable(error, options.max ?? 10));
}
