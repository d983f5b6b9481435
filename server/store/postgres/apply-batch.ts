// Group commit of the callback path's two round trips (issue 44): the statuses one instance stores
// in the same moment go to PostgreSQL as one call of bc_apply_statuses (one statement, one
// transaction, so one commit and one WAL flush for all of them), and its reads of bills by
// reference, or by bill id, in the same moment as one SELECT … = ANY (a failover's reconnecting
// watchers each read their bill at once: thousands of reads would otherwise hold every connection
// of the pool, and the news behind them). While batches are in flight the next
// gathers (coalesce.ts; status changes in APPLY_LANES lanes, below): alone, a change is written at once as
// before (bc_apply_status); under load a burst costs one round trip and one commit. Durability is
// unchanged: each caller's promise resolves after the commit of its batch, whose flush
// synchronous_commit waits for.

import type { Pool, QueryResultRow } from 'pg';
import { coalesce } from '../coalesce.js';
import { BillNotFoundError } from '../errors.js';
import type { ApplyStatusResult, StoredBill } from '../types.js';
import { applyStatusesInput } from './batches.js';
import type { ApplyItem } from './batches.js';
import { named } from './context.js';
import { toBill } from './rows.js';

/** SQLSTATE of bc_apply_status when the bill is not there. */
const NO_DATA_FOUND = 'P0002';
const applyStatusCall = named('bc_apply_status', 'SELECT bill, changed, became_final FROM bc_apply_status($1, $2, $3, $4, $5, $6, $7, $8, $9)');
const applyStatusesCall = named('bc_apply_statuses', 'SELECT ord, bill, changed, became_final FROM bc_apply_statuses($1::jsonb)');
const byReferenceCall = named('bc_bill_by_merchant_reference', 'SELECT to_jsonb(b) AS bill FROM bills b WHERE merchant_reference = $1');
const byReferencesCall = named('bc_bills_by_merchant_references', 'SELECT to_jsonb(b) AS bill FROM bills b WHERE merchant_reference = ANY($1::text[])');
// The same text as bills.ts's read of one bill by id (a prepared statement's name names one text).
const byBillIdCall = named('bc_bill_by_bill_id', 'SELECT to_jsonb(b) AS bill FROM bills b WHERE bill_id = $1');
const byBillIdsCall = named('bc_bills_by_bill_ids', 'SELECT to_jsonb(b) AS bill FROM bills b WHERE bill_id = ANY($1::text[])');

/** The most status changes in one call, and the most bills in one read. */
const MAX_APPLY_BATCH = 64;
const MAX_READ_BATCH = 100;
/**
 * Batches of status changes in flight at once, per instance. With one, a change that arrives during
 * a batch's commit waits for that commit and then its own (two WAL flushes); with two it goes at
 * once in the other lane, whose commit PostgreSQL may flush with the first. Two measured faster in
 * two paired runs on a loaded machine (308 and 206 callbacks/s against 279 and 147) but took more
 * round trips (0.96–1.14 per callback against 0.89–0.93) and no less CPU: one until a quiet
 * machine tells them apart (issue 44).
 */
const APPLY_LANES = 1;

/** Each item's own answer: one item's failure is not the others'. */
type Applied = { result: ApplyStatusResult } | { error: unknown };

const notFound = (billId: string) => new BillNotFoundError(`No bill with bill_id "${billId}"`);
const toResult = (r: QueryResultRow): ApplyStatusResult =>
  ({ bill: toBill(r.bill as QueryResultRow), changed: r.changed === true, becameFinal: r.became_final === true });

export interface PgApplyBatches {
  /** Stores one status change with the others of the moment (bc_apply_statuses); resolves once committed. */
  applyStatus(item: ApplyItem): Promise<ApplyStatusResult>;
  /** A bill by merchant reference, read with the others asked for meanwhile. */
  getByReference(ref: string): Promise<StoredBill | null>;
  /** A bill by the service's bill id, read with the others asked for meanwhile. */
  getByBillId(billId: string): Promise<StoredBill | null>;
}

/** Reads of bills by one key, each alone when alone, together when asked for in the same moment. */
function batchedRead(
  pool: Pool, one: ReturnType<typeof named>, many: ReturnType<typeof named>, keyOf: (bill: StoredBill) => string | null,
): (key: string) => Promise<StoredBill | null> {
  return coalesce(async (keys: string[]): Promise<(StoredBill | null)[]> => {
    const { rows } = keys.length === 1 ? await pool.query(one([keys[0]])) : await pool.query(many([[...new Set(keys)]]));
    const found = new Map<string, StoredBill>();
    for (const r of rows) {
      const bill = toBill(r.bill as QueryResultRow);
      const key = keyOf(bill);
      if (key !== null) found.set(key, bill);
    }
    return keys.map((key) => found.get(key) ?? null);
  }, MAX_READ_BATCH);
}

export function pgApplyBatches(pool: Pool): PgApplyBatches {
  /** One change alone: one call of bc_apply_status, its own transaction. */
  async function applyOne(item: ApplyItem): Promise<Applied> {
    const a = applyStatusesInput([item])[0]!;
    try {
      const { rows } = await pool.query(applyStatusCall([a.bill_id, a.status, a.status_name, a.outcome, a.date_time,
        a.checked_at, a.reason, a.notice_ids, a.notice_channels]));
      return { result: toResult(rows[0]!) };
    } catch (error) {
      return { error: (error as { code?: string }).code === NO_DATA_FOUND ? notFound(a.bill_id) : error };
    }
  }

  const apply = coalesce(async (items: ApplyItem[]): Promise<Applied[]> => {
    if (items.length === 1) return [await applyOne(items[0]!)];
    try {
      const { rows } = await pool.query(applyStatusesCall([JSON.stringify(applyStatusesInput(items))]));
      const applied = new Array<Applied>(items.length);
      for (const r of rows) {
        const ord = Number(r.ord);
        applied[ord] = r.bill === null ? { error: notFound(items[ord]!.input.billId) } : { result: toResult(r) };
      }
      return applied;
    } catch {
      // The batch as a whole failed (a deadlock with another batch, this instance's other lane or
      // another instance's, through two bills of one order; a lost connection): nothing of it was
      // committed, or, if the answer alone was lost, applying again changes nothing. Each is stored
      // alone, so each caller has its own answer.
      return Promise.all(items.map(applyOne));
    }
  }, MAX_APPLY_BATCH, setImmediate, APPLY_LANES);

  return {
    async applyStatus(item) {
      const applied = await apply(item);
      if ('error' in applied) throw applied.error;
      return applied.result;
    },
    getByReference: batchedRead(pool, byReferenceCall, byReferencesCall, (bill) => bill.merchantReference),
    getByBillId: batchedRead(pool, byBillIdCall, byBillIdsCall, (bill) => bill.billId),
  };
}
