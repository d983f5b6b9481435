// What applyStatus does with a status the service gave, decided the same way by both stores.
// SQLite's store runs this function inside its transaction (sqlite/bills.ts). PostgreSQL makes the
// same decision in one statement, bc_apply_status (postgres/migrations.ts, migration 5), with the
// trigger bills_status_version (migration 3) for `statusVersion`: its IF branches are the kinds
// below, in the same order. store-postgres.test.ts holds both stores to this function's answers.

import type { ApplyStatusInput, BillEvent, StoredBill } from './types.js';

export type StatusDecision =
  /** The stored status is final: it never changes, and nothing is written. */
  | { kind: 'final_already' }
  /**
   * A pending status older (by the service's dateTime) than the stored one, arriving late: the
   * requery happened (only checkedAt is written), the status is not news.
   */
  | { kind: 'stale'; bill: StoredBill }
  | {
    kind: 'store';
    /** The row as written (its duplicatePayment as stored: see `checkDuplicate`). */
    bill: StoredBill;
    /** Status, outcome or finality differ from what was stored. */
    changed: boolean;
    /** This status makes the bill final: a notice per channel is queued with it. */
    becameFinal: boolean;
    /** The line added to the bill's history; null when nothing changed. */
    event: BillEvent | null;
    /**
     * A payment of a bill that has an order: if another bill of the order is paid already, this
     * one is a duplicate payment (the first payment of an order is the payment).
     */
    checkDuplicate: boolean;
  };

export function decideStatus(stored: StoredBill, input: ApplyStatusInput): StatusDecision {
  const { record, outcome, checkedAt } = input;
  const reason = input.reason ?? null;
  if (stored.isFinal) return { kind: 'final_already' };
  const final = outcome !== 'pending';
  if (!final && stored.dateTime !== null && record.dateTime < stored.dateTime) {
    return { kind: 'stale', bill: { ...stored, checkedAt } };
  }
  const changed = stored.status !== record.status || stored.outcome !== outcome || stored.isFinal !== final;
  // What PostgreSQL's trigger does: one up per change of what a BillView shows.
  const statusVersion = stored.statusVersion +
    (changed || stored.statusName !== record.statusName || stored.dateTime !== record.dateTime ? 1 : 0);
  const bill: StoredBill = {
    ...stored, status: record.status, statusName: record.statusName, isFinal: final, outcome,
    dateTime: record.dateTime, statusVersion, checkedAt, updatedAt: changed ? checkedAt : stored.updatedAt,
    finalReason: final ? reason : null, finalAt: final ? checkedAt : null,
  };
  const event: BillEvent | null = changed
    ? { at: checkedAt, kind: 'status', reason, status: record.status, statusName: record.statusName, outcome }
    : null;
  return { kind: 'store', bill, changed, becameFinal: final, event, checkDuplicate: outcome === 'paid' && (stored.orderId !== null || stored.orphanedAt !== null) };
}
