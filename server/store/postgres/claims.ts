// The PostgreSQL store's claims, for every instance sharing the database: the right to requery a
// bill (a leased column, taken in one statement) and exclusive work (a session advisory lock).

import { coalesce } from '../coalesce.js';
import type { ClaimStore } from '../types.js';
import type { PgContext } from './context.js';

interface Claim {
  billId: string;
  at: number;
  maxAgeMs: number;
  leaseMs: number;
}

/** The most claims, or releases, in one statement. */
const MAX_CLAIM_BATCH = 100;

/** One claim alone: the row lock makes a concurrent claim re-check these conditions after us. */
const CLAIM_ONE = `UPDATE bills SET refresh_lease_until = $2 + $4::bigint
  WHERE bill_id = $1 AND NOT is_final
    AND ($3::bigint <= 0 OR checked_at IS NULL OR checked_at <= $2 - $3::bigint)
    AND (refresh_lease_until IS NULL OR refresh_lease_until <= $2)`;
/** The claims of one moment in one statement (and one commit): the bills it took. */
const CLAIM_MANY = `UPDATE bills b SET refresh_lease_until = c.at + c.lease
  FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[]) AS c(bill_id, at, max_age, lease)
  WHERE b.bill_id = c.bill_id AND NOT b.is_final
    AND (c.max_age <= 0 OR b.checked_at IS NULL OR b.checked_at <= c.at - c.max_age)
    AND (b.refresh_lease_until IS NULL OR b.refresh_lease_until <= c.at)
  RETURNING b.bill_id`;
const RELEASE_MANY = `UPDATE bills b SET refresh_lease_until = NULL
  FROM unnest($1::text[], $2::bigint[]) AS c(bill_id, lease_until)
  WHERE b.bill_id = c.bill_id AND b.refresh_lease_until = c.lease_until`;

export function pgClaims({ pool }: PgContext): ClaimStore {
  async function claimOne({ billId, at, maxAgeMs, leaseMs }: Claim): Promise<boolean> {
    const { rowCount } = await pool.query(CLAIM_ONE, [billId, at, maxAgeMs, leaseMs]);
    return rowCount === 1;
  }

  // A failover's reconnecting watchers each start a refresh at once: thousands of one-row updates,
  // each its own commit, would hold every connection of the pool, and the news behind them.
  const claim = coalesce(async (claims: Claim[]): Promise<boolean[]> => {
    if (claims.length === 1) return [await claimOne(claims[0]!)];
    let taken: Set<string>;
    try {
      const { rows } = await pool.query<{ bill_id: string }>(CLAIM_MANY, [
        claims.map((c) => c.billId), claims.map((c) => c.at), claims.map((c) => c.maxAgeMs), claims.map((c) => c.leaseMs),
      ]);
      taken = new Set(rows.map((r) => r.bill_id));
    } catch {
      // Whole, or not at all (a deadlock with another instance's batch, a lost connection): each alone.
      return Promise.all(claims.map(claimOne));
    }
    // A bill asked for twice in one batch was taken once: by the first who asked.
    return claims.map((c) => taken.delete(c.billId));
  }, MAX_CLAIM_BATCH);

  const release = coalesce(async (items: { billId: string; leaseUntil: number }[]): Promise<null[]> => {
    await pool.query(RELEASE_MANY, [items.map((i) => i.billId), items.map((i) => i.leaseUntil)]);
    return items.map(() => null);
  }, MAX_CLAIM_BATCH);

  return {
    claimRefresh: (billId, at, maxAgeMs, leaseMs) => claim({ billId, at, maxAgeMs, leaseMs }),
    async releaseRefresh(billId, leaseUntil) {
      await release({ billId, leaseUntil });
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
