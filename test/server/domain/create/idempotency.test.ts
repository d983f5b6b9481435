// The same Idempotency-Key returns the same bill to the same request only
// (server/domain/create/idempotency.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sameAsRunning, sameRequest } from '../../../../server/domain/create/idempotency.js';

test('a repeat of the same order, with or without its amount, is the same request', () => {
  assert.equal(sameRequest({ orderId: 'o1', amount: '10' }, { orderId: 'o1', amount: null }), true);
  assert.equal(sameRequest({ orderId: 'o1', amount: '10' }, { orderId: 'o2', amount: null }), false);
  assert.equal(sameRequest({ orderId: null, amount: '10' }, { orderId: 'o1', amount: null }), false);
});

test('amounts compare as numbers, whether sent as text or as a JSON number', () => {
  assert.equal(sameRequest({ orderId: null, amount: '12.50' }, { orderId: null, amount: 12.5 }), true);
  assert.equal(sameRequest({ orderId: null, amount: '12.50' }, { orderId: null, amount: '12.5' }), true);
  assert.equal(sameRequest({ orderId: null, amount: '12.50' }, { orderId: null, amount: '12.51' }), false);
  assert.equal(sameRequest({ orderId: null, amount: '12.50' }, { orderId: null, amount: 'twelve' }), false);
});

test('a create still running (nothing stored) is repeated only by the request exactly as sent', () => {
  assert.equal(sameAsRunning({ orderId: null, amount: '5' }, { orderId: null, amount: 5 }), true);
  assert.equal(sameAsRunning({ orderId: null, amount: '5.0' }, { orderId: null, amount: '5' }), false);
  assert.equal(sameAsRunning({ orderId: 'o1', amount: null }, { orderId: 'o1', amount: null }), true);
  assert.equal(sameAsRunning({ orderId: 'o1', amount: null }, { orderId: 'o2', amount: null }), false);
});
