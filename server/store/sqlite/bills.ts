// The SQLite store's bills: our create flow, the statuses the service gave (applyStatus, in group
// commits), and the reads of the bills and their history. Each write is one IMMEDIATE transaction.

import type { CreatedBill } from '../../upstream/types.js';
import { BillNotFoundError, StoreConflictError } from '../errors.js';
import { noticeId } from '../notice-values.js';
import { toBillEvent, toStoredBill } from '../rows.js';
import type { BillEventRow, BillRow } from '../rows.js';
import { containsPattern } from '../sql.js';
import { decideStatus } from '../status-change.js';
import type { ApplyStatusInput, ApplyStatusResult, BillStore, InsertResult, NewBill, NoticeChannel, PendingCursor, StoredBill } from '../types.js';
import type { SqliteContext } from './context.js';

/** Pending bills due for a requery (parameters: checkedBefore, serviceId, serviceId). */
const PENDING_DUE = `create_state = 'created' AND is_final = 0 AND lost_at IS NULL AND (checked_at IS NULL OR checked_at < ?)
  AND (? IS NULL OR service_id IS NULL OR service_id = ?)`;
/**
 * The reconciler's order, as the index bills_reconcile has it: the closest to expiry first (none
 * last), then the longest unchecked (never first), then the oldest; the reference makes it total.
 */
const EXPIRY_KEY = `COALESCE(expires_local_at, ${Number.MAX_SAFE_INTEGER})`;
const URGENCY_ORDER = `${EXPIRY_KEY}, COALESCE(checked_at, -1), created_at, merchant_reference`;
const urgencyKey = (after: PendingCursor) =>
  [after.expiresLocalAt ?? Number.MAX_SAFE_INTEGER, after.checkedAt ?? -1, after.createdAt, after.merchantReference] as const;

export function sqliteBills({ db, q, writing }: SqliteContext): BillStore {
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
         token, hook_token, service_id, create_state, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'creating', ?, ?)`).run(
      bill.merchantReference, bill.orderId, bill.idempotencyKey, bill.amount, bill.orderAmount, bill.orderCurrency,
      bill.token, bill.hookToken, bill.serviceId ?? null, bill.createdAt, bill.createdAt,
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

  const orphanTx = db.transaction((ref: string, billId: string, at: number): StoredBill => {
    const kept = billWhere('bill_id', billId);
    if (kept) return kept;
    const bill = mustGet('merchant_reference', ref);
    let target = ref;
    if (bill.billId === null) {
      q(`UPDATE bills SET bill_id = ?, create_state = 'created', idempotency_key = NULL, orphaned_at = ?,
           superseded_at = COALESCE(superseded_at, ?), updated_at = ? WHERE merchant_reference = ?`).run(billId, at, at, at, ref);
    } else {
      // The service made more than one bill under our reference (an edge that repeated the create).
      const prefix = `${ref}.`;
      const siblings = (q('SELECT COUNT(*) AS n FROM bills WHERE substr(merchant_reference, 1, ?) = ?').get(prefix.length, prefix) as { n: number }).n;
      target = `${ref}.${siblings + 1}`;
      q(`INSERT INTO bills (merchant_reference, bill_id, order_id, amount, order_amount, order_currency, token, hook_token,
           service_id, create_state, orphaned_at, superseded_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'created', ?, ?, ?, ?)`).run(
        target, billId, bill.orderId, bill.amount, bill.orderAmount, bill.orderCurrency, bill.token, bill.hookToken,
        bill.serviceId, at, at, at, at,
      );
    }
    q(`INSERT INTO bill_events (merchant_reference, at, kind) VALUES (?, ?, 'created')`).run(target, at);
    return mustGet('merchant_reference', target);
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
    // An orphan was never shown to a customer: its payment is one the merchant did not ask for.
    const duplicate = decision.checkDuplicate && (stored.orphanedAt !== null ||
      q(`SELECT 1 FROM bills WHERE order_id = ? AND outcome = 'paid' AND bill_id != ? LIMIT 1`).get(stored.orderId, billId) !== undefined);
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

  return {
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
        const { changes } = q(`UPDATE bills SET create_state = 'failed', idempotency_key = NULL, updated_at = ?
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
        q(`UPDATE bills SET superseded_at = COALESCE(superseded_at, ?), withdraw_confirmed_at = COALESCE(withdraw_confirmed_at, ?)
           WHERE merchant_reference = ? AND is_final = 0`).run(at, at, merchantReference);
      });
    },
    recordOrphan(merchantReference, billId, at) {
      return writing(() => orphanTx.immediate(merchantReference, billId, at));
    },
    confirmWithdrawal(billId, at) {
      return writing(() => {
        q('UPDATE bills SET withdraw_confirmed_at = COALESCE(withdraw_confirmed_at, ?) WHERE bill_id = ?').run(at, billId);
      });
    },
    markLost(billId, at) {
      return writing(() => {
        q(`UPDATE bills SET lost_at = COALESCE(lost_at, ?), superseded_at = COALESCE(superseded_at, ?), updated_at = ?
           WHERE bill_id = ? AND is_final = 0`).run(at, at, at, billId);
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

    async listPending(checkedBefore, limit, serviceId, after) {
      const service = serviceId ?? null;
      const rows = (after
        // The first term again alone: what lets SQLite seek in the index rather than scan it from its start.
        ? q(`SELECT * FROM bills WHERE ${PENDING_DUE} AND ${EXPIRY_KEY} >= ? AND (${URGENCY_ORDER}) > (?, ?, ?, ?)
            ORDER BY ${URGENCY_ORDER} LIMIT ?`).all(checkedBefore, service, service, urgencyKey(after)[0], ...urgencyKey(after), limit)
        : q(`SELECT * FROM bills WHERE ${PENDING_DUE} ORDER BY ${URGENCY_ORDER} LIMIT ?`).all(checkedBefore, service, service, limit)) as BillRow[];
      return rows.map(toStoredBill);
    },
    async countPendingDue(checkedBefore, serviceId) {
      const row = q(`SELECT COUNT(*) AS n, MIN(COALESCE(checked_at, created_at)) AS oldest FROM bills WHERE ${PENDING_DUE}`)
        .get(checkedBefore, serviceId ?? null, serviceId ?? null) as { n: number; oldest: number | null };
      return { count: row.n, oldestCheckedAt: row.oldest };
    },
    async listWithdrawing(limit, serviceId) {
      const rows = q(`SELECT * FROM bills
        WHERE create_state = 'created' AND is_final = 0 AND superseded_at IS NOT NULL AND withdraw_confirmed_at IS NULL
          AND lost_at IS NULL AND (? IS NULL OR service_id IS NULL OR service_id = ?)
        ORDER BY superseded_at LIMIT ?`).all(serviceId ?? null, serviceId ?? null, limit) as BillRow[];
      return rows.map(toStoredBill);
    },
    async listCreating(createdBefore, limit) {
      const rows = q(`SELECT * FROM bills WHERE create_state = 'creating' AND created_at < ?
        ORDER BY created_at LIMIT ?`).all(createdBefore, limit) as BillRow[];
      return rows.map(toStoredBill);
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
  };
}
