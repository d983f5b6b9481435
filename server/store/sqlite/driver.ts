// The SQLite connection of the store, on the best driver the runtime has: bun:sqlite under Bun,
// node:sqlite where it exists (Node ≥ 22.13, Deno ≥ 2.2), else better-sqlite3 (Node 20). Each is
// loaded only when a database is opened: better-sqlite3 is a native addon built for one Node ABI,
// which fails to load on other Node versions, on Bun and on Deno, and a PostgreSQL-only merchant
// needs none of them. The store uses a narrow subset of better-sqlite3's API, and that subset is
// what every driver is given here, errors included: each carries better-sqlite3's `code`
// ('SQLITE_BUSY', 'SQLITE_IOERR_FSYNC'…), by which the store tells an outage from a bug.
import { createRequire } from 'node:module';

export type SqliteDriverName = 'bun:sqlite' | 'node:sqlite' | 'better-sqlite3';

export interface SqliteRunResult {
  changes: number;
}

export interface SqliteStatement {
  /** The first row, or undefined when there is none. */
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): SqliteRunResult;
}

/** Any function: never[] takes every parameter list. */
type TransactionFunction = (...args: never[]) => unknown;

/** `fn` in a transaction: BEGIN (a savepoint when nested) … COMMIT, rolled back if it throws. */
export type SqliteTransaction<F extends TransactionFunction> = F & {
  /** BEGIN IMMEDIATE: the write lock is taken up front. */
  immediate: F;
};

export interface SqliteDatabase {
  readonly driver: SqliteDriverName;
  readonly open: boolean;
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  /** `PRAGMA source`: its rows, or with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple: true }): unknown;
  transaction<F extends TransactionFunction>(fn: F): SqliteTransaction<F>;
  close(): void;
}

export interface OpenSqliteOptions {
  readonly?: boolean;
  /** A given driver instead of the best one (tests, benchmarks); it fails if the runtime lacks it. */
  driver?: SqliteDriverName;
}

/** An error of SQLite, with the code better-sqlite3 gives it (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`…). */
export class SqliteError extends Error {
  override name = 'SqliteError';
  constructor(message: string, readonly code: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** better-sqlite3's message for a statement on a closed connection, which the store recognises. */
const CLOSED = 'The database connection is not open';

// Result codes (sqlite3.h): the primary ones, then the extended ones as primary | (n << 8).
const PRIMARY = [
  'OK', 'ERROR', 'INTERNAL', 'PERM', 'ABORT', 'BUSY', 'LOCKED', 'NOMEM', 'READONLY', 'INTERRUPT', 'IOERR', 'CORRUPT',
  'NOTFOUND', 'FULL', 'CANTOPEN', 'PROTOCOL', 'EMPTY', 'SCHEMA', 'TOOBIG', 'CONSTRAINT', 'MISMATCH', 'MISUSE', 'NOLFS',
  'AUTH', 'FORMAT', 'RANGE', 'NOTADB', 'NOTICE', 'WARNING',
];
const EXTENDED: Record<string, string[]> = {
  ERROR: ['MISSING_COLLSEQ', 'RETRY', 'SNAPSHOT', 'RESERVESIZE', 'KEY', 'UNABLE'],
  ABORT: ['', 'ROLLBACK'],
  BUSY: ['RECOVERY', 'SNAPSHOT', 'TIMEOUT'],
  LOCKED: ['SHAREDCACHE', 'VTAB'],
  READONLY: ['RECOVERY', 'CANTLOCK', 'ROLLBACK', 'DBMOVED', 'CANTINIT', 'DIRECTORY'],
  IOERR: [
    'READ', 'SHORT_READ', 'WRITE', 'FSYNC', 'DIR_FSYNC', 'TRUNCATE', 'FSTAT', 'UNLOCK', 'RDLOCK', 'DELETE', 'BLOCKED',
    'NOMEM', 'ACCESS', 'CHECKRESERVEDLOCK', 'LOCK', 'CLOSE', 'DIR_CLOSE', 'SHMOPEN', 'SHMSIZE', 'SHMLOCK', 'SHMMAP', 'SEEK',
    'DELETE_NOENT', 'MMAP', 'GETTEMPPATH', 'CONVPATH', 'VNODE', 'AUTH', 'BEGIN_ATOMIC', 'COMMIT_ATOMIC', 'ROLLBACK_ATOMIC',
    'DATA', 'CORRUPTFS', 'IN_PAGE', 'BADKEY', 'CODEC',
  ],
  CORRUPT: ['VTAB', 'SEQUENCE', 'INDEX'],
  CANTOPEN: ['NOTEMPDIR', 'ISDIR', 'FULLPATH', 'CONVPATH', 'DIRTYWAL', 'SYMLINK'],
  CONSTRAINT: [
    'CHECK', 'COMMITHOOK', 'FOREIGNKEY', 'FUNCTION', 'NOTNULL', 'PRIMARYKEY', 'TRIGGER', 'UNIQUE', 'VTAB', 'ROWID', 'PINNED',
    'DATATYPE',
  ],
  NOTICE: ['RECOVER_WAL', 'RECOVER_ROLLBACK', 'RBU'],
  WARNING: ['AUTOINDEX'],
  AUTH: ['USER'],
};
const CODE_NAMES = new Map<number, string>();
PRIMARY.forEach((name, primary) => {
  CODE_NAMES.set(primary, `SQLITE_${name}`);
  EXTENDED[name]?.forEach((extended, i) => {
    if (extended) CODE_NAMES.set(primary | ((i + 1) << 8), `SQLITE_${name}_${extended}`);
  });
});

// sqlite3_errstr()'s text of the primary codes an outage shows, for errors that carry no number
// (Deno's node:sqlite gives none for exec() and for opening).
const BY_MESSAGE: [RegExp, string][] = [
  [/^database is locked/, 'SQLITE_BUSY'],
  [/^database table is locked/, 'SQLITE_LOCKED'],
  [/^unable to open database file/, 'SQLITE_CANTOPEN'],
  [/^disk I\/O error/, 'SQLITE_IOERR'],
  [/^database or disk is full/, 'SQLITE_FULL'],
  [/^attempt to write a readonly database/, 'SQLITE_READONLY'],
  [/^database disk image is malformed/, 'SQLITE_CORRUPT'],
  [/^file is not a database/, 'SQLITE_NOTADB'],
  [/constraint failed/, 'SQLITE_CONSTRAINT'],
];

/** The `SQLITE_*` name of a result code (extended codes included). */
export function sqliteCodeName(code: number): string {
  return CODE_NAMES.get(code) ?? CODE_NAMES.get(code & 0xff) ?? 'SQLITE_ERROR';
}

/** node:sqlite's error (`code: 'ERR_SQLITE_ERROR'`, the number in `errcode`) as better-sqlite3's; anything else as it is. */
function fromNodeSqlite(error: unknown): unknown {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== 'ERR_SQLITE_ERROR') return error;
  const errcode = (error as { errcode?: unknown }).errcode;
  const code = typeof errcode === 'number'
    ? sqliteCodeName(errcode)
    : BY_MESSAGE.find(([pattern]) => pattern.test(error.message))?.[1] ?? 'SQLITE_ERROR';
  return new SqliteError(error.message, code, { cause: error });
}

// The drivers' own APIs, as far as this file uses them.
interface NativeStatement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): SqliteRunResult;
}
interface NativeDatabase {
  prepare(sql: string): NativeStatement;
  exec(sql: string): unknown;
  close(): void;
}
interface NodeSqliteModule {
  DatabaseSync: new (path: string, options?: { readOnly?: boolean }) => NativeDatabase & { readonly isTransaction?: boolean };
}
interface BunSqliteModule {
  Database: new (path: string, options?: { readonly?: boolean; create?: boolean; strict?: boolean }) => NativeDatabase & {
    transaction<F extends TransactionFunction>(fn: F): SqliteTransaction<F>;
  };
}
interface BetterSqlite3Database extends NativeDatabase {
  readonly open: boolean;
  pragma(source: string, options?: { simple: boolean }): unknown;
  transaction<F extends TransactionFunction>(fn: F): SqliteTransaction<F>;
}
type BetterSqlite3Module = new (path: string, options?: { readonly?: boolean }) => BetterSqlite3Database;

const require = createRequire(import.meta.url);

/**
 * A driver's module, required when a database is first opened (openSqlite is synchronous). Out of a
 * bundler's sight, as optional-peer.ts says why: better-sqlite3 may not be installed, and Bun's
 * module is no file to resolve.
 */
function requireDriver(name: SqliteDriverName): unknown {
  return require(/* webpackIgnore: true */ /* turbopackIgnore: true */ name);
}

type Loaded =
  | { name: 'bun:sqlite'; module: BunSqliteModule }
  | { name: 'node:sqlite'; module: NodeSqliteModule }
  | { name: 'better-sqlite3'; module: BetterSqlite3Module };

function load(name: SqliteDriverName): Loaded {
  switch (name) {
    case 'bun:sqlite':
      return { name, module: requireDriver(name) as BunSqliteModule };
    case 'node:sqlite':
      return { name, module: requireDriver(name) as NodeSqliteModule };
    case 'better-sqlite3':
      return { name, module: requireDriver(name) as BetterSqlite3Module };
  }
}

const ORDER: readonly SqliteDriverName[] = ['bun:sqlite', 'node:sqlite', 'better-sqlite3'];
const loaded = new Map<SqliteDriverName, Loaded>();
let best: Loaded | null = null;

function driver(name: SqliteDriverName | undefined): Loaded {
  if (name) {
    let found = loaded.get(name);
    if (!found) {
      found = load(name);
      loaded.set(name, found);
    }
    return found;
  }
  if (best) return best;
  const failures: string[] = [];
  for (const candidate of ORDER) {
    try {
      best = driver(candidate);
      return best;
    } catch (error) {
      failures.push(`${candidate}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }
  throw new Error(
    'No SQLite driver: this runtime has neither bun:sqlite nor node:sqlite (Node ≥ 22.13, Deno ≥ 2.2), and better-sqlite3 ' +
    `is not installed or does not load (on Node 20: npm install better-sqlite3). Or use DATABASE_URL=postgres://…. (${failures.join('; ')})`,
  );
}

/** The driver openSqlite uses when none is given; throws when there is none. */
export function bestSqliteDriver(): SqliteDriverName {
  return driver(undefined).name;
}

/** Every driver this runtime can open a database with: its built-in ones, or better-sqlite3 where it has none. */
export function sqliteDrivers(): SqliteDriverName[] {
  const builtIn = ORDER.filter((name) => {
    if (name === 'better-sqlite3') return false;
    try {
      driver(name);
      return true;
    } catch {
      return false;
    }
  });
  return builtIn.length > 0 ? builtIn : [bestSqliteDriver()];
}

/** Opens (creating when missing, unless read-only) the SQLite database at `path` on the best driver, or the one given. */
export function openSqlite(path: string, options: OpenSqliteOptions = {}): SqliteDatabase {
  const found = driver(options.driver);
  switch (found.name) {
    case 'better-sqlite3':
      try {
        return betterSqlite3(new found.module(path, { readonly: options.readonly ?? false }));
      } catch (error) {
        // It checks the folder itself, with a TypeError and no code, where SQLite would say CANTOPEN.
        if (error instanceof TypeError && /directory does not exist/.test(error.message)) {
          throw new SqliteError(`unable to open database file: ${error.message}`, 'SQLITE_CANTOPEN', { cause: error });
        }
        throw error;
      }
    case 'node:sqlite': {
      let db: InstanceType<NodeSqliteModule['DatabaseSync']>;
      try {
        db = new found.module.DatabaseSync(path, { readOnly: options.readonly ?? false });
      } catch (error) {
        throw fromNodeSqlite(error);
      }
      return adapted('node:sqlite', db, fromNodeSqlite, null, () => db.isTransaction);
    }
    case 'bun:sqlite': {
      // strict: named parameters bound without their prefix, as in better-sqlite3.
      const db = new found.module.Database(path, options.readonly ? { readonly: true, strict: true } : { create: true, strict: true });
      return adapted('bun:sqlite', db, (error) => error, db, () => undefined);
    }
  }
}

/** better-sqlite3 is the API the store was written for: its statements are used as they are. */
function betterSqlite3(db: BetterSqlite3Database): SqliteDatabase {
  return {
    driver: 'better-sqlite3',
    get open() {
      return db.open;
    },
    prepare: (sql) => db.prepare(sql),
    exec: (sql) => void db.exec(sql),
    pragma: (source, options) => db.pragma(source, options),
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
  };
}

/**
 * node:sqlite or bun:sqlite with better-sqlite3's API: `get` answers undefined for no row (Bun
 * answers null), a closed connection throws better-sqlite3's TypeError, errors carry its codes, and
 * transactions nest as savepoints (bun:sqlite has better-sqlite3's own; node:sqlite gets the same here).
 */
function adapted(
  name: 'node:sqlite' | 'bun:sqlite',
  db: NativeDatabase,
  translate: (error: unknown) => unknown,
  ownTransactions: { transaction<F extends TransactionFunction>(fn: F): SqliteTransaction<F> } | null,
  nativeInTransaction: () => boolean | undefined,
): SqliteDatabase {
  let open = true;
  const call = <T>(work: () => T): T => {
    if (!open) throw new TypeError(CLOSED);
    try {
      return work();
    } catch (error) {
      throw translate(error);
    }
  };
  const prepare = (sql: string): SqliteStatement => {
    const statement = call(() => db.prepare(sql));
    return {
      get: (...params) => call(() => statement.get(...params) ?? undefined),
      all: (...params) => call(() => statement.all(...params)),
      run: (...params) => call(() => statement.run(...params)),
    };
  };
  const pragma = (source: string, options?: { simple: true }): unknown => {
    const rows = prepare(`PRAGMA ${source}`).all() as Record<string, unknown>[];
    if (!options?.simple) return rows;
    const first = rows[0];
    return first === undefined ? undefined : Object.values(first)[0];
  };

  let transaction: SqliteDatabase['transaction'];
  if (ownTransactions) {
    transaction = (fn) => {
      const own = ownTransactions.transaction(fn);
      const wrap = (run: TransactionFunction) => ((...args: never[]) => call(() => run(...args))) as typeof fn;
      return Object.assign(wrap(own), { immediate: wrap(own.immediate) });
    };
  } else {
    // better-sqlite3's transactions: a savepoint when one is open, rolled back when the function throws.
    // Before Node 22.16 node:sqlite cannot say whether a transaction is open: the depth says it then.
    let depth = 0;
    const inTransaction = () => nativeInTransaction() ?? depth > 0;
    const statements = new Map<string, SqliteStatement>();
    const exec = (sql: string) => {
      let statement = statements.get(sql);
      if (!statement) {
        statement = prepare(sql);
        statements.set(sql, statement);
      }
      statement.run();
    };
    const wrap = <F extends TransactionFunction>(fn: F, begin: string): F => function (this: unknown, ...args: never[]) {
      const nested = inTransaction();
      exec(nested ? 'SAVEPOINT "bc."' : begin);
      depth++;
      try {
        const result = fn.apply(this, args);
        if (result instanceof Promise) throw new TypeError('Transaction function cannot return a promise');
        exec(nested ? 'RELEASE "bc."' : 'COMMIT');
        return result;
      } catch (error) {
        // SQLite may have rolled the whole transaction back by itself (a full disk, an I/O error).
        if (inTransaction()) {
          try {
            exec(nested ? 'ROLLBACK TO "bc."' : 'ROLLBACK');
            if (nested) exec('RELEASE "bc."');
          } catch (undoError) {
            // Counted by depth alone, an open transaction is a guess: SQLite's "none is open" ends it.
            if (nativeInTransaction() !== undefined) throw undoError;
          }
        }
        throw error;
      } finally {
        depth--;
      }
    } as unknown as F;
    transaction = (fn) => Object.assign(wrap(fn, 'BEGIN'), { immediate: wrap(fn, 'BEGIN IMMEDIATE') });
  }

  return {
    driver: name,
    get open() {
      return open;
    },
    prepare,
    exec: (sql) => void call(() => db.exec(sql)),
    pragma,
    transaction,
    close() {
      if (!open) return;
      open = false;
      db.close();
    },
  };
}
