// The arithmetic of the budget's adaptive rate (server/upstream/rate-rules.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { burstOf, loweredRate, raisedRate, refilled, untilToken } from '../../../server/upstream/rate-rules.js';

test('slow start grows the rate by half a window; after the first refusal by a twentieth, at least 1; never past the limit', () => {
  assert.equal(raisedRate(8, Infinity, true), 12);
  assert.equal(raisedRate(8, Infinity, false), 9, 'at least one more');
  assert.equal(raisedRate(100, Infinity, false), 105);
  assert.equal(raisedRate(9.5, 10, false), 10);
  assert.equal(raisedRate(9, 10, true), 10);
});

test('a refusal halves what was really sent in the last window (a set limit loses a tenth), never below the floor', () => {
  assert.equal(loweredRate(40, 20, 1, false), 10, 'from the 20 sent, not the 40 allowed');
  assert.equal(loweredRate(Infinity, 30, 1, false), 15, 'an unlimited budget halves what it sent');
  assert.equal(loweredRate(10, 10, 1, true), 9);
  assert.equal(loweredRate(4, 0, 1, false), 1, 'nothing sent counts as one, and the floor holds');
  assert.equal(loweredRate(8, 8, 5, false), 5);
});

test('bursts: a share of a second\'s worth, at least one token; unlimited stays unlimited', () => {
  assert.equal(burstOf(10, 0.1), 1);
  assert.equal(burstOf(100, 0.1), 10);
  assert.equal(burstOf(8, 0.5), 4);
  assert.equal(burstOf(Infinity, 0.5), Infinity);
});

test('tokens come back at the rate, up to the burst; the next whole token is this far off', () => {
  assert.equal(refilled(0, 500, 10, 5), 5);
  assert.equal(refilled(0, 100, 10, 5), 1);
  assert.equal(refilled(0.5, 10_000, 10, 2), 2);
  assert.equal(untilToken(0, 10), 100);
  assert.equal(untilToken(0.75, 10), 25);
  assert.equal(untilToken(-1, 4), 500, 'a debt is paid back first');
});
