// The benches of the flash sale, run as a smoke (BENCH_QUICK=1: small N, seconds not minutes).
// Figures of time are the benches' to print, never asserted here: this checks that each bench still
// runs end to end, and the figures that are correctness rather than speed (nothing lost, nothing
// notified twice, nothing refused by a service whose limit the budget knows).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

interface BenchRun {
  code: number | null;
  figures: Map<string, number>;
  output: string;
}

/** `npm run bench -- <word>` at smoke size; its `name value unit` lines by name. */
function runBench(word: string): Promise<BenchRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'scripts/bench.mjs'), word], {
      cwd: root,
      env: { ...process.env, BENCH_QUICK: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const figures = new Map<string, number>();
      for (const line of output.split('\n')) {
        const match = /^([\w.]+) (-?[\d.]+(?:e[+-]?\d+)?) \S+$/.exec(line);
        if (match) figures.set(match[1]!, Number(match[2]));
      }
      resolve({ code, figures, output });
    });
  });
}

/** The figure, which the bench must have printed. */
function figure(run: BenchRun, name: string): number {
  const value = run.figures.get(name);
  assert.notEqual(value, undefined, `the bench printed no ${name}:\n${run.output.slice(-4000)}`);
  return value!;
}

/** Every printed figure whose name matches. */
function figuresLike(run: BenchRun, pattern: RegExp): [string, number][] {
  return [...run.figures].filter(([name]) => pattern.test(name));
}

test('flash sale: every payment shown, none lost or notified twice, none refused by the service', { timeout: 240_000 }, async () => {
  const run = await runBench('flash-sale');
  assert.equal(run.code, 0, run.output.slice(-4000));
  const lost = figuresLike(run, /^flash_sale\.[\w]+\.lost$/);
  assert.ok(lost.length > 0, `no lost figure:\n${run.output.slice(-4000)}`);
  for (const [name, value] of lost) assert.equal(value, 0, name);
  for (const [name, value] of figuresLike(run, /^flash_sale\.[\w]+\.duplicated$/)) assert.equal(value, 0, name);
  for (const [name, value] of figuresLike(run, /^flash_sale\.[\w]+\.refused$/)) assert.equal(value, 0, name);
});

test('fan-out: ours and the floor each deliver the payment to every watcher', { timeout: 240_000 }, async () => {
  const run = await runBench('fanout');
  assert.equal(run.code, 0, run.output.slice(-4000));
  assert.ok(figure(run, 'fanout.n1000.p99_ms') > 0);
  assert.ok(figure(run, 'fanout.n1000.floor_p99_ms') > 0);
  const once = figuresLike(run, /^fanout\.n\d+\.final_frame_not_once$/);
  assert.ok(once.length > 0, `no final_frame_not_once figure:\n${run.output.slice(-4000)}`);
  for (const [name, value] of once) assert.equal(value, 0, name);
});

test('ingest: both stores take every callback, PostgreSQL measured against SQLite', { timeout: 240_000 }, async () => {
  const run = await runBench('ingest');
  assert.equal(run.code, 0, run.output.slice(-4000));
  for (const [name, value] of figuresLike(run, /^ingest\.\w+\.lost$/)) assert.equal(value, 0, name);
  assert.ok(figure(run, 'ingest.pg_to_sqlite_ratio') > 0);
});

test('status reads: measured against bare Hono in the same run', { timeout: 240_000 }, async () => {
  const run = await runBench('status-reads');
  assert.equal(run.code, 0, run.output.slice(-4000));
  assert.ok(figure(run, 'status_reads.ratio') > 0);
  assert.equal(figure(run, 'status_reads.requeries_during_load'), 0);
});
