// The SQLite store's customers, bound once at the service: a leased claim to bind a key, then its id.

import { customerClaimOf } from '../leases.js';
import { toBoundCustomer } from '../rows.js';
import type { CustomerRow } from '../rows.js';
import type { CustomerClaim, CustomerStore } from '../types.js';
import type { SqliteContext } from './context.js';

export function sqliteCustomers({ db, q, writing }: SqliteContext): CustomerStore {
  const customerTx = db.transaction((key: string, at: number, leaseMs: number): CustomerClaim => {
    const row = q('SELECT * FROM customers WHERE customer_key = ?').get(key) as CustomerRow | undefined;
    const found = customerClaimOf(row, at);
    if (found) return found;
    q(`INSERT INTO customers (customer_key, lease_until) VALUES (?, ?)
       ON CONFLICT (customer_key) DO UPDATE SET lease_until = excluded.lease_until`).run(key, at + leaseMs);
    return { kind: 'claimed' };
  });

  return {
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
  };
}
