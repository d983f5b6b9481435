// What every concern of the PostgreSQL store works with: the pool, transactions on one of its
// connections, named statements, and where failures nobody waits for are reported. store.ts
// makes it; bills.ts, notices.ts, customers.ts and claims.ts take it.

import type { Pool, PoolClient } from 'pg';

export type Queryable = Pick<PoolClient, 'query'>;

/**
 * The statements of every callback are named: each connection prepares one once, then only binds
 * and runs it, which spares PostgreSQL a parse and a plan per call. Each answers JSONB, never a
 * row of `bills`: a column that a later migration adds would break a plan prepared before it
 * (0A000 "cached plan must not change result type") on the instances still running.
 */
export const named = (name: string, text: string) => (values: unknown[]) => ({ name, text, values });

export interface PgContext {
  readonly pool: Pool;
  /** `work` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
  tx<T>(work: (c: PoolClient) => Promise<T>): Promise<T>;
  /** Failures nobody waits for: a status announcement lost, a LISTEN connection's error. */
  readonly onError: (error: unknown) => void;
}

export function pgContext(pool: Pool, onError: (error: unknown) => void): PgContext {
  async function tx<T>(work: (c: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const value = await work(client);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  return { pool, tx, onError };
}
