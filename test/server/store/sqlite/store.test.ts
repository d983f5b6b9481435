// The SQLite store: the Store contract on a temp file, then what only SQLite has (WAL, migrations,
// several connections and threads on one file), on each SQLite driver this runtime has
// (better-sqlite3 under Node 20; node:sqlite under Node 22 and 24; bun:sqlite and node:sqlite under
// Bun). The file doubles as its own worker-thread script.

import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../../../../server/store/open-store.js';
import { createSqliteStore } from '../../../../server/store/sqlite/store.js';
import { openSqlite, sqliteDrivers } from '../../../../server/store/sqlite/driver.js';
import type { SqliteDatabase, SqliteDriverName } from '../../../../server/store/sqlite/driver.js';
import { MIGRATIONS, SCHEMA_VERSION, migrateSqlite } from '../../../../server/store/sqlite/migrations.js';
import type { Store } from '../../../../server/store/types.js';
import { createdBill, newBill, statusRecord, storeContract } from '../store-contract.js';

interface RaceInput {
  path: string;
  driver: SqliteDriverName;
  worker: number;
  keys: number;
  barrier: SharedArrayBuffer;
  workers: number;
}

/** In a worker thread: wait for every worker, migrate, then insert one bill per key. */
async function race({ path, driver, worker, keys, barrier, workers }: RaceInput): Promise<string[]> {
  const store = createSqliteStore(path, { driver });
  const flag = new Int32Array(barrier);
  Atomics.add(flag, 0, 1);
  Atomics.notify(flag, 0);
  for (let seen = Atomics.load(flag, 0); seen < workers; seen = Atomics.load(flag, 0)) Atomics.wait(flag, 0, seen);
  await store.migrate();
  const holders: string[] = [];
  for (let k = 0; k < keys; k++) {
    const r = await store.insertBill(newBill({ merchantReference: `w${worker}-k${k}`, idempotencyKey: `key-${k}` }));
    holders.push(r.bill.merchantReference);
  }
  await store.close();
  return holders;
}

/** The first column of the first row. */
const scalar = (db: SqliteDatabase, sql: string): unknown => Object.values(db.prepare(sql).get() as object)[0];
/** The first column of every row. */
const column = (db: SqliteDatabase, sql: string): unknown[] => db.prepare(sql).all().map((row) => Object.values(row as object)[0]);

if (!isMainThread) {
  parentPort!.postMessage(await race(workerData as RaceInput));
} else {
  const dir = await mkdtemp(join(tmpdir(), 'store-sqlite-'));
  after(() => rm(dir, { recursive: true, force: true }));
  let files = 0;
  const tempPath = () => join(dir, `db-${++files}.sqlite`);

  for (const driver of sqliteDrivers()) {
    storeContract(`sqlite (${driver})`, async () => {
      const store = createSqliteStore(tempPath(), { driver });
      return { store, cleanup: () => store.close() };
    });

    describe(`SQLite store (${driver})`, () => {
      const T0 = 1_800_000_000_000;
      /** A connection of the test's own, beside the store's. */
      const connect = (path: string, options: { readonly?: boolean } = {}) => openSqlite(path, { ...options, driver });

      async function open(path: string): Promise<Store> {
        const store = createSqliteStore(path, { driver });
        await store.migrate();
        return store;
      }

      it('runs in WAL mode with the whole schema, amounts as TEXT', async (t) => {
        const path = tempPath();
        const store = await open(path);
        t.after(() => store.close());
        const bill = newBill({ amount: '0.10' });
        await store.insertBill(bill);
        const raw = connect(path, { readonly: true });
        t.after(() => raw.close());
        assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
        assert.equal(raw.pragma('user_version', { simple: true }), SCHEMA_VERSION);
        assert.deepEqual({ ...(raw.prepare('SELECT amount, typeof(amount) AS t FROM bills').get() as object) }, { amount: '0.10', t: 'text' });
        assert.ok((await stat(`${path}-wal`)).isFile());
      });

      it('copies the WAL into the database from its worker thread, not inside commits', { timeout: 10_000 }, async (t) => {
        const path = tempPath();
        // Checkpoints reported after the writes, each found the whole WAL in the database or not.
        let reports: boolean[] | null = null;
        let twoReports: () => void = () => undefined;
        const store = createSqliteStore(path, {
          checkpointIntervalMs: 20,
          onCheckpoint: (r) => {
            if (!reports) return;
            reports.push(r.frames > 0 && r.copied === r.frames);
            if (reports.length === 2) twoReports();
          },
        });
        t.after(() => store.close());
        await store.migrate();
        for (let i = 0; i < 50; i++) await store.insertBill(newBill({ merchantReference: `wal-${i}` }));
        const rows = () => {
          // The database file alone, as it would be found without its WAL.
          copyFileSync(path, `${path}.alone`);
          const alone = connect(`${path}.alone`, { readonly: true });
          try {
            return scalar(alone, `SELECT count(*) FROM bills WHERE merchant_reference LIKE 'wal-%'`);
          } finally {
            alone.close();
          }
        };
        // The second report after the writes came from a checkpoint that started after them.
        await new Promise<void>((resolve) => {
          twoReports = resolve;
          reports = [];
        });
        assert.equal(reports![1], true, 'the whole WAL copied');
        assert.equal(rows(), 50);
        assert.equal((await store.getByReference('wal-49'))?.merchantReference, 'wal-49');
      });

      it('applies each migration once, however often it runs', async (t) => {
        const path = tempPath();
        const store = await open(path);
        await store.migrate();
        await store.close();
        const raw = connect(path);
        t.after(() => raw.close());
        assert.deepEqual(migrateSqlite(raw, T0), []);
        assert.deepEqual(column(raw, 'SELECT version FROM schema_migrations'), MIGRATIONS.map((m) => m.version));

        const next = [...MIGRATIONS, { version: SCHEMA_VERSION + 1, name: 'extra', sql: 'CREATE TABLE extra (x TEXT) STRICT' }];
        assert.deepEqual(migrateSqlite(raw, T0, next), [SCHEMA_VERSION + 1]);
        assert.deepEqual(migrateSqlite(raw, T0, next), []);
        assert.equal(raw.pragma('user_version', { simple: true }), SCHEMA_VERSION + 1);
      });

      it('rolls a failing migration back whole', async (t) => {
        const path = tempPath();
        (await open(path)).close();
        const raw = connect(path);
        t.after(() => raw.close());
        const broken = [...MIGRATIONS, { version: 99, name: 'broken', sql: 'CREATE TABLE half (x TEXT); SELECT * FROM missing_table;' }];
        assert.throws(() => migrateSqlite(raw, T0, broken), /no such table: missing_table/);
        assert.equal(scalar(raw, `SELECT count(*) FROM sqlite_master WHERE name = 'half'`), 0);
        assert.equal(raw.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      });

      it('keeps everything across close and reopen', async () => {
        const path = tempPath();
        const first = await open(path);
        const bill = newBill({ idempotencyKey: 'persist', amount: '99.99' });
        await first.insertBill(bill);
        await first.completeCreate(bill.merchantReference, createdBill(bill.merchantReference, 'P1'), T0);
        const final = await first.applyStatus({ billId: 'P1', record: statusRecord('P1', 2, T0 + 1), outcome: 'paid', checkedAt: T0 + 2 }, ['webhook']);
        await first.close();

        const second = await open(path);
        try {
          assert.deepEqual(await second.getByBillId('P1'), final.bill);
          assert.equal((await second.getByIdempotencyKey('persist'))?.amount, '99.99', 'the amount as asked: a create answer only ever equals it');
          const [notice] = await second.claimNotices('webhook', T0 + 10, 1000, 10);
          assert.equal(notice?.id, 'msg_P1');
        } finally {
          await second.close();
        }
      });

      /** A WAL sync the test lets finish (or fail), one call at a time. */
      function heldSync() {
        const calls: { file: FileHandle; finish: () => void; fail: (e: Error) => void }[] = [];
        const waiters: { n: number; resolve: () => void }[] = [];
        return {
          calls,
          sync: (file: FileHandle) => new Promise<void>((finish, fail) => {
            calls.push({ file, finish, fail });
            for (const w of waiters.filter((x) => x.n <= calls.length)) w.resolve();
          }),
          /** Resolves once the sync has been called `n` times. */
          called: (n: number) => new Promise<void>((resolve) => {
            if (calls.length >= n) resolve();
            else waiters.push({ n, resolve });
          }),
        };
      }
      /** A migrated store whose WAL syncs wait for the test (the migration's first one let through). */
      async function migratedOnHeldSync(t: TestContext) {
        const held = heldSync();
        const store = createSqliteStore(tempPath(), { syncWal: held.sync });
        t.after(() => store.close());
        const migrating = store.migrate();
        await held.called(1);
        held.calls[0]!.finish();
        await migrating;
        return { store, held };
      }
      const settled = (p: Promise<unknown>) => Promise.race([p.then(() => 'resolved', () => 'rejected'), Promise.resolve('pending')]);

      it('answers a write once its WAL is synced, off the event loop; readers and onCommitted see it at commit', { timeout: 10_000 }, async (t) => {
        const { store, held } = await migratedOnHeldSync(t);
        const bill = newBill();
        const inserting = store.insertBill(bill);
        await held.called(2);
        assert.equal(held.calls[1]!.file.fd > 0, true);
        assert.equal(await settled(inserting), 'pending', 'answered before its sync');
        assert.equal((await store.getByReference(bill.merchantReference))?.merchantReference, bill.merchantReference);
        held.calls[1]!.finish();
        assert.equal((await inserting).inserted, true);

        const completing = store.completeCreate(bill.merchantReference, createdBill(bill.merchantReference, 'W1'), T0);
        await held.called(3);
        held.calls[2]!.finish();
        await completing;
        let committed: string | null = null;
        const applying = store.applyStatus(
          { billId: 'W1', record: statusRecord('W1', 2, T0 + 1), outcome: 'paid', checkedAt: T0 + 2 }, ['hook'],
          (r) => (committed = r.bill.outcome),
        );
        await held.called(4);
        assert.equal(committed, 'paid', 'onCommitted before the sync');
        assert.equal(await settled(applying), 'pending');
        held.calls[3]!.finish();
        assert.equal((await applying).becameFinal, true);
      });

      it('lets writes that commit while a sync runs share the next sync', { timeout: 10_000 }, async (t) => {
        const held = heldSync();
        const store = createSqliteStore(tempPath(), { syncWal: held.sync });
        t.after(() => store.close());
        const migrating = store.migrate();
        await held.called(1);
        // Ten writes commit while the first sync is still running: it may not cover them.
        const writes = Array.from({ length: 10 }, () => store.insertBill(newBill()));
        assert.deepEqual(await Promise.all(writes.map(settled)), Array(10).fill('pending'));
        held.calls[0]!.finish();
        await migrating;
        await held.called(2);
        assert.deepEqual(await Promise.all(writes.map(settled)), Array(10).fill('pending'));
        held.calls[1]!.finish();
        assert.equal((await Promise.all(writes)).filter((r) => r.inserted).length, 10);
        assert.equal(held.calls.length, 2, 'one sync for all ten');
      });

      it('refuses every write and fails its health check after a failed sync, saying what to do', { timeout: 10_000 }, async (t) => {
        const { store, held } = await migratedOnHeldSync(t);
        const first = store.insertBill(newBill());
        await held.called(2);
        const second = store.insertBill(newBill()); // waits for the next sync, which never comes
        held.calls[1]!.fail(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
        const refused = (e: Error) => e.name === 'StoreSyncError' && /could not be synced.*EIO.*restart the process/s.test(e.message);
        await assert.rejects(first, refused);
        await assert.rejects(second, refused);
        const later = newBill();
        await assert.rejects(store.insertBill(later), refused);
        await assert.rejects(store.ping(), refused);
        assert.equal(await store.getByReference(later.merchantReference), null, 'a refused write is not committed');
        assert.equal(held.calls.length, 2);
      });

      it('two stores on one file see each other\'s writes, and a final status stays final across them', async (t) => {
        const path = tempPath();
        const a = await open(path);
        const b = await open(path);
        t.after(() => Promise.all([a.close(), b.close()]));
        const bill = newBill({ idempotencyKey: 'shared' });
        await a.insertBill(bill);
        assert.equal((await b.insertBill(newBill({ idempotencyKey: 'shared' }))).bill.merchantReference, bill.merchantReference);
        await b.completeCreate(bill.merchantReference, createdBill(bill.merchantReference, 'S1'), T0);
        assert.equal((await a.getByBillId('S1'))?.createState, 'created');

        const apply = (s: Store) => s.applyStatus({ billId: 'S1', record: statusRecord('S1', 2, T0 + 1), outcome: 'paid', checkedAt: T0 + 2 }, ['hook']);
        const results = await Promise.all([apply(a), apply(b), apply(a)]);
        assert.equal(results.filter((r) => r.becameFinal).length, 1);
        assert.equal((await a.claimNotices('hook', T0 + 5, 1000, 10)).length, 1);
        assert.equal((await b.claimNotices('hook', T0 + 5, 1000, 10)).length, 0, 'leased by the other store');
      });

      it('threads migrating a new file and inserting the same idempotency keys at once make one bill per key', async () => {
        const path = tempPath();
        const workers = 4;
        const keys = 40;
        const barrier = new SharedArrayBuffer(4);
        const runs = Array.from({ length: workers }, (_, worker) => new Promise<string[]>((resolve, reject) => {
          // Workers do not inherit tsx's loader under Node: register it, then load this file. Bun runs TypeScript itself.
          const boot = `import('tsx/esm/api').then((m) => m.tsImport(${JSON.stringify(import.meta.url)}, ${JSON.stringify(import.meta.url)}))`;
          const data = { workerData: { path, driver, worker, keys, barrier, workers } satisfies RaceInput };
          const w = process.versions.bun ? new Worker(new URL(import.meta.url), data) : new Worker(boot, { eval: true, ...data });
          w.once('message', resolve);
          w.once('error', reject);
          w.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
        }));
        const holders = await Promise.all(runs);
        const store = await open(path);
        try {
          for (let k = 0; k < keys; k++) {
            const stored = await store.getByIdempotencyKey(`key-${k}`);
            assert.ok(stored);
            assert.deepEqual(new Set(holders.map((h) => h[k])), new Set([stored.merchantReference]), `key-${k}`);
          }
          const raw = connect(path, { readonly: true });
          try {
            assert.equal(scalar(raw, 'SELECT count(*) FROM bills'), keys);
            assert.equal(scalar(raw, 'SELECT count(*) FROM schema_migrations'), MIGRATIONS.length);
          } finally {
            raw.close();
          }
        } finally {
          await store.close();
        }
      });
    });
  }

  describe('openStore', () => {
    it('opens file:PATH relative to the working directory, creating its folder, migrated', async (t) => {
      const cwd = process.cwd();
      process.chdir(dir);
      t.after(() => process.chdir(cwd));
      const store = await openStore('file:nested/deeper/app.sqlite');
      t.after(() => store.close());
      assert.ok((await stat(join(dir, 'nested/deeper/app.sqlite'))).isFile());
      assert.equal((await store.insertBill(newBill())).inserted, true);
    });

    it('refuses a scheme other than file: and postgres: without echoing it', async () => {
      // postgres:// is opened by the PostgreSQL store (store-postgres.test.ts).
      await assert.rejects(openStore('mysql://u:hunter22@db/x'), (err: Error) => {
        assert.match(err.message, /file:PATH or postgres/);
        assert.doesNotMatch(err.message, /hunter22/);
        return true;
      });
      await assert.rejects(openStore('data.sqlite'), /file:PATH/);
      await assert.rejects(openStore('file:'), /needs a path/);
    });
  });
}
