// The PostgreSQL store's bills: our create flow, the statuses the service gave (those of the same
// moment in one call of bc_apply_statuses, apply-batch.ts; then announced to the other
// instances), and the reads of the bills and their history. Uniqueness is held by constraints, a
// multi-step change locks the bill's row.

import type { QueryResultRow } from 'pg';
import type { CreatedBill } from '../../upstream/types.js';
import { BillNotFoundError, StoreConflictError } from '../errors.js';
import { containsPattern } from '../sql.js';
import type { BillStore, PendingCursor, StoredBill } from '../types.js';
import { pgApplyBatches } from './apply-batch.js';
import { named } from './context.js';
import type { PgContext, Queryable } from './context.js';
import type { StatusChange } from './events.js';
import { num, toBill, toEvent } from './rows.js';

/** Pending bills due for a requery ($1 checkedBefore, $2 serviceId). */
const PENDING_DUE = `create_state = 'created' AND NOT is_final AND lost_at IS NULL AND (checked_at IS NULL OR checked_at < $1)
  AND ($2::text IS NULL OR service_id IS NULL OR service_id = $2)`;
/**
 * The reconciler's order, as the index bills_reconcile has it: the closest to expiry first (none
 * last), then the longest unchecked (never first), then the oldest; the reference makes it total.
 */
const URGENCY_ORDER = `COALESCE(expires_local_at, ${Number.MAX_SAFE_INTEGER}), COALESCE(checked_at, -1), created_at, merchant_reference`;
const urgencyKey = (after: PendingCursor) =>
  [after.expiresLocalAt ?? Number.MAX_SAFE_INTEGER, after.checkedAt ?? -1, after.createdAt, after.merchantReference];

/** `announce`: tells the other instances of a status change once it is committed (events.ts). */
export function pgBills({ pool, tx, onError }: PgContext, announce: (change: StatusChange) => Promise<void>): BillStore {
  const batches = pgApplyBatches(pool);
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

  return {
    async insertBill(bill) {
      // Any unique key: the idempotency key, or the order's one current bill (bills_order_current).
      const { rows } = await pool.query(
        `INSERT INTO bills (merchant_reference, order_id, idempotency_key, amount, order_amount, order_currency,
           token, hook_token, service_id, create_state, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $10, 'creating', $9, $9)
         ON CONFLICT DO NOTHING RETURNING *`,
        [bill.merchantReference, bill.orderId, bill.idempotencyKey, bill.amount, bill.orderAmount, bill.orderCurrency,
          bill.token, bill.hookToken, bill.createdAt, bill.serviceId ?? null],
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
      await pool.query(`UPDATE bills SET superseded_at = COALESCE(superseded_at, $2), withdraw_confirmed_at = COALESCE(withdraw_confirmed_at, $2)
        WHERE merchant_reference = $1 AND NOT is_final`, [ref, at]);
    },
    async recordOrphan(ref, billId, at) {
      return tx(async (c) => {
        const bill = await mustGet(c, 'merchant_reference', ref, true);
        const kept = await billWhere(c, 'bill_id', billId);
        if (kept) return kept;
        if (bill.billId === null) {
          const { rows } = await c.query(`UPDATE bills SET bill_id = $1, create_state = 'created', idempotency_key = NULL, orphaned_at = $2,
              superseded_at = COALESCE(superseded_at, $2), updated_at = $2 WHERE merchant_reference = $3 RETURNING *`, [billId, at, ref]);
          await c.query(`INSERT INTO bill_events (merchant_reference, at, kind) VALUES ($1, $2, 'created')`, [ref, at]);
          return toBill(rows[0]!);
        }
        // The service made more than one bill under our reference (an edge that repeated the create).
        const prefix = `${ref}.`;
        const { rows: counted } = await c.query('SELECT COUNT(*) AS n FROM bills WHERE left(merchant_reference, $1) = $2', [prefix.length, prefix]);
        const target = `${prefix}${num(counted[0]?.n) + 1}`;
        const { rows } = await c.query(`INSERT INTO bills (merchant_reference, bill_id, order_id, amount, order_amount, order_currency,
            token, hook_token, service_id, create_state, orphaned_at, superseded_at, created_at, updated_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'created', $10, $10, $10, $10) RETURNING *`,
          [target, billId, bill.orderId, bill.amount, bill.orderAmount, bill.orderCurrency, bill.token, bill.hookToken, bill.serviceId, at]);
        await c.query(`INSERT INTO bill_events (merchant_reference, at, kind) VALUES ($1, $2, 'created')`, [target, at]);
        return toBill(rows[0]!);
      });
    },
    async confirmWithdrawal(billId, at) {
      await pool.query('UPDATE bills SET withdraw_confirmed_at = COALESCE(withdraw_confirmed_at, $2) WHERE bill_id = $1', [billId, at]);
    },
    async markLost(billId, at) {
      await pool.query(`UPDATE bills SET lost_at = COALESCE(lost_at, $2), superseded_at = COALESCE(superseded_at, $2), updated_at = $2
        WHERE bill_id = $1 AND NOT is_final`, [billId, at]);
    },
    async failCreate(ref, at) {
      await tx(async (c) => {
        await mustGet(c, 'merchant_reference', ref, true);
        const { rowCount } = await c.query(`UPDATE bills SET create_state = 'failed', idempotency_key = NULL, updated_at = $1
          WHERE merchant_reference = $2 AND create_state = 'creating'`, [at, ref]);
        if (rowCount) await c.query(`INSERT INTO bill_events (merchant_reference, at, kind) VALUES ($1, $2, 'create_failed')`, [ref, at]);
      });
    },

    // The callback's token check, one per callback: read with the others of the moment (apply-batch.ts).
    getByReference: (ref) => batches.getByReference(ref),
    // A stream's or a poll's read, and each requery's: with the others of the moment (apply-batch.ts).
    getByBillId: (billId) => batches.getByBillId(billId),
    getByIdempotencyKey: (key) => billWhere(pool, 'idempotency_key', key),
    findCurrentByOrderId: (orderId) => currentOf(orderId),
    async findPaidByOrderId(orderId) {
      const { rows } = await pool.query(`SELECT * FROM bills WHERE order_id = $1 AND outcome = 'paid' AND NOT duplicate_payment
        ORDER BY updated_at, seq LIMIT 1`, [orderId]);
      return rows[0] ? toBill(rows[0]) : null;
    },

    async applyStatus(input, channels, onCommitted) {
      // With the others stored in the same moment, one call of bc_apply_statuses (apply-batch.ts):
      // PostgreSQL's commit is its sync, visible and durable at once. Then the change is
      // announced (with the others of the moment, events.ts), not waited for.
      const result = await batches.applyStatus({ input, channels });
      if (result.changed) announce({ billId: input.billId, version: result.bill.statusVersion }).catch(onError);
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

    async listPending(checkedBefore, limit, serviceId, after) {
      const { rows } = after
        ? await pool.query(`SELECT * FROM bills WHERE ${PENDING_DUE} AND (${URGENCY_ORDER}) > ($4::bigint, $5::bigint, $6::bigint, $7::text)
            ORDER BY ${URGENCY_ORDER} LIMIT $3`, [checkedBefore, serviceId ?? null, limit, ...urgencyKey(after)])
        : await pool.query(`SELECT * FROM bills WHERE ${PENDING_DUE} ORDER BY ${URGENCY_ORDER} LIMIT $3`, [checkedBefore, serviceId ?? null, limit]);
      return rows.map(toBill);
    },
    async countPendingDue(checkedBefore, serviceId) {
      const { rows } = await pool.query<{ n: string; oldest: string | null }>(
        `SELECT COUNT(*) AS n, MIN(COALESCE(checked_at, created_at)) AS oldest FROM bills WHERE ${PENDING_DUE}`,
        [checkedBefore, serviceId ?? null],
      );
      const row = rows[0]!;
      return { count: Number(row.n), oldestCheckedAt: row.oldest === null ? null : Number(row.oldest) };
    },
    async listWithdrawing(limit, serviceId) {
      const { rows } = await pool.query(`SELECT * FROM bills
        WHERE create_state = 'created' AND NOT is_final AND superseded_at IS NOT NULL AND withdraw_confirmed_at IS NULL
          AND lost_at IS NULL AND ($2::text IS NULL OR service_id IS NULL OR service_id = $2)
        ORDER BY superseded_at LIMIT $1`, [limit, serviceId ?? null]);
      return rows.map(toBill);
    },
    async listCreating(createdBefore, limit) {
      const { rows } = await pool.query(`SELECT * FROM bills WHERE create_state = 'creating' AND created_at < $1
        ORDER BY created_at LIMIT $2`, [createdBefore, limit]);
      return rows.map(toBill);
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
  };
}
