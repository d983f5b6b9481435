// The SQLite store's claims: the right to requery a bill, and exclusive work.

import { mayClaimRefresh } from '../leases.js';
import type { BillRow } from '../rows.js';
import type { ClaimStore } from '../types.js';
import type { SqliteContext } from './context.js';

export function sqliteClaims({ q }: SqliteContext): ClaimStore {
  // SQLite serves one process (its hub is in-process too), so requery claims and exclusive work
  // are tracked in memory: a crash cannot leave one behind.
  const refreshLeases = new Map<string, number>();
  const running = new Set<string>();

  return {
    async claimRefresh(billId, at, maxAgeMs, leaseMs) {
      const row = q('SELECT is_final, checked_at FROM bills WHERE bill_id = ?').get(billId) as
        Pick<BillRow, 'is_final' | 'checked_at'> | undefined;
      const bill = row ? { isFinal: Boolean(row.is_final), checkedAt: row.checked_at } : null;
      if (!mayClaimRefresh(bill, at, maxAgeMs, refreshLeases.get(billId))) return false;
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
  };
}
