// When a failed exchange is tried again (server/upstream/retry-policy.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Attempt } from '../../../server/upstream/classify-response.js';
import { BillApiHttpError, BillApiNetworkError, BillApiThrottledError, type BillApiError } from '../../../server/upstream/errors.js';
import { retryDelay, type Backoff } from '../../../server/upstream/retry-policy.js';

const backoff = (random = 0.5): Backoff => ({ random: () => random, baseBackoffMs: 100, maxBackoffMs: 1_000 });
const failed = (error: BillApiError, retryAfterMs: number | null = null, throttled = false): Extract<Attempt, { ok: false }> =>
  ({ ok: false, error, retryAfterMs, throttled });
const network = failed(new BillApiNetworkError('x', { operation: 'requery', retryable: true }));
const throttled = failed(new BillApiThrottledError('x', { operation: 'requery', retryable: true, retryAfterMs: 5_000 }), 5_000, true);

test('a transient failure is retried after a jittered, doubling pause within the cap', () => {
  const spec = { retry: true };
  assert.equal(retryDelay(spec, network, 0, 4, backoff(0.5)), 50);
  assert.equal(retryDelay(spec, network, 1, 4, backoff(0.5)), 100);
  assert.equal(retryDelay(spec, network, 2, 4, backoff(0.999)), 399);
  assert.equal(retryDelay(spec, network, 9, 20, backoff(0.5)), 500, 'capped at maxBackoffMs');
  assert.equal(retryDelay(spec, network, 0, 4, backoff(0)), 0);
});

test('no retry past the last attempt, for an operation not safe to repeat, or for an error that is not transient', () => {
  assert.equal(retryDelay({ retry: true }, network, 3, 4, backoff()), null);
  assert.equal(retryDelay({ retry: false }, network, 0, 1, backoff()), null);
  const notFound = failed(new BillApiHttpError('x', { operation: 'requery', retryable: false, httpStatus: 404 }));
  assert.equal(retryDelay({ retry: true }, notFound, 0, 4, backoff()), null);
  const createUnknown = failed(new BillApiNetworkError('x', { operation: 'create', retryable: true, outcomeUnknown: true }));
  assert.equal(retryDelay({ retry: true }, createUnknown, 0, 4, backoff()), null, 'a create of unknown outcome is settled, never repeated');
});

test('a refusal for load is retried only for news, at once: the budget holds the turn until the Retry-After', () => {
  assert.equal(retryDelay({ retry: true, priority: 'news' }, throttled, 0, 4, backoff()), 0);
  for (const priority of ['customer', 'watch', 'background'] as const) assert.equal(retryDelay({ retry: true, priority }, throttled, 0, 4, backoff()), null, priority);
  assert.equal(retryDelay({ retry: true }, throttled, 0, 4, backoff()), null, 'a customer by default');
  let urgent = false;
  assert.equal(retryDelay({ retry: true, priority: () => (urgent ? 'news' : 'watch') }, throttled, 0, 4, backoff()), null);
  urgent = true;
  assert.equal(retryDelay({ retry: true, priority: () => (urgent ? 'news' : 'watch') }, throttled, 0, 4, backoff()), 0, 'the priority is read now');
});

test('a Retry-After on another failure (a 502) is honoured, within the cap', () => {
  const gateway = (ms: number) => failed(new BillApiHttpError('x', { operation: 'requery', retryable: true, httpStatus: 502 }), ms);
  assert.equal(retryDelay({ retry: true }, gateway(700), 0, 4, backoff(0.5)), 700);
  assert.equal(retryDelay({ retry: true }, gateway(60_000), 0, 4, backoff(0.5)), 1_000);
  assert.equal(retryDelay({ retry: true }, gateway(10), 0, 4, backoff(0.5)), 50, 'the jitter when longer');
});
