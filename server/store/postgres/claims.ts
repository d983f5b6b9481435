// The PostgreSQL store's claims, for every instance sharing the database: the right to requery a
// bill (a leased column, taken in one statement) and exclusive work (a session advisory lock).

import type { ClaimStore } from '../types.js';
import type { PgContext } from './context.js';

export function pgClaims({ pool }: PgContext): ClaimStore {
  return {
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
  };
}
