// What an exchange that got no answer comes to (server/upstream/exchange-errors.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { abortError, networkReason, signerFailed, signerValue, timedOut, unreachable } from '../../../server/upstream/exchange-errors.js';
import { BillApiSignerError } from '../../../server/upstream/errors.js';

const url = new URL('https://api.example/v1/bills?x=1');

test('a timeout: retryable for a requery; for a create, an unknown outcome to settle first', () => {
  const requery = timedOut('requery', url, 8_000, new Error('aborted'));
  assert.equal(requery.message, 'Bill API requery: no full answer from https://api.example/v1/bills within 8000 ms (BILL_API_TIMEOUT_MS).');
  assert.deepEqual([requery.retryable, requery.outcomeUnknown, requery.timeoutMs], [true, false, 8_000]);
  const create = timedOut('create', url, 8_000, null);
  assert.deepEqual([create.retryable, create.outcomeUnknown], [false, true]);
  assert.match(create.message, /settle it with findByMerchantReference before creating again\.$/);
});

test('out of reach: the system\'s code is named, and where to look', () => {
  const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
  const error = unreachable('list', url, refused);
  assert.equal(error.message, 'Bill API list: could not reach the bill payment service at https://api.example/v1/bills (ECONNREFUSED). Check BILL_API_BASE_URL and that the service is up.');
  assert.deepEqual([error.retryable, error.outcomeUnknown, error.cause], [true, false, refused]);
  assert.equal(unreachable('create', url, refused).outcomeUnknown, true);
});

test('networkReason: the cause\'s code, else its message, else the error\'s own', () => {
  assert.equal(networkReason(new Error('outer', { cause: { message: 'socket hang up' } })), 'socket hang up');
  assert.equal(networkReason(new Error('plain')), 'plain');
  assert.equal(networkReason('a string'), 'a string');
});

test('a caller\'s abort: never retried; a create already sent may have made the bill', () => {
  const before = abortError('create', false);
  assert.deepEqual([before.name, before.message, before.outcomeUnknown, before.retryable], ['AbortError', 'Bill API create was aborted by the caller.', false, false]);
  assert.equal(abortError('create', true).outcomeUnknown, true);
});

test('a signer that throws or returns no text: nothing sent, the signer named, its words cleaned', () => {
  const thrown = signerFailed('requery', './my-signer.mjs', new Error('no key secret-value'), (t) => t.replace('secret-value', '[redacted]'));
  assert.ok(thrown instanceof BillApiSignerError);
  assert.equal(thrown.message, 'Bill API requery: BILL_SIGNER "./my-signer.mjs" failed: no key [redacted]');
  assert.equal(thrown.retryable, false);
  assert.deepEqual(signerValue('requery', 'x', 'abc'), { Sign: 'abc' });
  assert.deepEqual(signerValue('requery', 'x', { 'X-Timestamp': 't', Sign: 's' }), { 'X-Timestamp': 't', Sign: 's' });
  assert.match((signerValue('requery', 'x', '') as Error).message, /returned an empty string; it must return the Sign header value as text, or an object of headers to add\.$/);
  assert.match((signerValue('requery', 'x', {}) as Error).message, /returned an object with no header\.$/);
  assert.match((signerValue('requery', 'x', { Sign: 'a\r\nX-Evil: 1' }) as Error).message, /header "Sign" is not a header name with a text value on one line/);
  assert.match((signerValue('requery', 'x', undefined) as Error).message, /returned undefined;/);
  assert.match((signerValue('requery', 'x', 42) as Error).message, /returned number;/);
});
