// The SQLite store (sqlite/driver.ts). Durable: a write resolves once its WAL frames are on disk
// (sqlite/wal-sync.ts syncs them off the event loop), so a final status and its notices are
// stored when applyStatus resolves. Every write is one IMMEDIATE transaction, which takes the
// write lock up front: several connections (or processes) on one file serialize instead of
// failing with SQLITE_BUSY halfway through.
//
// This file opens the database (the driver, its settings, the WAL sync and the checkpointer) and
// composes the store of its concerns, one file each in sqlite/: bills.ts, notices.ts, customers.ts,
// claims.ts (context.ts is what they share). Its failures are classified by sqlite/unavailable.ts.

import { openSqlite } from './driver.js';
import type { SqliteDriverName } from './driver.js';
import { startCheckpointer } from './checkpointer.js';
import type { Checkpointer } from './checkpointer.js';
import { migrateSqlite } from './migrations.js';
import { createWalSync } from './wal-sync.js';
import type { WalSync, WalSyncOptions } from './wal-sync.js';
import { sqliteBills } from './bills.js';
import { sqliteClaims } from './claims.js';
import { sqliteContext } from './context.js';
import { sqliteCustomers } from './customers.js';
import { sqliteNotices } from './notices.js';
import { sqliteUnavailable } from './unavailable.js';
import type { Store } from '../types.js';
import { classifyFailures } from '../unavailable.js';

export { sqliteUnavailable };

export interface SqliteStoreOptions {
  /** Clock for bookkeeping the contract does not pass a time for (migrations). */
  now?: () => number;
  /** How long a connection waits for another's write lock, ms (default 5000). */
  busyTimeoutMs?: number;
  /** WAL checkpoints in a worker thread, every this many ms (default 5000; 0: SQLite's own, inside commits). */
  checkpointIntervalMs?: number;
  /** The checkpoint worker failed; SQLite's own checkpoints take over. */
  onCheckpointFailure?: (error: string) => void;
  /** After each checkpoint in the worker (metrics, tests). */
  onCheckpoint?: (result: { frames: number; copied: number }) => void;
  /** How the WAL file is flushed after commits (tests; default fdatasync). */
  syncWal?: WalSyncOptions['sync'];
  /** The SQLite driver (tests, benchmarks; default: the best the runtime has, see sqlite/driver.ts). */
  driver?: SqliteDriverName;
}

export function createSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  const now = options.now ?? Date.now;
  const db = openSqlite(path, { driver: options.driver });
  db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  // In memory (or where WAL is unavailable) there is no WAL file to sync or checkpoint.
  const onDisk = db.pragma('journal_mode = WAL', { simple: true }) === 'wal';
  db.pragma('foreign_keys = ON');
  // On disk, commits are synced by walSync, off the event loop; SQLite still syncs around checkpoints.
  db.pragma(`synchronous = ${onDisk ? 'NORMAL' : 'FULL'}`);
  const walSync: WalSync | null = onDisk ? createWalSync(`${path}-wal`, { sync: options.syncWal }) : null;
  const checkpointMs = options.checkpointIntervalMs ?? 5000;
  let checkpointer: Checkpointer | null = null;
  if (checkpointMs > 0 && onDisk) {
    db.pragma('wal_autocheckpoint = 0');
    checkpointer = startCheckpointer({
      path,
      driver: db.driver,
      intervalMs: checkpointMs,
      onFailure(error) {
        if (db.open) db.pragma('wal_autocheckpoint = 1000');
        options.onCheckpointFailure?.(error);
      },
      onCheckpoint: options.onCheckpoint,
    });
  }
  const context = sqliteContext(db, walSync);
  const { q, writing } = context;

  const store: Store = {
    driver: db.driver,
    migrate() {
      return writing(() => {
        migrateSqlite(db, now());
      });
    },
    async ping() {
      if (walSync?.failure) throw walSync.failure;
      q('SELECT 1').get();
    },
    async close() {
      await checkpointer?.close();
      await walSync?.close();
      if (db.open) db.close();
    },

    ...sqliteBills(context),
    ...sqliteNotices(context),
    ...sqliteCustomers(context),
    ...sqliteClaims(context),
  };
  return classifyFailures(store, (error) => sqliteUnavailable(error, options.busyTimeoutMs ?? 5000));
}
