// The long forms (npm run soak). Sizes can be changed with SOAK_* variables.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAbuse } from './abuse.js';
import { runCrashScenario } from './crashes.js';
import { runFaultScenario } from './faults.js';
import { runForgery } from './forgery.js';
import { runHostile } from './hostile.js';
import { runLoad } from './load.js';
import { scanBuiltAssets } from './secrets.js';
import { printFigures } from './support/figures.js';
import { startPg } from '../server/support/pg.js';

const size = (name: string, fallback: number) => Number(process.env[`SOAK_${name}`] ?? fallback);
const counts = <T extends object>(f: T) =>
  Object.fromEntries(Object.entries(f).map(([k, v]) => [k, Array.isArray(v) && typeof v[0] !== 'object' ? v.length : v]));

test('faults: 1,000 bills under requery and callback faults', async (t) => {
  const f = await runFaultScenario(t, { bills: size('BILLS', 1000), seed: size('SEED', 1) });
  printFigures('soak-faults', counts(f));
  assert.deepEqual([f.wrongOutcomes, f.noticesLost, f.noticesDuplicated, f.wrongViews, f.watcherErrors, f.leaks, f.replayProblems].map((x) => x.slice(0, 5)),
    [[], [], [], [], [], [], []]);
});

test('crashes: SIGKILL at random moments during a faulty run', async (t) => {
  const f = await runCrashScenario(t, { bills: size('CRASH_BILLS', 1000), kills: size('KILLS', 8), seed: size('SEED', 1) + 7 });
  printFigures('soak-crashes', counts(f));
  assert.deepEqual([f.wrongOutcomes, f.noticesLost, f.noticesDuplicated, f.wrongViews, f.leaks].map((x) => x.slice(0, 5)), [[], [], [], [], []]);
});

test('pg crashes: SIGKILL at random moments during a faulty run on PostgreSQL', async (t) => {
  const cluster = await startPg();
  t.after(() => cluster.stop());
  const f = await runCrashScenario(t, {
    bills: size('CRASH_BILLS', 1000), kills: size('KILLS', 8), seed: size('SEED', 1) + 11, databaseUrl: await cluster.createDatabase(),
  });
  printFigures('soak-pg-crashes', counts(f));
  assert.deepEqual([f.wrongOutcomes, f.noticesLost, f.noticesDuplicated, f.wrongViews, f.leaks].map((x) => x.slice(0, 5)), [[], [], [], [], []]);
});

test('forgery: 10,000 forged callbacks and redirects', async (t) => {
  const f = await runForgery(t, size('FORGERIES', 10_000));
  printFigures('soak-forgery', counts(f));
  assert.deepEqual(f.accepted.slice(0, 5), []);
  assert.equal(f.requeriesFromWrongTokens, 0);
  assert.equal(f.cancelsFromWrongTokens, 0);
  assert.deepEqual(f.statusesChanged, []);
  assert.deepEqual(f.leaks, []);
});

test('hostile input: 1,000 runs per route', async (t) => {
  const f = await runHostile(t, size('RUNS', 1000));
  printFigures('soak-hostile', counts(f));
  assert.deepEqual(f.leaks, []);
});

test('load: 1,000 widgets for 60 s', async (t) => {
  const f = await runLoad(t, { widgets: size('WIDGETS', 1000), seconds: size('SECONDS', 60), pollIntervalMs: size('POLL_INTERVAL_MS', 3000) });
  printFigures('soak-load', counts(f));
  assert.deepEqual(f.errors.slice(0, 5), []);
  assert.deepEqual(f.wrong.slice(0, 5), []);
});

test('abuse: rate limit per client, a flood of 5,000 SSE connections', async (t) => {
  const f = await runAbuse(t, { limit: 30, sseCap: size('SSE_CAP', 1000), sseAttempts: size('SSE_ATTEMPTS', 5000) });
  printFigures('soak-abuse', f);
  assert.deepEqual(f.rateLimit.clientA, { 201: 30, 429: 5 });
  assert.deepEqual(f.rateLimit.clientB, { 201: 30 });
  assert.equal(f.sseFlood.streamed, f.sseFlood.cap);
  assert.equal(f.sseFlood.other, 0);
  assert.ok(f.sseFlood.afterFloodOpens);
});

test('secrets: none in the built assets', async () => {
  const f = await scanBuiltAssets();
  printFigures('soak-secrets', counts(f));
  assert.deepEqual(f.leaks, []);
});
