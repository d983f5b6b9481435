// What every concern of the SQLite store works with: the connection, its statements (each prepared
// once), and writes that resolve once durable. store.ts makes it; bills.ts, notices.ts,
// customers.ts and claims.ts take it.

import type { SqliteDatabase, SqliteStatement as Statement } from './driver.js';
import type { WalSync } from './wal-sync.js';

export interface SqliteContext {
  readonly db: SqliteDatabase;
  /** The statement of `sql`, prepared on first use and kept. */
  q(sql: string): Statement;
  /** Every write: refused once a sync failed; resolved once the commit is on disk. */
  writing<T>(commit: () => T): Promise<T>;
}

/** `walSync`: null where there is no WAL file to sync (in memory): a write then resolves as it commits. */
export function sqliteContext(db: SqliteDatabase, walSync: WalSync | null): SqliteContext {
  const writing = <T>(commit: () => T): Promise<T> => {
    if (walSync?.failure) return Promise.reject(walSync.failure);
    let value: T;
    try {
      value = commit();
    } catch (error) {
      return Promise.reject(error);
    }
    return walSync ? walSync.durable().then(() => value) : Promise.resolve(value);
  };

  // Prepared lazily: the tables exist only once migrate() has run.
  const statements = new Map<string, Statement>();
  const q = (sql: string): Statement => {
    let s = statements.get(sql);
    if (!s) {
      s = db.prepare(sql);
      statements.set(sql, s);
    }
    return s;
  };

  return { db, q, writing };
}
