// The PostgreSQL store (pg Pool), for several BFF instances on one database. Every multi-step
// change is one transaction that locks the bill row (SELECT … FOR UPDATE); uniqueness is held by
// constraints (INSERT … ON CONFLICT DO NOTHING), so concurrent instances agree without retries.
// Notices are claimed with FOR UPDATE SKIP LOCKED; requery claims are a leased column updated in
// one statement; `exclusive` is a session advisory lock; `events` is LISTEN/NOTIFY.
// The hot path is one round trip per write: a status change is one call of bc_apply_status, and
// notice attempts finished together are one call of bc_finish_notice_attempts (both in migration
// 5). Status changes committed together are announced to other instances in one NOTIFY after
// their commits (coalesce.ts): a transaction that notifies holds the database's notify lock until
// its commit is flushed, which made every status change wait for the one before (600 callbacks/s).
//
// This file opens the pool and composes the store of its concerns, one file each in postgres/:
// bills.ts, notices.ts, customers.ts, claims.ts and events.ts (LISTEN/NOTIFY); context.ts is what
// they share. Its failures are classified by postgres/unavailable.ts. Its driver, pg, is loaded
// when this module is (postgres/driver.ts): without pg installed, importing it fails with what to install.

import { migratePostgres } from './migrations.js';
import { pgBills } from './bills.js';
import { pgClaims } from './claims.js';
import { pgContext } from './context.js';
import { pgCustomers } from './customers.js';
import { loadPg } from './driver.js';
import { pgEvents } from './events.js';
import { pgNotices } from './notices.js';
import { pgUnavailable } from './unavailable.js';
import type { Store } from '../types.js';
import { classifyFailures } from '../unavailable.js';

export { pgUnavailable };

const pg = await loadPg();

export interface PostgresStoreOptions {
  /** Pool size (default 10). */
  max?: number;
  /** Schema to work in (search_path), for tests that share one database. */
  schema?: string;
  /** Clock for bookkeeping the contract does not pass a time for (migrations). */
  now?: () => number;
  /** Called when a LISTEN connection fails (it reconnects by itself). */
  onError?: (error: unknown) => void;
}

export function createPostgresStore(connectionString: string, options: PostgresStoreOptions = {}): Store {
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => undefined);
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error('schema must be a plain lower-case name');
  const clientConfig = { connectionString, ...(schema ? { options: `-c search_path=${schema}` } : {}) };
  // A database that drops packets instead of refusing: a new connection gives up after 5 s (then
  // 503 store_unavailable), not after the operating system's TCP timeout.
  const pool = new pg.Pool({ ...clientConfig, max: options.max ?? 10, connectionTimeoutMillis: 5000 });
  // An idle client whose server went away: the next query reports it; this must not crash the process.
  pool.on('error', onError);
  // Status changes are announced on this channel; NOTIFY reaches the whole database, so stores in
  // other schemas of it (tests) use their own.
  const statusChannel = schema ? `bill_status_${schema}` : 'bill_status';
  const context = pgContext(pool, onError);
  const { events, announce, stopListening } = pgEvents(pool, clientConfig, statusChannel, onError);

  const store: Store = {
    driver: 'pg',
    events,
    async migrate() {
      const client = await pool.connect();
      try {
        await migratePostgres(client, now());
      } finally {
        client.release();
      }
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      await stopListening();
      if (!pool.ended) await pool.end();
    },

    ...pgBills(context, announce),
    ...pgNotices(context),
    ...pgCustomers(context),
    ...pgClaims(context),
  };
  return classifyFailures(store, (error) => pgUnavailable(error, options.max ?? 10));
}
