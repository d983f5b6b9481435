// The SQLite store (sqlite-driver.ts). Durable: a write resolves once its WAL frames are on disk
// (sqlite-wal-sync.ts syncs them off the event loop), so a final status and its notices are
// stored when applyStatus resolves. Every write is one IMMEDIATE transaction, which takes the
// write lock up front: several connections (or processes) on one file serialize instead of
// failing with SQLITE_BUSY halfway through.

import { openSqlite } from './sqlite-driver.js';
import type { SqliteDriverName, SqliteStatement as Statement } from './sqlite-driver.js';
import type { CreatedBill } from '../upstream/types.js';
import { BillNotFoundError, StoreConflictError } from './errors.js';
import { startCheckpointer } from './sqlite-checkpointer.js';
import type { Checkpointer } from './sqlite-checkpointer.js';
import { migrateSqlite } from './sqlite-migrations.js';
import { attemptRecord, clipError, noticeId } from './notice-values.js';
import { toBillEvent, toBoundCustomer, toNotice, toNoticeAttempt, toStoredBill } from './rows.js';
import type { BillEventRow, BillRow, CustomerRow, NoticeAttemptRow, NoticeRow } from './rows.js';
import { containsPattern, noticeFilter } from './sql.js';
import { sqliteUnavailable } from './sqlite/unavailable.js';
import { decideStatus } from './status-change.js';
import { classifyFailures } from './unavailable.js';
import { createWalSync } from './sqlite-wal-sync.js';
import type { WalSync, WalSyncOptions } from './sqlite-wal-sync.js';
import type {
  ApplyStatusInput, ApplyStatusResult, ClaimedNotice, CustomerClaim, InsertResult, NewBill, Notice, NoticeAttempt, NoticeAttemptResult,
  NoticeChannel, NoticeCount, Store, StoredBill,
} from './types.js';

export interface SqliteStoreOptions {
  /** Clock for bookkeeping the contract does not pass a time for (migrations). */
  now?: () => number;
  /** How long a connection waits for another's write lock, ms (default 5000). */
  busyTimeoutMs?: number;
  /** WAL checkpoints in a worker thread, every this many ms (default 5000; 0: SQLite's own, inside commits). */
  checkpointIntervalMs?: number;
  /** The checkpoint worker failed; SQLite's own checkpoints take over. */
  onCheckpointFailure?: (error: string) => void;
  /** After each checkpoint in the worker (metrics, tests). */
  onCheckpoint?: (result: { frames: number; copied: number }) => void;
  /** How the WAL file is flushed after commits (tests; default fdatasync). */
  syncWal?: WalSyncOptions['sync'];
  /** The SQLite driver (tests, benchmarks; default: the best the runtime has, see sqlite-driver.ts). */
  driver?: SqliteDriverName;
}

export { sqliteUnavailable };

export function createSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  const now = options.now ?? Date.now;
  const db = openSqlite(path, { driver: options.driver });
  db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  // In memory (or where WAL is unavailable) there is no WAL file to sync or checkpoint.
  const onDisk = db.pragma('journal_mode = WAL', { simple: true }) === 'wal';
  db.pragma('foreign_keys = ON');
  // On disk, commits are synced by walSync, off the event loop; SQLite still syncs around checkpoints.
  db.pragma(`synchronous = ${onDisk ? 'NORMAL' : 'FULL'}`);
  const walSync: WalSync | null = onDisk ? createWalSync(`${path}-wal`, { sync: options.syncWal }) : null;
  /** Every write: refused once a sync failed; resolved once the commit is on disk. */
  const writing = <T>(commit: () => T): Promise<T> => {
    if (walSync?.failure) return Promise.reject(walSync.failure);
    let value: T;
    try {
      value = commit();
    } catch (error) {
      return Promise.reject(error);
    }
    return walSync ? walSync.durable().then(() => value) : Promise.resolve(value);
  };
  const checkpointMs = options.checkpointIntervalMs ?? 5000;
  let checkpointer: Checkpointer | null = null;
  if (checkpointMs > 0 && onDisk) {
    db.pragma('wal_autocheckpoint = 0');
    checkpointer = startCheckpointer({
      path,
      driver: db.driver,
      intervalMs: checkpointMs,
      onFailure(error) {
        if (db.open) db.pragma('wal_autocheckpoint = 1000');
        options.onCheckpointFailure?.(error);
      },
      onCheckpoint: options.onCheckpoint,
    });
  }

  // Prepared lazily: the tables exist only once migrate() has run.
  const statements = new Map<string, Statement>();
  const q = (sql: string): Statement => {
    let s = statements.get(sql);
    if (!s) {
      s = db.prepare(sql);
      statements.set(sql, s);
    }
    return s;
  };

  const billWhere = (column: 'merchant_reference' | 'bill_id' | 'idempotency_key', value: string) => {
    const row = q(`SELECT * FROM bills WHERE ${column} = ?`).get(value) as BillRow | undefined;
    return row ? toStoredBill(row) : null;
  };
  const mustGet = (column: 'merchant_reference' | 'bill_id', value: string): StoredBill => {
    const bill = billWhere(column, value);
    if (!bill) throw new BillNotFoundError(`No bill with ${column} "${value}"`);
    return bill;
  };

  /** The order's current bill: not failed, not final, not superseded (the unique index bills_order_current). */
  const currentOf = (orderId: string): StoredBill | null => {
    const row = q(`SELECT * FROM bills WHERE order_id = ? AND create_state <> 'failed' AND is_final = 0
      AND superseded_at IS NULL`).get(orderId) as BillRow | undefined;
    return row ? toStoredBill(row) : null;
  };

  const insertTx = db.transaction((bill: NewBill): InsertResult => {
    if (bill.idempotencyKey !== null) {
      const holder = billWhere('idempotency_key', bill.idempotencyKey);
      if (holder) return { inserted: false, bill: holder, conflict: 'idempotency_key' };
    }
    const current = bill.orderId === null ? null : currentOf(bill.orderId);
    if (current) return { inserted: false, bill: current, conflict: 'order' };
    q(`INSERT INTO bills (merchant_reference, order_id, idempotency_key, amount, order_amount, order_currency,
         token, hook_token, create_state, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'creating', ?, ?)`).run(
      bill.merchantReference, bill.orderId, bill.idempotencyKey, bill.amount, bill.orderAmount, bill.orderCurrency,
      bill.token, bill.hookToken, bill.createdAt, bill.createdAt,
    );
    return { inserted: true, bill: mustGet('merchant_reference', bill.merchantReference) };
  });

  const completeTx = db.transaction((ref: string, created: CreatedBill, at: number): StoredBill => {
    const bill = mustGet('merchant_reference', ref);
    if (bill.billId !== null && bill.billId !== created.billId) {
      throw new StoreConflictError(`Bill ${ref} already has billId "${bill.billId}", not "${created.billId}"`);
    }
    if (bill.billId === created.billId && bill.createState === 'created') return bill;
    const holder = q('SELECT merchant_reference FROM bills WHERE bill_id = ?').get(created.billId) as
      Pick<BillRow, 'merchant_reference'> | undefined;
    if (holder) throw new StoreConflictError(`billId "${created.billId}" already belongs to bill ${holder.merchant_reference}, not ${ref}`);
    // The amount stays the text we asked for: the answer's equals it as a decimal (answer-check.ts).
    q(`UPDATE bills SET bill_id = ?, bill_url = ?, currency = ?, require_gc_amount = ?,
         expired_on = ?, expires_local_at = ?, create_state = 'created', updated_at = ?
       WHERE merchant_reference = ?`).run(
      created.billId, created.billUrl, created.currency, created.requireGCAmount,
      created.expiredOn, created.expiresLocalAt, at, ref,
    );
    q(`INSERT INTO bill_events (merchant_reference, at, kind) VALUES (?, ?, 'created')`).run(ref, at);
    return mustGet('merchant_reference', ref);
  });

  const applyTx = db.transaction((input: ApplyStatusInput, channels: NoticeChannel[]): ApplyStatusResult => {
    const { billId, checkedAt } = input;
    const stored = mustGet('bill_id', billId);
    // The decision is status-change.ts's, as PostgreSQL's bc_apply_status makes it.
    const decision = decideStatus(stored, input);
    if (decision.kind === 'final_already') return { bill: stored, changed: false, becameFinal: false };
    if (decision.kind === 'stale') {
      // An older status arriving late: the requery still happened, the status is not news.
      q('UPDATE bills SET checked_at = ? WHERE bill_id = ?').run(checkedAt, billId);
      return { bill: decision.bill, changed: false, becameFinal: false };
    }

    const { bill, changed, becameFinal, event } = decision;
    q(`UPDATE bills SET status = ?, status_name = ?, is_final = ?, outcome = ?, date_time = ?,
         status_version = ?, checked_at = ?, updated_at = ?, final_reason = ?, final_at = ?
       WHERE bill_id = ?`).run(
      bill.status, bill.statusName, bill.isFinal ? 1 : 0, bill.outcome, bill.dateTime, bill.statusVersion, bill.checkedAt,
      bill.updatedAt, bill.finalReason, bill.finalAt, billId,
    );
    if (event) {
      q(`INSERT INTO bill_events (merchant_reference, at, kind, reason, status, status_name, outcome)
         VALUES (?, ?, 'status', ?, ?, ?, ?)`).run(stored.merchantReference, event.at, event.reason, event.status, event.statusName, event.outcome);
    }
    // The first payment of an order is the payment; any later one is a duplicate to refund.
    const duplicate = decision.checkDuplicate &&
      q(`SELECT 1 FROM bills WHERE order_id = ? AND outcome = 'paid' AND bill_id != ? LIMIT 1`).get(stored.orderId, billId) !== undefined;
    if (duplicate) q('UPDATE bills SET duplicate_payment = 1 WHERE bill_id = ?').run(billId);
    if (becameFinal) {
      const insert = q(`INSERT INTO notices (id, channel, bill_id, attempts, next_attempt_at, created_at)
        VALUES (?, ?, ?, 0, ?, ?) ON CONFLICT (bill_id, channel) DO NOTHING`);
      for (const channel of new Set(channels)) {
        insert.run(noticeId(billId, channel), channel, billId, checkedAt, checkedAt);
      }
    }
    // The row as just written, without reading it back.
    return { bill: duplicate ? { ...bill, duplicatePayment: true } : bill, changed, becameFinal };
  });

  // Group commit: applyStatus calls made in one turn of the event loop are stored in ONE
  // transaction (one fsync), each in its own savepoint so that one failing does not undo the
  // others; every caller is answered after that commit.
  interface Waiting {
    input: ApplyStatusInput;
    channels: NoticeChannel[];
    onCommitted: ((result: ApplyStatusResult) => void) | undefined;
    resolve: (result: ApplyStatusResult) => void;
    reject: (error: unknown) => void;
  }
  let waiting: Waiting[] = [];
  const groupTx = db.transaction((batch: Waiting[]) =>
    batch.map((w): { ok: true; result: ApplyStatusResult } | { ok: false; error: unknown } => {
      try {
        return { ok: true, result: applyTx(w.input, w.channels) };
      } catch (error) {
        return { ok: false, error };
      }
    }));
  const commitWaiting = () => {
    const batch = waiting;
    waiting = [];
    writing(() => {
      const outcomes = groupTx.immediate(batch);
      outcomes.forEach((o, i) => {
        if (!o.ok) return;
        try {
          batch[i]!.onCommitted?.(o.result);
        } catch {
          // The caller's own failure: the status is stored all the same, and the promise says so.
        }
      });
      return outcomes;
    }).then(
      (outcomes) => outcomes.forEach((o, i) => (o.ok ? batch[i]!.resolve(o.result) : batch[i]!.reject(o.error))),
      (error: unknown) => batch.forEach((w) => w.reject(error)),
    );
  };

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

  const customerTx = db.transaction((key: string, at: number, leaseMs: number): CustomerClaim => {
    const row = q('SELECT * FROM customers WHERE customer_key = ?').get(key) as CustomerRow | undefined;
    if (row?.customer_id != null && row.bound_at !== null) return { kind: 'bound', customer: toBoundCustomer({ ...row, customer_id: row.customer_id, bound_at: row.bound_at }) };
    if (row?.lease_until != null && row.lease_until > at) return { kind: 'busy' };
    q(`INSERT INTO customers (customer_key, lease_until) VALUES (?, ?)
       ON CONFLICT (customer_key) DO UPDATE SET lease_until = excluded.lease_until`).run(key, at + leaseMs);
    return { kind: 'claimed' };
  });

  // SQLite serves one process (its hub is in-process too), so requery claims and exclusive work
  // are tracked in memory: a crash cannot leave one behind.
  const refreshLeases = new Map<string, number>();
  const running = new Set<string>();

  return classifyFailures({
    migrate() {
      return writing(() => {
        migrateSqlite(db, now());
      });
    },
    async ping() {
      if (walSync?.failure) throw walSync.failure;
      q('SELECT 1').get();
    },
    async close() {
      await checkpointer?.close();
      await walSync?.close();
      if (db.open) db.close();
    },

    insertBill(bill) {
      return writing(() => insertTx.immediate(bill));
    },
    completeCreate(merchantReference, created, at) {
      return writing(() => completeTx.immediate(merchantReference, created, at));
    },
    failCreate(merchantReference, at) {
      // Only a create still in flight can fail: a created bill stays what the service said.
      return writing(() => db.transaction(() => {
        mustGet('merchant_reference', merchantReference);
        const { changes } = q(`UPDATE bills SET create_state = 'failed', updated_at = ?
           WHERE merchant_reference = ? AND create_state = 'creating'`).run(at, merchantReference);
        if (changes > 0) q(`INSERT INTO bill_events (merchant_reference, at, kind) VALUES (?, ?, 'create_failed')`).run(merchantReference, at);
      }).immediate());
    },

    async getByReference(merchantReference) {
      return billWhere('merchant_reference', merchantReference);
    },
    async getByBillId(billId) {
      return billWhere('bill_id', billId);
    },
    async getByIdempotencyKey(key) {
      return billWhere('idempotency_key', key);
    },
    async findCurrentByOrderId(orderId) {
      return currentOf(orderId);
    },
    recordEarlyNews(merchantReference, at) {
      return writing(() => {
        q(`UPDATE bills SET early_news_at = COALESCE(early_news_at, ?)
           WHERE merchant_reference = ? AND create_state = 'creating'`).run(at, merchantReference);
        return billWhere('merchant_reference', merchantReference);
      });
    },
    supersede(merchantReference, at) {
      return writing(() => {
        q(`UPDATE bills SET superseded_at = COALESCE(superseded_at, ?) WHERE merchant_reference = ? AND is_final = 0`)
          .run(at, merchantReference);
      });
    },
    async findPaidByOrderId(orderId) {
      const row = q(`SELECT * FROM bills WHERE order_id = ? AND outcome = 'paid' AND duplicate_payment = 0
        ORDER BY updated_at, rowid LIMIT 1`).get(orderId) as BillRow | undefined;
      return row ? toStoredBill(row) : null;
    },

    applyStatus(input, channels, onCommitted) {
      return new Promise<ApplyStatusResult>((resolve, reject) => {
        if (waiting.push({ input, channels, onCommitted, resolve, reject }) === 1) setImmediate(commitWaiting);
      });
    },
    touchChecked(billId, checkedAt) {
      return writing(() => {
        q('UPDATE bills SET checked_at = ? WHERE bill_id = ?').run(checkedAt, billId);
      });
    },

    async listPending(checkedBefore, limit) {
      const rows = q(`SELECT * FROM bills
        WHERE create_state = 'created' AND is_final = 0 AND (checked_at IS NULL OR checked_at < ?)
        ORDER BY checked_at IS NOT NULL, checked_at, created_at LIMIT ?`).all(checkedBefore, limit) as BillRow[];
      return rows.map(toStoredBill);
    },
    async listCreating(createdBefore, limit) {
      const rows = q(`SELECT * FROM bills WHERE create_state = 'creating' AND created_at < ?
        ORDER BY created_at LIMIT ?`).all(createdBefore, limit) as BillRow[];
      return rows.map(toStoredBill);
    },

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

    async billHistory(merchantReference) {
      const rows = q('SELECT * FROM bill_events WHERE merchant_reference = ? ORDER BY id').all(merchantReference) as BillEventRow[];
      return rows.map(toBillEvent);
    },
    async findBillsByOrder(orderId, match, limit) {
      const rows = (match === 'equal'
        ? q('SELECT * FROM bills WHERE order_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?').all(orderId, limit)
        : q(`SELECT * FROM bills WHERE order_id LIKE ? ESCAPE '\\' ORDER BY created_at DESC, rowid DESC LIMIT ?`)
          .all(containsPattern(orderId), limit)) as BillRow[];
      return rows.map(toStoredBill);
    },
    async countPending() {
      return (q(`SELECT COUNT(*) AS n FROM bills WHERE create_state = 'created' AND is_final = 0`).get() as { n: number }).n;
    },

    claimCustomerBind(key, at, leaseMs) {
      return writing(() => customerTx.immediate(key, at, leaseMs));
    },
    completeCustomerBind(key, customerId, at) {
      return writing(() => {
        const row = q(`INSERT INTO customers (customer_key, customer_id, bound_at) VALUES (?, ?, ?)
          ON CONFLICT (customer_key) DO UPDATE SET customer_id = COALESCE(customers.customer_id, excluded.customer_id),
            bound_at = COALESCE(customers.bound_at, excluded.bound_at), lease_until = NULL
          RETURNING *`).get(key, customerId, at) as CustomerRow & { customer_id: string; bound_at: number };
        return toBoundCustomer(row);
      });
    },
    releaseCustomerBind(key) {
      return writing(() => {
        q('DELETE FROM customers WHERE customer_key = ? AND customer_id IS NULL').run(key);
      });
    },
    async listCustomers(limit, before) {
      const rows = q(`SELECT * FROM customers WHERE customer_id IS NOT NULL AND bound_at < ?
        ORDER BY bound_at DESC, customer_key LIMIT ?`).all(before ?? Number.MAX_SAFE_INTEGER, limit) as (CustomerRow & { customer_id: string; bound_at: number })[];
      return rows.map(toBoundCustomer);
    },

    async claimRefresh(billId, at, maxAgeMs, leaseMs) {
      const bill = q('SELECT is_final, checked_at FROM bills WHERE bill_id = ?').get(billId) as
        Pick<BillRow, 'is_final' | 'checked_at'> | undefined;
      if (!bill || bill.is_final) return false;
      if (maxAgeMs > 0 && bill.checked_at !== null && bill.checked_at > at - maxAgeMs) return false;
      const held = refreshLeases.get(billId);
      if (held !== undefined && held > at) return false;
      refreshLeases.set(billId, at + leaseMs);
      return true;
    },
    async releaseRefresh(billId, leaseUntil) {
      if (refreshLeases.get(billId) === leaseUntil) refreshLeases.delete(billId);
    },
    async exclusive(name, work) {
      if (running.has(name)) return { ran: false };
      running.add(name);
      try {
        return { ran: true, value: await work() };
      } finally {
        running.delete(name);
      }
    },
  }, (error) => sqliteUnavailable(error, options.busyTimeoutMs ?? 5000));
}
