// What the concerns of each store share (server/store/sqlite/context.ts, server/store/postgres/context.ts):
// SQLite's durable writes and prepared statements, PostgreSQL's transactions and named statements.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pool, PoolClient } from 'pg';
import { StoreSyncError } from '../../../../server/store/errors.js';
import { named, pgContext } from '../../../../server/store/postgres/context.js';
import { sqliteContext } from '../../../../server/store/sqlite/context.js';
import type { SqliteDatabase } from '../../../../server/store/sqlite/driver.js';
import type { WalSync } from '../../../../server/store/sqlite/wal-sync.js';

/** A WAL sync the test completes by hand. */
function heldSync() {
  const waiting: (() => void)[] = [];
  const sync: WalSync & { failure: StoreSyncError | null } = {
    failure: null,
    durable: () => new Promise<void>((resolve) => waiting.push(resolve)),
    close: async () => undefined,
  };
  return { sync, flush: () => waiting.splice(0).forEach((resolve) => resolve()) };
}

const noDb = {} as SqliteDatabase;
const settled = async (p: Promise<unknown>) => {
  let state = 'pending';
  p.then(() => (state = 'resolved'), () => (state = 'rejected'));
  await new Promise((resolve) => setImmediate(resolve));
  return state;
};

test('SQLite: a write commits at once and resolves once the WAL sync says it is on disk', async () => {
  const { sync, flush } = heldSync();
  const { writing } = sqliteContext(noDb, sync);
  let committed = 0;
  const write = writing(() => ++committed);
  assert.equal(committed, 1, 'the commit ran in the call');
  assert.equal(await settled(write), 'pending', 'not durable yet');
  flush();
  assert.equal(await write, 1);
});

test('SQLite: a failed commit rejects; once a sync failed, no write runs at all', async () => {
  const { sync } = heldSync();
  const { writing } = sqliteContext(noDb, sync);
  await assert.rejects(writing(() => {
    throw new Error('constraint');
  }), /constraint/);
  sync.failure = new StoreSyncError('fsync failed');
  let ran = false;
  await assert.rejects(writing(() => (ran = true)), (e) => e === sync.failure);
  assert.equal(ran, false);
});

test('SQLite: in memory (no WAL file) a write resolves as it commits; a statement is prepared once', async () => {
  const prepared: string[] = [];
  const db = { prepare: (sql: string) => (prepared.push(sql), { sql }) } as unknown as SqliteDatabase;
  const { q, writing } = sqliteContext(db, null);
  assert.equal(await writing(() => 'done'), 'done');
  assert.equal(q('SELECT 1'), q('SELECT 1'));
  q('SELECT 2');
  assert.deepEqual(prepared, ['SELECT 1', 'SELECT 2']);
});

/** A pool of one fake connection that records its queries and its release. */
function fakePool(fail: { on?: string; rollback?: boolean } = {}) {
  const log: string[] = [];
  const client = {
    async query(text: string) {
      log.push(text);
      if (text === fail.on) throw new Error(`failed: ${text}`);
      if (text === 'ROLLBACK' && fail.rollback) throw new Error('connection lost');
      return { rows: [], rowCount: 0 };
    },
    release(broken?: Error) {
      log.push(broken ? `release broken: ${broken.message}` : 'release');
    },
  };
  const pool = { connect: async () => client } as unknown as Pool;
  return { pool, log };
}

test('PostgreSQL: a transaction commits what its work did, and gives its connection back', async () => {
  const { pool, log } = fakePool();
  const { tx } = pgContext(pool, () => undefined);
  assert.equal(await tx(async (c: PoolClient) => {
    await c.query('UPDATE x');
    return 7;
  }), 7);
  assert.deepEqual(log, ['BEGIN', 'UPDATE x', 'COMMIT', 'release']);
});

test('PostgreSQL: a failing transaction rolls back and rethrows; a failed rollback discards the connection', async () => {
  const failing = fakePool({ on: 'UPDATE x' });
  await assert.rejects(pgContext(failing.pool, () => undefined).tx(async (c) => c.query('UPDATE x')), /failed: UPDATE x/);
  assert.deepEqual(failing.log, ['BEGIN', 'UPDATE x', 'ROLLBACK', 'release']);
  const broken = fakePool({ on: 'UPDATE x', rollback: true });
  await assert.rejects(pgContext(broken.pool, () => undefined).tx(async (c) => c.query('UPDATE x')), /failed: UPDATE x/);
  assert.deepEqual(broken.log, ['BEGIN', 'UPDATE x', 'ROLLBACK', 'release broken: connection lost']);
});

test('PostgreSQL: a named statement carries its name and text with each call\'s values', () => {
  const read = named('bc_read', 'SELECT $1');
  assert.deepEqual(read([1]), { name: 'bc_read', text: 'SELECT $1', values: [1] });
  assert.deepEqual(read(['a']).values, ['a']);
});
