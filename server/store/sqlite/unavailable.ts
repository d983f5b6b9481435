// The SQLite errors that mean "the store is out of reach, try again", told from every other one:
// the classifier store.ts gives classifyFailures (../unavailable.ts). Pure: tests call it as it is.

import { StoreUnavailableError } from '../errors.js';

/**
 * What a better-sqlite3 error says about using the database file, as an operator's fix: a
 * StoreUnavailableError when the file is locked by another connection past busy_timeout, cannot be
 * opened, sits on a failing, full or read-only disk, or the connection is closed; null for anything
 * else. A failed WAL sync is not one of them: it is a StoreSyncError, which needs a restart.
 */
export function sqliteUnavailable(error: unknown, busyTimeoutMs = 5000): StoreUnavailableError | null {
  const code = (error as { code?: unknown } | null)?.code;
  const because = (what: string) => new StoreUnavailableError(what, { cause: error });
  if (typeof code === 'string') {
    if (code.startsWith('SQLITE_BUSY')) {
      return because(`SQLite's file stayed locked by another connection longer than busy_timeout (${busyTimeoutMs} ms, ${code}): another process writes to DATABASE_URL's file, or a backup holds it; run one BFF process per SQLite file (PostgreSQL for several).`);
    }
    if (code.startsWith('SQLITE_CANTOPEN')) {
      return because(`SQLite cannot open its file (${code}): check that DATABASE_URL's file and its folder exist and that the BFF's user may read and write both.`);
    }
    if (code.startsWith('SQLITE_IOERR')) {
      return because(`The disk under SQLite's file failed a read or a write (${code}): check the disk (the kernel log) and the free space of DATABASE_URL's folder.`);
    }
    if (code === 'SQLITE_FULL') {
      return because("The disk holding SQLite's file is full (SQLITE_FULL): free space in DATABASE_URL's folder.");
    }
    if (code.startsWith('SQLITE_READONLY')) {
      return because(`SQLite's file cannot be written (${code}): the disk was remounted read-only (often after disk errors) or the file's permissions changed; check both.`);
    }
  }
  if (error instanceof TypeError && error.message === 'The database connection is not open') {
    return because('The SQLite connection is closed: this BFF is shutting down.');
  }
  return null;
}
