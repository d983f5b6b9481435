// Each SQLite driver of this runtime (sqlite-driver.ts) behaves as better-sqlite3, which the store
// was written for: real files, real locks, real failures. Their errors carry the same `SQLITE_*`
// codes, so the store tells an outage (a locked, missing, read-only or full database, a closed
// connection) from a bug the same way on every driver; transactions nest and roll back alike.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StoreUnavailableError } from '../../../../server/store/errors.js';
import { sqliteUnavailable } from '../../../../server/store/sqlite/store.js';
import { bestSqliteDriver, openSqlite, sqliteCodeName, sqliteDrivers } from '../../../../server/store/sqlite/driver.js';
import type { SqliteDatabase } from '../../../../server/store/sqlite/driver.js';

const dir = await mkdtemp(join(tmpdir(), 'sqlite-driver-'));
after(() => rm(dir, { recursive: true, force: true }));
let files = 0;

/** What `work` threw (it must throw). */
function thrown(work: () => unknown): Error & { code?: unknown } {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof Error, `an Error, not ${String(error)}`);
    return error;
  }
  assert.fail('it did not throw');
}

it('names result codes as better-sqlite3 does, extended ones included', () => {
  assert.equal(sqliteCodeName(5), 'SQLITE_BUSY');
  assert.equal(sqliteCodeName(5 | (3 << 8)), 'SQLITE_BUSY_TIMEOUT');
  assert.equal(sqliteCodeName(10 | (4 << 8)), 'SQLITE_IOERR_FSYNC');
  assert.equal(sqliteCodeName(19 | (8 << 8)), 'SQLITE_CONSTRAINT_UNIQUE');
  assert.equal(sqliteCodeName(1555), 'SQLITE_CONSTRAINT_PRIMARYKEY');
  assert.equal(sqliteCodeName(13), 'SQLITE_FULL');
  assert.equal(sqliteCodeName(14 | (99 << 8)), 'SQLITE_CANTOPEN', 'an extended code unknown here goes by its primary');
});

it('never loads better-sqlite3 where the runtime has SQLite built in', () => {
  const drivers = sqliteDrivers();
  assert.ok(drivers.length > 0);
  assert.equal(bestSqliteDriver(), drivers[0]);
  if (drivers.includes('better-sqlite3')) assert.deepEqual(drivers, ['better-sqlite3']);
});

for (const driver of sqliteDrivers()) {
  describe(`SQLite driver: ${driver}`, () => {
    const open = (path = join(dir, `d-${++files}.sqlite`), readonly = false): SqliteDatabase => {
      const db = openSqlite(path, { driver, readonly });
      after(() => db.close());
      return db;
    };
    const table = (db: SqliteDatabase) => {
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL, u TEXT UNIQUE) STRICT');
      return db;
    };

    it('is the driver asked for, in WAL mode, with better-sqlite3\'s statements', () => {
      const db = table(open());
      assert.equal(db.driver, driver);
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
      const insert = db.prepare('INSERT INTO t (id, n, u) VALUES (@id, @n, @u)');
      assert.equal(insert.run({ id: 'a', n: 1, u: 'x' }).changes, 1);
      assert.equal(db.prepare('INSERT INTO t (id, n) VALUES (?, ?)').run('b', 2).changes, 1);
      assert.equal(db.prepare('UPDATE t SET n = n + 1').run().changes, 2);
      assert.deepEqual({ ...(db.prepare('SELECT id, n, u FROM t WHERE id = ?').get('a') as object) }, { id: 'a', n: 2, u: 'x' });
      assert.equal(db.prepare('SELECT * FROM t WHERE id = ?').get('none'), undefined, 'no row is undefined');
      assert.deepEqual(db.prepare('SELECT id FROM t ORDER BY id').all().map((r) => (r as { id: string }).id), ['a', 'b']);
      assert.ok(Array.isArray(db.pragma('table_info(t)')), 'without simple: the rows');
    });

    it('commits a transaction, rolls it back when it throws, and nests as savepoints', () => {
      const db = table(open());
      const insert = db.prepare('INSERT INTO t (id, n) VALUES (?, ?)');
      const count = () => (db.prepare('SELECT count(*) AS c FROM t').get() as { c: number }).c;
      const inner = db.transaction((id: string) => {
        insert.run(id, 1);
        if (id.startsWith('bad')) throw new Error(`refused ${id}`);
      });
      const outer = db.transaction((ids: string[]) => ids.map((id) => {
        try {
          inner(id);
          return 'ok';
        } catch {
          return 'rolled back';
        }
      }));
      assert.deepEqual(outer.immediate(['a', 'bad-1', 'b']), ['ok', 'rolled back', 'ok'], 'one failing savepoint leaves the others');
      assert.equal(count(), 2);
      assert.throws(() => db.transaction(() => {
        insert.run('c', 1);
        insert.run('a', 1);
      })(), (e: Error & { code?: string }) => e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY');
      assert.equal(count(), 2, 'the whole transaction rolled back');
      assert.equal(db.transaction(() => insert.run('d', 1).changes).immediate(), 1);
      assert.equal(count(), 3);
    });

    it('an IMMEDIATE transaction holds the write lock: another connection is SQLITE_BUSY, an outage', () => {
      const path = join(dir, `d-${++files}.sqlite`);
      const db = table(open(path));
      const other = open(path);
      other.pragma('busy_timeout = 10');
      const error = db.transaction(() => thrown(() => other.prepare(`INSERT INTO t (id, n) VALUES ('x', 1)`).run())).immediate();
      assert.equal(error.code, 'SQLITE_BUSY');
      const beginning = db.transaction(() => thrown(() => other.transaction(() => undefined).immediate())).immediate();
      assert.equal(beginning.code, 'SQLITE_BUSY', 'BEGIN IMMEDIATE itself');
      assert.match(sqliteUnavailable(error, 10)?.message ?? '', /locked by another connection longer than busy_timeout \(10 ms, SQLITE_BUSY\)/);
    });

    it('a file that cannot be opened is SQLITE_CANTOPEN, an outage', () => {
      const error = thrown(() => openSqlite(join(dir, 'missing-folder', 'x.sqlite'), { driver }));
      assert.match(String(error.code), /^SQLITE_CANTOPEN/);
      assert.ok(sqliteUnavailable(error) instanceof StoreUnavailableError);
    });

    it('a write to a read-only connection is SQLITE_READONLY, an outage', () => {
      const path = join(dir, `d-${++files}.sqlite`);
      table(open(path));
      const error = thrown(() => open(path, true).prepare(`INSERT INTO t (id, n) VALUES ('x', 1)`).run());
      assert.match(String(error.code), /^SQLITE_READONLY/);
      assert.match(sqliteUnavailable(error)?.message ?? '', /cannot be written/);
    });

    it('a full database is SQLITE_FULL, an outage, and the connection goes on', () => {
      const db = table(open());
      db.pragma('max_page_count = 8');
      const insert = db.prepare('INSERT INTO t (id, n, u) VALUES (?, ?, ?)');
      const filling = db.transaction(() => {
        for (let i = 0; ; i++) insert.run(`row-${i}`, i, 'x'.repeat(1000) + i);
      });
      const error = thrown(() => filling.immediate());
      assert.equal(error.code, 'SQLITE_FULL');
      assert.match(sqliteUnavailable(error)?.message ?? '', /is full/);
      assert.equal((db.prepare('SELECT count(*) AS c FROM t').get() as { c: number }).c, 0, 'nothing of it stayed');
      db.pragma('max_page_count = 100000');
      assert.equal(insert.run('after', 1, null).changes, 1);
    });

    it('a constraint or a syntax error is the caller\'s, not an outage', () => {
      const db = table(open());
      db.prepare(`INSERT INTO t (id, n, u) VALUES ('a', 1, 'x')`).run();
      const unique = thrown(() => db.prepare(`INSERT INTO t (id, n, u) VALUES ('b', 1, 'x')`).run());
      assert.equal(unique.code, 'SQLITE_CONSTRAINT_UNIQUE');
      assert.equal(sqliteUnavailable(unique), null);
      const notNull = thrown(() => db.exec(`INSERT INTO t (id, n) VALUES ('c', NULL)`));
      assert.match(String(notNull.code), /^SQLITE_CONSTRAINT/);
      const syntax = thrown(() => db.prepare('SELEKT 1'));
      assert.equal(syntax.code, 'SQLITE_ERROR');
      assert.equal(sqliteUnavailable(syntax), null);
    });

    it('a closed connection throws better-sqlite3\'s TypeError, which says the BFF is shutting down', () => {
      const db = table(open());
      const statement = db.prepare('SELECT 1 AS one');
      db.close();
      assert.equal(db.open, false);
      for (const error of [thrown(() => statement.get()), thrown(() => db.prepare('SELECT 1')), thrown(() => db.exec('SELECT 1'))]) {
        assert.ok(error instanceof TypeError);
        assert.match(sqliteUnavailable(error)?.message ?? '', /shutting down/);
      }
    });
  });
}
