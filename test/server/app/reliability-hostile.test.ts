// Short form of test/reliability/hostile.ts: fast-check over every route.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runHostile } from '../../reliability/hostile.js';
import { printFigures } from '../../reliability/support/figures.js';

test('hostile bodies, queries and headers on every route: no 5xx, clear errors, oversized bodies refused early', async (t) => {
  const f = await runHostile(t, Number(process.env.RELIABILITY_RUNS ?? 60));
  printFigures('hostile', { ...f, leaks: f.leaks.length });
  for (const o of f.oversized) assert.ok(o.sentBeforeRefusal <= 256 * 1024, `refused after ${o.sentBeforeRefusal} bytes`);
  assert.deepEqual(f.leaks, []);
});
