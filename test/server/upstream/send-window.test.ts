// Requests sent in the last second, counted in tenths of it (server/upstream/send-window.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSendWindow } from '../../../server/upstream/send-window.js';

test('counts what was sent within the last second; older tenths drop out as time passes', () => {
  const window = createSendWindow(10_000);
  for (const at of [10_000, 10_050, 10_150, 10_950]) window.count(at);
  assert.equal(window.sent(10_950), 4);
  assert.equal(window.sent(11_000), 2, 'the first tenth (10.0 s to 10.1 s) is out');
  assert.equal(window.sent(11_100), 1);
  assert.equal(window.sent(11_899), 1);
  assert.equal(window.sent(11_900), 0, 'counted by tenths: the 10.9 s tenth is out a second after it began');
});

test('after a long quiet everything is forgotten at once', () => {
  const window = createSendWindow(0);
  for (let i = 0; i < 50; i++) window.count(i * 10);
  assert.equal(window.sent(499), 50);
  assert.equal(window.sent(60_000), 0);
  window.count(60_000);
  assert.equal(window.sent(60_000), 1);
});
