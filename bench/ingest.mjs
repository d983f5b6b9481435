// Callback ingest, one method for both stores: K bills paid in the sandbox, whose callbacks are
// held and then sent from here at a fixed concurrency, exactly as the sandbox would send them,
// after W more sent the same way untimed (the warm-up: a BFF's rate once V8 has compiled its path).
// Each makes the BFF requery the sandbox, store the final status durably and queue its notice;
// the merchant's webhook (a receiver here) gets each notice. SQLite: one BFF on a WAL file synced
// before each answer. PostgreSQL: two BFFs on one throwaway cluster (fsync and synchronous_commit
// on), the callbacks alternating between them, as a balancer would send them.
// Prints callbacks per second, lost (sent - finals stored), notices delivered, CPU per callback of
// each process, PostgreSQL's round trips per callback counted by pg_stat_statements (every
// statement the BFFs sent during the run, the notice worker's included), and the cross-instance
// latency from a callback to a watcher of that bill on the other instance seeing it paid.
// `npm run bench -- ingest` runs both; BENCH_INGEST_STORE=postgresql (or sqlite) runs one.
import { Buffer } from 'node:buffer';
import { execFileSync, spawnSync } from 'node:child_process';
import http from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import pg from 'pg';
import { eachLimited, goal, monoMs, pick, quantile, report } from './lib/common.mjs';
import { createBills, request, watch } from './lib/client.mjs';
import { startSandbox } from './lib/sandbox.mjs';
import { spawnBff } from './lib/spawn.mjs';

const count = pick(3000, 400);
/**
 * Callbacks sent before the timed ones, untimed: until then the BFFs have only created bills, and
 * V8 compiles the callback path while it runs (14.7 % of all the machine's CPU samples in a cold run).
 * A BFF ingests for days; its rate is the one after warm-up.
 */
const warm = pick(4000, 100);
const concurrency = 32;
/** Bills watched over SSE on the instance that does not get their callback. */
const watched = pick(200, 40);
const goals = { sqlite: 1000, postgresql: 750 };
const WEBHOOK_SECRET = 'whsec_' + Buffer.from('bench-ingest-webhook-secret-32b!').toString('base64');

/** utime + stime of every live process whose command name is `postgres`, ms (Linux /proc). */
function postgresCpuMs() {
  const tick = 10; // USER_HZ is 100 on Linux
  let total = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      continue; // gone meanwhile
    }
    const close = stat.lastIndexOf(')');
    if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
    const fields = stat.slice(close + 2).split(' ');
    total += (Number(fields[11]) + Number(fields[12])) * tick;
  }
  return total;
}

const cpuMs = (u) => (u.user + u.system) / 1000;

async function run(store) {
  const held = [];
  const sandbox = await startSandbox({
    callbackFetch: async (url, init) => {
      held.push({ url: String(url), body: init.body });
      return new globalThis.Response('{"ok":true}', { status: 200 });
    },
  });
  const delivered = new Set();
  let allDelivered = null;
  // The merchant: plain node:http, so that its own cost in this process stays small.
  const receiver = http.createServer((req, res) => {
    delivered.add(req.headers['webhook-id']);
    if (delivered.size === warm + count) allDelivered ??= monoMs();
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const merchantUrl = `http://127.0.0.1:${receiver.address().port}/hook`;
  let cluster = null;
  let db = null;
  const env = {
    RECONCILE_INTERVAL_MS: '3600000',
    // Watchers open before the payment; only the callbacks may tell the BFF about it.
    REFRESH_WINDOW_MS: '600000',
    MERCHANT_WEBHOOK_URL: merchantUrl,
    MERCHANT_WEBHOOK_SECRET: WEBHOOK_SECRET,
  };
  if (store === 'postgresql') {
    const { startPg } = await tsImport('../test/server/support/pg.ts', import.meta.url);
    // pg_stat_statements counts the statements clients send (track=top): one each per round trip.
    cluster = await startPg({ settings: { shared_preload_libraries: 'pg_stat_statements' } });
    env.DATABASE_URL = await cluster.createDatabase();
    db = new pg.Client(env.DATABASE_URL);
    await db.connect();
    await db.query('CREATE EXTENSION pg_stat_statements');
  }
  const instances = [];
  try {
    // PostgreSQL: started one after the other, so the second finds the schema migrated.
    for (let i = 0; i < (store === 'postgresql' ? 2 : 1); i++) {
      instances.push(await spawnBff({ upstreamUrl: sandbox.url, env }));
    }
    const all = await createBills(instances[0].url, warm + count, 32);
    const warmIds = new Set(all.slice(0, warm).map((b) => b.billId));
    const bills = all.slice(warm);

    // Callback i goes to instance i % n; its bill, when watched, is watched on the next one.
    const indexOf = new Map(all.map((b, i) => [b.billId, i]));
    const sentAt = new Map();
    const seenPaid = [];
    const requeriesBeforeWatch = sandbox.sandbox.stats().calls.requery;
    const watchers = await Promise.all(bills.slice(0, watched).map((bill) => {
      const other = instances[(indexOf.get(bill.billId) + 1) % instances.length];
      return watch(`${other.url}/api/bills/${bill.billId}/events?token=${bill.token}`, (data, at) => {
        if (JSON.parse(data).outcome === 'paid' && sentAt.has(bill.billId)) seenPaid.push(at - sentAt.get(bill.billId));
      });
    }));
    // Each watcher's stream makes its BFF requery the bill once; a payment before that answer
    // tells the BFF before its callback does, and that watcher's latency is not measured.
    const watchDeadline = monoMs() + 10_000;
    while (sandbox.sandbox.stats().calls.requery < requeriesBeforeWatch + watchers.length && monoMs() < watchDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (const bill of all) sandbox.sandbox.pay(bill.billId);
    while (held.length < warm + count) await new Promise((resolve) => setTimeout(resolve, 10));

    const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
    let ok = 0;
    let refused = 0;
    const send = async ({ url, body }) => {
      const billId = JSON.parse(body).billId;
      const i = indexOf.get(billId);
      const target = new URL(url);
      const base = new URL(instances[i % instances.length].url);
      target.host = base.host;
      if (!warmIds.has(billId)) sentAt.set(billId, monoMs());
      const r = await request(target, { method: 'POST', agent, headers: { 'content-type': 'application/json' }, body });
      if (r.status === 200) ok++;
      else refused++;
    };
    const warmHeld = held.filter(({ body }) => warmIds.has(JSON.parse(body).billId));
    const timedHeld = held.filter(({ body }) => !warmIds.has(JSON.parse(body).billId));
    await eachLimited(warmHeld, concurrency, send);
    const warmDeadline = monoMs() + 30_000;
    while (delivered.size < warm && monoMs() < warmDeadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const warmOk = ok;
    ok = 0;
    const requeriesBefore = sandbox.sandbox.stats().calls.requery;
    if (db) await db.query('SELECT pg_stat_statements_reset()');
    await Promise.all(instances.map((b) => b.call('profile', { start: true })));
    const cpuBefore = await Promise.all(instances.map((b) => b.call('cpu')));
    const pgBefore = postgresCpuMs();
    const cpuHere = process.cpuUsage();
    const start = monoMs();
    // What PostgreSQL's sessions of the BFFs are doing, sampled every 50 ms while callbacks arrive. A
    // sample costs about 0.7 ms of CPU (PostgreSQL and this process): every 10 ms took 3.5 % of the machine.
    const waits = new Map();
    const sending = { done: false };
    let samples = 0;
    let sampling = null;
    if (db) {
      const sampler = new pg.Client(env.DATABASE_URL);
      await sampler.connect();
      sampling = (async () => {
        while (!sending.done) {
          const { rows } = await sampler.query(`SELECT COALESCE(wait_event_type || ':' || wait_event, 'on CPU') AS what, count(*)::int AS n
            FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'
            GROUP BY 1`);
          samples++;
          for (const r of rows) waits.set(r.what, (waits.get(r.what) ?? 0) + r.n);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await sampler.end();
      })();
    }
    console.log(`# ${store}: ${warmOk} warm-up callbacks done; the timed ${count} start`);
    await eachLimited(timedHeld, concurrency, send);
    const seconds = (monoMs() - start) / 1000;
    sending.done = true;
    await sampling;
    const usedHere = cpuMs(process.cpuUsage(cpuHere));
    const pgUsed = postgresCpuMs() - pgBefore;
    const cpuAfter = await Promise.all(instances.map((b) => b.call('cpu')));
    for (const file of await Promise.all(instances.map((b) => b.call('profile', {})))) if (file) console.log(`# CPU profile of the callbacks: ${file}`);
    agent.destroy();
    const deadline = monoMs() + 30_000;
    while (delivered.size < warm + count && monoMs() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    for (const w of watchers) w.close();
    let statements = null;
    if (db) {
      // Every statement of the run and of the notices' delivery after it, counted by the server; this client's own are left out.
      const { rows } = await db.query(`SELECT calls::int, query FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%pg_stat_activity%'
        ORDER BY calls DESC`);
      statements = rows;
    }

    // Lost and stored count the warm-up's callbacks too: none of them may be lost either.
    const finals = await instances[0].call('finals', { billIds: all.map((x) => x.billId) });
    const name = `ingest.${store}`;
    report(`${name}.instances`, instances.length, 'count');
    report(`${name}.warmup_callbacks`, warmOk, 'count');
    report(`${name}.callbacks`, count, 'count');
    report(`${name}.concurrency`, concurrency, 'count');
    report(`${name}.callbacks_per_s`, count / seconds, 'callbacks/s');
    report(`${name}.acknowledged`, ok, 'count');
    report(`${name}.refused`, refused, 'count');
    report(`${name}.requeries`, sandbox.sandbox.stats().calls.requery - requeriesBefore, 'count');
    report(`${name}.finals_stored`, finals, 'count');
    report(`${name}.lost`, warm + count - finals, 'count');
    report(`${name}.notices_delivered`, delivered.size - warm, 'count');
    // How far notices lag behind callbacks: 0 when the last was delivered before the last callback was answered.
    if (allDelivered !== null) report(`${name}.notices_lag_ms`, Math.max(0, allDelivered - start - seconds * 1000), 'ms');
    // Where the time goes, per callback: each BFF, this process (sender, sandbox, webhook receiver, watchers), PostgreSQL.
    instances.forEach((_, i) => {
      const used = cpuMs(cpuAfter[i]) - cpuMs(cpuBefore[i]);
      report(`${name}.bff${i + 1}_cpu_ms_per_callback`, used / count, 'ms');
      report(`${name}.bff${i + 1}_cpu_busy`, used / 1000 / seconds, 'ratio');
    });
    report(`${name}.bench_process_cpu_ms_per_callback`, usedHere / count, 'ms');
    if (store === 'postgresql') {
      report(`${name}.postgres_cpu_ms_per_callback`, pgUsed / count, 'ms');
      const calls = statements.reduce((sum, s) => sum + s.calls, 0);
      report(`${name}.round_trips_per_callback`, calls / count, 'count');
      for (const s of statements.slice(0, 8)) {
        console.log(`#   ${(s.calls / count).toFixed(3)} per callback: ${s.query.replace(/\s+/g, ' ').slice(0, 110)}`);
      }
      // Sessions busy per sample, by what they were doing: on CPU, or waiting (for the WAL flush, a lock, the client…).
      for (const [what, n] of [...waits].sort((a, b) => b[1] - a[1]).slice(0, 6)) {
        report(`${name}.sessions.${what.replace(/[^A-Za-z0-9]+/g, '_').toLowerCase()}`, n / samples, 'mean');
      }
      goal(`${name}.round_trips_per_callback`, calls / count <= 3, 3, 'count');
    }
    report(`${name}.watched`, seenPaid.length, 'count');
    if (seenPaid.length) {
      report(`${name}.${instances.length > 1 ? 'cross_instance_' : ''}paid_to_watcher_p50_ms`, quantile(seenPaid, 0.5), 'ms');
      report(`${name}.${instances.length > 1 ? 'cross_instance_' : ''}paid_to_watcher_p99_ms`, quantile(seenPaid, 0.99), 'ms');
    }
    goal(`${name}.callbacks_per_s`, count / seconds >= goals[store], goals[store], 'callbacks/s');
    goal(`${name}.lost`, finals === warm + count, 0, 'count');
    if (finals !== warm + count) process.exitCode = 1;
  } finally {
    await Promise.all(instances.map((b) => b.close()));
    await db?.end();
    await cluster?.stop();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    await sandbox.close();
  }
}

const only = process.env.BENCH_INGEST_STORE;
if (only) {
  await run(only);
} else {
  // Each store in a process of its own, after the disk has written back what the run before left:
  // PostgreSQL measured 713–750 callbacks/s after SQLite's run in the same process, 761–849 alone.
  for (const store of ['sqlite', 'postgresql']) {
    execFileSync('sync');
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
      stdio: 'inherit', env: { ...process.env, BENCH_INGEST_STORE: store },
    });
    if (child.status !== 0) process.exitCode = child.status ?? 1;
  }
}
