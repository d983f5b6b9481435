// Short form of test/reliability/faults.ts (the soak runs 1,000 bills).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runFaultScenario } from '../../reliability/faults.js';
import { printFigures } from '../../reliability/support/figures.js';

test('under requery and callback faults, every bill ends as the service says, with one notice and no false final view', async (t) => {
  const f = await runFaultScenario(t, { bills: Number(process.env.RELIABILITY_BILLS ?? 150), seed: 20261122 });
  printFigures('faults', { ...f, wrongOutcomes: f.wrongOutcomes.length, noticesLost: f.noticesLost.length,
    noticesDuplicated: f.noticesDuplicated.length, wrongViews: f.wrongViews.length, watcherErrors: f.watcherErrors.length, leaks: f.leaks.length,
    replayProblems: f.replayProblems.length });
  assert.ok(f.faults.requeryErrors + f.faults.requeryHangs > 0 && f.faults.callbacksDropped > 0 && f.faults.callbacksDuplicated > 0,
    'faults were injected');
  assert.deepEqual(f.wrongOutcomes, []);
  assert.deepEqual(f.noticesLost, []);
  assert.deepEqual(f.noticesDuplicated, []);
  assert.deepEqual(f.wrongViews, []);
  assert.deepEqual(f.watcherErrors, []);
  assert.deepEqual(f.leaks, []);
  assert.ok(f.replays > 0, 'notices were replayed');
  assert.deepEqual(f.replayProblems, [], 'each replay reached the merchant once, with its webhook-id; nothing else was sent again');
});
