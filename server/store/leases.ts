// What a leased claim finds, decided in code where SQLite's store decides it in code: the right to
// requery a bill (sqlite/claims.ts; PostgreSQL's claimRefresh is the same conditions as one UPDATE's
// WHERE, postgres/claims.ts), and what a claim to bind a customer key finds in its row
// (sqlite/customers.ts; PostgreSQL takes such a claim in one INSERT … ON CONFLICT, postgres/customers.ts).

import { toBoundCustomer } from './rows.js';
import type { CustomerRow } from './rows.js';
import type { CustomerClaim } from './types.js';

/**
 * Whether a requery of `bill` may be claimed at `at`: not for a bill that is missing or final, not
 * while its last check is younger than `maxAgeMs` (0: news, whatever its age), not while another
 * claim's lease (`leaseUntil`, undefined: none) runs.
 */
export function mayClaimRefresh(
  bill: { isFinal: boolean; checkedAt: number | null } | null, at: number, maxAgeMs: number, leaseUntil: number | undefined,
): boolean {
  if (!bill || bill.isFinal) return false;
  if (maxAgeMs > 0 && bill.checkedAt !== null && bill.checkedAt > at - maxAgeMs) return false;
  if (leaseUntil !== undefined && leaseUntil > at) return false;
  return true;
}

/**
 * What a claim at `at` to bind a customer key finds in the key's row (undefined: none): the customer
 * bound already, or busy (another claim's lease runs), or null: the key is this claim's to take.
 */
export function customerClaimOf(row: CustomerRow | undefined, at: number): Exclude<CustomerClaim, { kind: 'claimed' }> | null {
  if (row?.customer_id != null && row.bound_at !== null) return { kind: 'bound', customer: toBoundCustomer({ ...row, customer_id: row.customer_id, bound_at: row.bound_at }) };
  if (row?.lease_until != null && row.lease_until > at) return { kind: 'busy' };
  return null;
}
