// Short form of test/reliability/forgery.ts (the soak sends the full 10,000).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runForgery } from '../../reliability/forgery.js';
import { printFigures } from '../../reliability/support/figures.js';

test('forged callbacks, returns, reads and cancels change no status, and wrong tokens cost no requery', async (t) => {
  const f = await runForgery(t, Number(process.env.RELIABILITY_FORGERIES ?? 2_500));
  printFigures('forgery', { ...f, accepted: f.accepted.length, statusesChanged: f.statusesChanged.length, leaks: f.leaks.length });
  assert.deepEqual(f.accepted.slice(0, 10), []);
  assert.equal(f.requeriesFromWrongTokens, 0);
  assert.equal(f.cancelsFromWrongTokens, 0);
  assert.deepEqual(f.statusesChanged, []);
  assert.deepEqual(f.leaks, []);
});
