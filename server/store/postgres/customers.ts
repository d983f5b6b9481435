// The PostgreSQL store's customers, bound once at the service: a leased claim to bind a key, then its id.

import type { CustomerStore } from '../types.js';
import type { PgContext } from './context.js';
import { toCustomer } from './rows.js';

export function pgCustomers({ pool }: PgContext): CustomerStore {
  return {
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
  };
}
