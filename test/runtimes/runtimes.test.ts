// The compiled entry on every runtime docs/server.md lists, started exactly as its Runtimes table says
// (`bun dist/server/server/main.js`, `deno run -A dist/server/server/main.js`, `node …` on Node 24
// and on this machine's Node 20), with the usual environment and no other flag, on SQLite and on
// PostgreSQL: the demo page, a bill created over the API, paid at the embedded sandbox's control
// route, `paid` on its SSE stream, and a second stream that outlives Bun's default 10 s idle
// timeout (its first heartbeat comes at 15 s) and still sees its payment. Real runtimes, real HTTP,
// real SQLite files and a real PostgreSQL cluster; every wait is for an event, under a deadline.
// The runtimes come from the npm registry (scripts/runtimes.mjs), in RUNTIMES_DIR.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BillView, CreatedBillView } from '../../contract/bill-view.js';
import { bestSqliteDriver } from '../../server/store/sqlite/driver.js';
import type { SqliteDriverName } from '../../server/store/sqlite/driver.js';
import { startPg } from '../server/support/pg.js';
import type { PgCluster } from '../server/support/pg.js';
import { freePort } from '../support/ports.mjs';
import { within } from '../support/promises.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = 'dist/server/server/main.js';
const RUNTIMES_DIR = process.env.RUNTIMES_DIR;
const bin = (name: string) => join(RUNTIMES_DIR ?? '', 'node_modules', '.bin', name);
/** Bun's default idle timeout: a stream silent for longer is what this check keeps alive. */
const BUN_IDLE_MS = 10_000;
const DEADLINE_MS = 60_000;

interface Runtime {
  label: string;
  command: string[];
  /** What the BFF's start line must say it runs on. */
  says: RegExp;
  /** The SQLite driver it must name on a file: database. */
  sqlite: SqliteDriverName;
}

const runtimes: Runtime[] = [
  { label: 'Bun', command: [bin('bun'), ENTRY], says: /^bun 1\./, sqlite: 'bun:sqlite' },
  { label: 'Deno', command: [bin('deno'), 'run', '-A', ENTRY], says: /^deno 2\./, sqlite: 'node:sqlite' },
  { label: 'Node 24', command: [bin('node'), ENTRY], says: /^node 24\./, sqlite: 'node:sqlite' },
  { label: `Node ${process.versions.node.split('.')[0]} (this machine's)`, command: [process.execPath, ENTRY], says: new RegExp(`^node ${process.versions.node.replaceAll('.', '\\.')}$`), sqlite: bestSqliteDriver() },
];

let cluster: PgCluster;
let dir: string;

before(async () => {
  assert.ok(RUNTIMES_DIR, 'RUNTIMES_DIR names the folder that scripts/runtimes.mjs installed Bun, Deno and Node 24 into');
  for (const runtime of runtimes) assert.ok(existsSync(runtime.command[0]!), `${runtime.command[0]} is installed`);
  dir = await mkdtemp(join(tmpdir(), 'runtimes-'));
  // Built once: the element, the server and the demo, as `npm run build` leaves them.
  const { build } = (await import(pathToFileURL(join(ROOT, 'scripts/build.mjs')).href)) as { build: () => Promise<void> };
  const [started] = await Promise.all([startPg(), build()]);
  cluster = started;
}, { timeout: 300_000 });

after(async () => {
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Frame = { kind: 'status'; view: BillView } | { kind: 'comment'; text: string } | { kind: 'end' };

/** The frames of an SSE answer, one at a time: status events, comment lines (heartbeats), its end. */
function frames(res: Response): () => Promise<Frame> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return async () => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const lines = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        if (lines.includes('event: status')) {
          const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
          return { kind: 'status', view: JSON.parse(data) as BillView };
        }
        const comment = lines.find((l) => l.startsWith(':'));
        if (comment !== undefined) return { kind: 'comment', text: comment.slice(1).trim() };
        continue;
      }
      const { done, value } = await reader.read();
      if (done) return { kind: 'end' };
      buffer += value;
    }
  };
}

/** The BFF started as the contract says; resolves with its start line once it listens. */
async function start(runtime: Runtime, env: Record<string, string>): Promise<{
  child: ChildProcessByStdio<null, Readable, Readable>; started: Record<string, unknown>; output: () => string;
}> {
  const [command, ...args] = runtime.command;
  // The environment of a shell, not this process's (the build leaves NODE_ENV=production in it).
  const shell = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  const child = spawn(command!, args, { cwd: ROOT, env: { ...shell, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listening = new Promise<Record<string, unknown>>((resolve, reject) => {
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      pending += chunk.toString();
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (line.includes('"bill-checkout listening on ')) resolve(JSON.parse(line) as Record<string, unknown>);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${runtime.label} exited (${code}) before listening:\n${output}`)));
  });
  return { child, started: await within(listening, DEADLINE_MS, `gave up waiting: ${runtime.label} listening`), output: () => output };
}

const JSON_TYPE = { 'Content-Type': 'application/json' };
let orders = 0;

/** One bill of the demo shop, created over the API as the element creates it. */
async function createBill(base: string): Promise<CreatedBillView> {
  const res = await fetch(`${base}/api/bills`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ orderId: `demo-mug-${++orders}` }) });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as CreatedBillView;
}

/** Its stream, read up to its first (pending) status. */
async function watch(base: string, bill: CreatedBillView) {
  const res = await fetch(`${base}/api/bills/${bill.billId}/events?token=${bill.token}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const next = frames(res);
  const first = await next();
  assert.equal(first.kind === 'status' && first.view.outcome, 'pending');
  return next;
}

/** Reads up to the stream's first heartbeat, through pending statuses only; resolves with how long the stream was silent before it, ms. */
async function untilHeartbeat(next: () => Promise<Frame>): Promise<number> {
  let lastAt = performance.now();
  for (;;) {
    const frame = await next();
    if (frame.kind === 'comment') {
      assert.equal(frame.text, 'keep-alive');
      return performance.now() - lastAt;
    }
    assert.equal(frame.kind === 'status' && frame.view.outcome, 'pending', 'only pending statuses before the payment');
    lastAt = performance.now();
  }
}

async function pay(base: string, bill: CreatedBillView): Promise<void> {
  const res = await fetch(`${base}/sandbox/_control/bills/${bill.billId}/pay`, { method: 'POST' });
  assert.equal(res.status, 200, await res.clone().text());
  await res.body?.cancel();
}

/** Reads status frames until the final one: it must be `paid`, and the stream must end after it. */
async function untilPaid(next: () => Promise<Frame>): Promise<void> {
  for (;;) {
    const frame = await next();
    assert.notEqual(frame.kind, 'end', 'the stream ended before the payment');
    if (frame.kind !== 'status' || !frame.view.isFinal) continue;
    assert.equal(frame.view.outcome, 'paid');
    assert.equal((await next()).kind, 'end', 'the stream is closed after its final event');
    return;
  }
}

// All at once: each waits 15 s for a heartbeat, mostly idle.
describe('the compiled entry, started as the README says', { concurrency: true }, () => {
  for (const store of ['sqlite', 'postgresql'] as const) {
    for (const runtime of runtimes) {
      it(`${runtime.label}, ${store}: the demo, a payment end to end, and SSE past 10 s idle`, { timeout: 120_000 }, async (t) => {
        const port = await freePort();
        const base = `http://127.0.0.1:${port}`;
        const databaseUrl = store === 'sqlite' ? `file:${join(dir, `${runtime.command[0]!.split('/').at(-1)}-${port}.sqlite`)}` : await cluster.createDatabase();
        const spawnedAt = performance.now();
        const { child, started, output } = await start(runtime, { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, DATABASE_URL: databaseUrl });
        t.diagnostic(`${started.runtime}: listening ${Math.round(performance.now() - spawnedAt)} ms after its start`);
        t.after(() => void child.kill('SIGKILL'));
        assert.match(String(started.runtime), runtime.says, `${runtime.label} serves it`);
        assert.equal(started.database, store === 'sqlite' ? databaseUrl : 'postgres');
        assert.equal(started.databaseDriver, store === 'sqlite' ? runtime.sqlite : 'pg');

        // The demo page, and the element it loads.
        const page = await fetch(`${base}/`);
        assert.equal(page.status, 200);
        assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
        const html = await page.text();
        const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
        assert.ok(script, 'the demo page loads its script');
        assert.equal((await fetch(`${base}${script}`)).status, 200);
        const element = await fetch(`${base}/bill-checkout.js`);
        assert.equal(element.status, 200);
        await element.body?.cancel();

        // A stream left idle while another bill is paid end to end.
        const idle = await createBill(base);
        const idleStream = await within(watch(base, idle), DEADLINE_MS, 'gave up waiting: the idle stream opens');
        const bill = await createBill(base);
        const stream = await within(watch(base, bill), DEADLINE_MS, 'gave up waiting: the stream opens');
        await pay(base, bill);
        await within(untilPaid(stream), DEADLINE_MS, 'gave up waiting: paid on the stream');
        const read = (await (await fetch(`${base}/api/bills/${bill.billId}?token=${bill.token}`)).json()) as BillView;
        assert.equal(read.outcome, 'paid');

        // Its heartbeat comes after Bun's idle timeout would have closed it; then its payment arrives on it.
        const silentMs = await within(untilHeartbeat(idleStream), DEADLINE_MS, 'gave up waiting: a heartbeat on the idle stream');
        assert.ok(silentMs > BUN_IDLE_MS, `the stream was silent ${Math.round(silentMs)} ms, longer than Bun closes idle connections`);
        t.diagnostic(`the idle stream was silent ${Math.round(silentMs)} ms before its heartbeat`);
        await pay(base, idle);
        await within(untilPaid(idleStream), DEADLINE_MS, 'gave up waiting: paid on the stream that was idle');

        child.kill('SIGTERM');
        const [code] = (await within(once(child, 'exit'), 15_000, `gave up waiting: ${runtime.label} stops`)) as [number | null];
        assert.equal(code, 0, output());
        assert.doesNotMatch(output(), /"level":"error"/, 'no error logged');
      });
    }
  }
});
