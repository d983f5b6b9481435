// Short form of test/reliability/load.ts (the soak: 1,000 widgets for 60 s).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runLoad } from '../../reliability/load.js';
import { printFigures } from '../../reliability/support/figures.js';

test('widgets watching over SSE and polling while bills are paid see no error and the true final state', async (t) => {
  const f = await runLoad(t, { widgets: 200, seconds: 6, pollIntervalMs: 500 });
  printFigures('load', { ...f, errors: f.errors.length, wrong: f.wrong.length });
  assert.deepEqual(f.errors.slice(0, 5), []);
  assert.deepEqual(f.wrong.slice(0, 5), []);
  assert.ok(f.polls > f.polling);
});
