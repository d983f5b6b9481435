// LISTEN/NOTIFY on this machine's PostgreSQL (a throwaway cluster, fsync and synchronous_commit
// on): how many notifications one and several senders get through to one and to two listeners,
// their delivery latency (from just before the sender's statement to the listener's `notification`
// event, CLOCK_MONOTONIC in every thread), and where it saturates. The payload is the size of our
// status announcement (events.ts: {from, changes: [{billId, version}]}, about 100 bytes for one
// change; the changes of a moment go in one).
//
// Why it saturates: a transaction that NOTIFYs takes one lock for the whole cluster before its
// commit (PreCommit_Notify, so that the queue holds notifications in commit order) and keeps it
// until its commit is over. Notifying transactions commit one after the other. Three kinds:
// - `notify`, ours (events.ts sends its announcements after the status is committed): a
//   transaction that writes nothing but the notification. PostgreSQL does not wait for the disk
//   at its commit (it wrote no WAL: RecordTransactionCommit), so the lock is held for
//   microseconds; the ceiling is CPU: the senders' backends, the queue, waking each listener.
// - `write_notify`: one statement that inserts a row and notifies, as a status change that
//   announced itself in its own transaction would. Its commit waits for its WAL flush with the
//   lock held, so these commit one flush at a time: the ceiling is about 1 / flush time, and
//   concurrent senders do not raise it (the trap bc_apply_status avoids, migration 5).
// - `plain_insert`: the same insert without NOTIFY, the comparison: concurrent commits share a
//   flush (group commit), and the rate grows with the senders.
// Each step prints transactions/s, notifications/s (changes/s), latency p50/p99, WAL flushes per
// transaction (pg_stat_wal) and the sessions waiting on that lock (`Lock:object`, pg_stat_activity).
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import process from 'node:process';
import pg from 'pg';
import { delay, monoMs, pick, quantile, report } from './lib/common.mjs';

const CHANNEL = 'bench_notify';
/** As events.ts names and shapes it: a UUID, a billId of the sandbox's form (B + 12), a version. */
const FROM = '6f1c2a8e-93b4-4d0a-a1f7-2c5e8b7d4f10';
const payloadOf = (seq, changes) => JSON.stringify({
  from: FROM,
  changes: Array.from({ length: changes }, (_, i) => ({ billId: `B${String(seq * 64 + i).padStart(12, '0')}`, version: seq })),
});

if (!isMainThread) {
  // A listener: its own thread and connection, as another BFF's LISTEN connection is.
  const sentAt = new Float64Array(workerData.sentAt);
  const client = new pg.Client(workerData.url);
  await client.connect();
  let latencies = [];
  let received = 0;
  client.on('notification', (n) => {
    const at = monoMs();
    const seq = JSON.parse(n.payload).changes[0].version;
    received++;
    if (sentAt[seq] > 0) latencies.push(at - sentAt[seq]);
  });
  await client.query(`LISTEN ${CHANNEL}`);
  parentPort.on('message', async (cmd) => {
    if (cmd === 'take') {
      parentPort.postMessage({ latencies, received });
      latencies = [];
      received = 0;
    } else if (cmd === 'stop') {
      await client.end();
      parentPort.postMessage({ stopped: true });
    }
  });
  parentPort.postMessage({ ready: true });
} else {
  await main();
}

async function main() {
  const { tsImport } = await import('tsx/esm/api');
  const { startPg } = await tsImport('../test/server/support/pg.ts', import.meta.url);
  const seconds = pick(3, 0.5);
  const cluster = await startPg({ settings: { track_wal_io_timing: 'on' } });
  const url = await cluster.createDatabase();
  const admin = new pg.Client(url);
  await admin.connect();
  await admin.query('CREATE TABLE plain_writes (id BIGINT, payload TEXT)');
  const capacity = 4_000_000;
  const sentAtBuffer = new SharedArrayBuffer(8 * capacity);
  const sentAt = new Float64Array(sentAtBuffer);
  let seq = 0;

  const listeners = [];
  const startListener = () => new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { url, sentAt: sentAtBuffer } });
    worker.once('error', reject);
    worker.once('message', () => resolve(worker));
  });
  const ask = (worker, cmd) => new Promise((resolve) => {
    worker.once('message', resolve);
    worker.postMessage(cmd);
  });

  const senders = [];
  const sendersOf = async (n) => {
    while (senders.length < n) {
      const c = new pg.Client(url);
      await c.connect();
      senders.push(c);
    }
    return senders.slice(0, n);
  };

  const statements = {
    notify: (s) => ({ name: 'notify', text: 'SELECT pg_notify($1, $2)', values: [CHANNEL, s] }),
    write_notify: (s, i) => ({
      name: 'write_notify', text: 'WITH w AS (INSERT INTO plain_writes VALUES ($3, $2) RETURNING id) SELECT pg_notify($1, $2) FROM w', values: [CHANNEL, s, i],
    }),
    plain: (s, i) => ({ name: 'plain', text: 'INSERT INTO plain_writes VALUES ($1, $2)', values: [i, s] }),
  };

  /** Sessions of this database waiting on the notify lock (`Lock:object`) per sample, and samples. */
  async function sampleLocks(until) {
    const sampler = new pg.Client(url);
    await sampler.connect();
    let waiting = 0;
    let samples = 0;
    while (!until.done) {
      const { rows } = await sampler.query(`SELECT count(*) FILTER (WHERE wait_event_type = 'Lock' AND wait_event = 'object')::int AS n
        FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
      waiting += rows[0].n;
      samples++;
      await delay(50);
    }
    await sampler.end();
    return samples ? waiting / samples : 0;
  }

  /**
   * pg_stat_wal now. Each backend adds its counts to it at most once a second, when idle: the senders
   * are made to add theirs first (pg_stat_force_next_flush, then a statement that goes idle after it).
   */
  const wal = async (clients) => {
    await Promise.all(clients.map((c) => c.query('SELECT pg_stat_force_next_flush()')));
    await Promise.all(clients.map((c) => c.query('SELECT 1')));
    const { rows: [w] } = await admin.query('SELECT wal_sync, wal_sync_time FROM pg_stat_wal');
    return { syncs: Number(w.wal_sync), syncMs: Number(w.wal_sync_time) };
  };

  /** One step: `n` connections each send `kind` one after the other for `seconds`. */
  async function step(name, kind, n, { changes = 1 } = {}) {
    const clients = await sendersOf(n);
    for (const l of listeners) await ask(l, 'take'); // drop what an earlier step left
    const walBefore = await wal(clients);
    const until = { done: false };
    const locks = kind === 'plain' ? Promise.resolve(0) : sampleLocks(until);
    let transactions = 0;
    const start = monoMs();
    const end = start + seconds * 1000;
    await Promise.all(clients.map(async (c) => {
      while (monoMs() < end) {
        const i = ++seq;
        const payload = payloadOf(i, changes);
        sentAt[i] = monoMs();
        await c.query(statements[kind](payload, i));
        transactions++;
      }
    }));
    const wallS = (monoMs() - start) / 1000;
    until.done = true;
    const lockWaiting = await locks;
    const walAfter = await wal(clients);
    await delay(kind === 'plain' ? 0 : 200); // the last notifications reach the listeners
    const taken = kind === 'plain' ? [] : await Promise.all(listeners.map((l) => ask(l, 'take')));
    const latencies = taken.flatMap((t) => t.latencies);
    const flushes = walAfter.syncs - walBefore.syncs;
    const prefix = `pg_notify.${name}`;
    report(`${prefix}.transactions_per_s`, transactions / wallS, 'tx/s');
    if (kind !== 'plain') {
      report(`${prefix}.notifications_per_s`, (transactions * changes) / wallS, 'changes/s');
      report(`${prefix}.received_per_listener`, Math.min(...taken.map((t) => t.received)) / transactions, 'ratio');
      report(`${prefix}.p50_ms`, quantile(latencies, 0.5), 'ms');
      report(`${prefix}.p99_ms`, quantile(latencies, 0.99), 'ms');
      report(`${prefix}.sessions_waiting_notify_lock`, lockWaiting, 'mean');
    }
    report(`${prefix}.wal_flushes_per_transaction`, flushes / Math.max(1, transactions), 'ratio');
    report(`${prefix}.wal_flush_mean_ms`, (walAfter.syncMs - walBefore.syncMs) / Math.max(1, flushes), 'ms');
    return { perS: transactions / wallS, flushMs: (walAfter.syncMs - walBefore.syncMs) / Math.max(1, flushes) };
  }

  try {
    const { rows: durability } = await admin.query(`SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'wal_sync_method')`);
    console.log(`# ${durability.map((r) => `${r.name}=${r.setting}`).join(', ')}; payload ${payloadOf(1, 1).length} bytes for one change`);
    const concurrencies = [1, 2, 4, 8, 16];
    listeners.push(await startListener());
    const notifyRates = [];
    for (const n of concurrencies) notifyRates.push((await step(`notify.one_listener.senders${n}`, 'notify', n)).perS);
    listeners.push(await startListener());
    for (const n of [1, 8]) notifyRates.push((await step(`notify.two_listeners.senders${n}`, 'notify', n)).perS);
    // The changes of a moment in one payload, as events.ts sends them (8 changes: about 450 bytes).
    const batched = await step('notify.two_listeners.senders8.changes8', 'notify', 8, { changes: 8 });
    const writeRates = [];
    const flushTimes = [];
    for (const n of concurrencies) {
      const r = await step(`write_notify.two_listeners.senders${n}`, 'write_notify', n);
      writeRates.push(r.perS);
      flushTimes.push(r.flushMs);
    }
    const plainRates = [];
    for (const n of concurrencies) plainRates.push((await step(`plain_insert.senders${n}`, 'plain', n)).perS);

    const flushMs = quantile(flushTimes, 0.5);
    report('pg_notify.notify_ceiling_transactions_per_s', Math.max(...notifyRates), 'tx/s');
    report('pg_notify.notify_ceiling_changes_per_s', batched.perS * 8, 'changes/s');
    report('pg_notify.write_notify_ceiling_transactions_per_s', Math.max(...writeRates), 'tx/s');
    report('pg_notify.wal_flush_ms', flushMs, 'ms');
    report('pg_notify.one_flush_at_a_time_per_s', 1000 / flushMs, 'tx/s');
    report('pg_notify.plain_insert_best_per_s', Math.max(...plainRates), 'tx/s');
    console.log('# a transaction that writes and notifies holds the cluster-wide notify lock through its WAL flush: such');
    console.log('# transactions commit one flush at a time (write_notify vs plain_insert). A notification alone (ours) does');
    console.log('# not wait for the disk: its ceiling is CPU, and more changes per notification raise it further.');
  } finally {
    for (const l of listeners) {
      await ask(l, 'stop');
      await l.terminate();
    }
    for (const c of senders) await c.end();
    await admin.end();
    await cluster.stop();
  }
  process.exit(process.exitCode ?? 0);
}
