// What one answer of the service is (server/upstream/classify-response.ts): ok data, or an error
// that says what to change, whether to try again, whether it was a refusal for load, and whether a
// create may have made the bill all the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyContext, classifyResponse, isTransient, retryAfterMs, type Answered, type Attempt } from '../../../server/upstream/classify-response.js';
import {
  BillApiAuthError, BillApiHttpError, BillApiRejectedError, BillApiResponseError, BillApiThrottledError, type BillOperation,
} from '../../../server/upstream/errors.js';

const KEY = 'merchant-key-1234';
const SECRET = 'signing-secret-abcdef';
const context = classifyContext({ baseUrl: 'https://user:pw@api.example/v1/', okCodes: [0, 200], signer: 'hmac-sha256-hex', key: KEY, secret: SECRET });

function answer(operation: BillOperation, status: number, body: unknown, over: Partial<Answered> = {}, emptyOk = false): Attempt {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return classifyResponse({ operation, method: 'POST', emptyOk }, { status, location: null, text, path: '/v1/bills', retryAfterMs: null, receivedAt: 77, ...over }, context);
}

function failure(result: Attempt) {
  assert.equal(result.ok, false, 'a failure');
  return result as Extract<Attempt, { ok: false }>;
}

test('an envelope whose code is in okCodes is its data, with the status and arrival time', () => {
  assert.deepEqual(answer('requery', 200, { code: 200, message: 'ok', data: { billId: 'B1' } }), {
    ok: true, answer: { data: { billId: 'B1' }, httpStatus: 200, receivedAt: 77 },
  });
});

test('amounts keep every digit: numbers are read losslessly', () => {
  const result = answer('requery', 200, '{"code":0,"message":"","data":{"billAmount":12345678901234567.10}}');
  assert.equal(result.ok, true);
  assert.deepEqual((result as { answer: { data: unknown } }).answer.data, { billAmount: '12345678901234567.10' });
});

test('an empty 2xx is success only where the operation allows it', () => {
  assert.deepEqual(answer('cancel', 204, '', {}, true), { ok: true, answer: { data: null, httpStatus: 204, receivedAt: 77 } });
  assert.ok(failure(answer('cancel', 200, '')).error instanceof BillApiResponseError);
});

test('a 429 with Retry-After is a refusal for load, with its delay; retryable; the message suggests BILL_API_MAX_RPS', () => {
  const { error, throttled, retryAfterMs: delay } = failure(answer('requery', 429, { code: 429, message: 'slow down', data: null }, { retryAfterMs: 7_000 }));
  assert.ok(error instanceof BillApiThrottledError);
  assert.deepEqual([throttled, delay, error.retryAfterMs, error.httpStatus, error.retryable], [true, 7_000, 7_000, 429, true]);
  assert.match(error.message, /^Bill API requery: the service refused for load \(HTTP 429 with code 429 "slow down", Retry-After 7 s\)/);
  assert.match(error.message, /set BILL_API_MAX_RPS/);
});

test('a 429 without Retry-After waits a second; a 503 is a refusal for load only with Retry-After', () => {
  const bare = failure(answer('requery', 429, 'busy'));
  assert.equal((bare.error as BillApiThrottledError).retryAfterMs, 1_000);
  assert.ok(failure(answer('requery', 503, 'busy', { retryAfterMs: 2_000 })).error instanceof BillApiThrottledError);
  const plain = failure(answer('requery', 503, 'busy'));
  assert.ok(plain.error instanceof BillApiHttpError);
  assert.equal(plain.throttled, false);
});

test('a 5xx is retryable (requery), and for a create its outcome is unknown, so it is never retried blindly', () => {
  const requery = failure(answer('requery', 502, '<html>bad gateway</html>'));
  assert.ok(requery.error instanceof BillApiHttpError);
  assert.deepEqual([requery.error.retryable, requery.error.outcomeUnknown], [true, false]);
  assert.match(requery.error.message, /^Bill API requery: POST \/v1\/bills answered HTTP 502 without a response envelope\. The service is failing or overloaded; try again later\.$/);
  const create = failure(answer('create', 500, { code: 9, message: 'internal', data: null }));
  assert.ok(create.error instanceof BillApiRejectedError);
  assert.deepEqual([create.error.retryable, create.error.outcomeUnknown], [false, true]);
  assert.match(create.error.message, /settle it with findByMerchantReference before creating again\.$/);
});

test('a 3xx on create is an unknown outcome (the request may have reached the service); the message names where it redirected', () => {
  const { error } = failure(answer('create', 302, '', { location: 'https://other.example/v2/bills' }));
  assert.ok(error instanceof BillApiHttpError);
  assert.deepEqual([error.outcomeUnknown, error.retryable, error.httpStatus], [true, false, 302]);
  assert.match(error.message, /It redirected to "https:\/\/other.example\/v2\/bills": set BILL_API_BASE_URL to the final address\./);
  assert.equal(failure(answer('requery', 302, '')).error.outcomeUnknown, false, 'only a create can have made a bill');
});

test('a 404 points at BILL_API_BASE_URL (its userinfo cut), and at the cancel or bind settings for those operations', () => {
  assert.match(failure(answer('requery', 404, 'not found')).error.message, /Check BILL_API_BASE_URL \(now "https:\/\/api.example\/v1", path prefix kept\)\.$/);
  assert.match(failure(answer('cancel', 405, 'no')).error.message, /and BILL_CANCEL_METHOD \/ BILL_CANCEL_PATH\.$/);
  assert.match(failure(answer('bind', 404, 'no')).error.message, /and BILL_BIND_METHOD \/ BILL_BIND_PATH\.$/);
  assert.equal(failure(answer('requery', 404, 'no')).error.retryable, false);
});

test('an envelope code not in okCodes is a rejection naming the code and the service\'s words', () => {
  const { error } = failure(answer('requery', 200, { code: 1001, message: 'bill not found', data: null }));
  assert.ok(error instanceof BillApiRejectedError);
  assert.deepEqual([error.code, error.serviceMessage, error.httpStatus, error.retryable, error.outcomeUnknown], [1001, 'bill not found', 200, false, false]);
  assert.equal(error.message, 'Bill API requery: the service refused with code 1001 "bill not found" (HTTP 200).');
});

test('a rejection that looks like success suggests BILL_API_OK_CODES; one about the signature, the credentials', () => {
  assert.match(failure(answer('requery', 200, { code: 1, message: 'success', data: null })).error.message,
    /If code 1 means success for this service, add it to BILL_API_OK_CODES \(now "0,200"\)\./);
  assert.match(failure(answer('requery', 200, { code: 7, message: 'whatever', data: { billId: 'B1' } })).error.message, /BILL_API_OK_CODES/);
  assert.match(failure(answer('requery', 200, { code: 7, message: 'invalid signature', data: null })).error.message,
    /This looks like a signature or key refusal: Check BILL_API_KEY and BILL_API_SECRET, and that BILL_SIGNER \(now "hmac-sha256-hex"\)/);
});

test('a 401 or 403 is a refusal of the credentials, never retried, with the envelope when there is one', () => {
  const { error } = failure(answer('create', 401, { code: 4010, message: 'bad sign', data: null }));
  assert.ok(error instanceof BillApiAuthError);
  assert.deepEqual([error.code, error.serviceMessage, error.retryable, error.outcomeUnknown], [4010, 'bad sign', false, false]);
  assert.match(error.message, /^Bill API create: the service refused the credentials \(HTTP 401 with code 4010 "bad sign"\)\. Check BILL_API_KEY/);
  const bare = failure(answer('requery', 403, 'Forbidden')).error as BillApiAuthError;
  assert.deepEqual([bare.code, bare.serviceMessage], [null, null]);
});

test('a 2xx that is not an envelope: says what is wrong (not JSON, not an object, which field); a create\'s outcome is unknown', () => {
  const notJson = failure(answer('requery', 200, '<html>hello</html>')).error as BillApiResponseError;
  assert.match(notJson.message, /HTTP 200 but the body is not JSON \(starts with "<html>hello<\/html>"\); expected \{code, message, data\}\.$/);
  assert.equal(notJson.field, null);
  assert.match(failure(answer('requery', 200, [1, 2])).error.message, /the body is not a JSON object/);
  const badCode = failure(answer('requery', 200, { code: 'zero', message: '', data: null })).error as BillApiResponseError;
  assert.equal(badCode.field, 'code');
  assert.match(badCode.message, /the envelope's "code" is missing or not of the spec's type/);
  assert.equal(failure(answer('create', 200, 'nope')).error.outcomeUnknown, true);
});

test('our key and secret never appear in a message, even when the service echoes them', () => {
  const { error } = failure(answer('requery', 200, { code: 1001, message: `bad key ${KEY} for ${SECRET}`, data: null }));
  assert.doesNotMatch(error.message, new RegExp(`${KEY}|${SECRET}`));
  assert.match(error.message, /\[redacted\]/);
  assert.ok((error as BillApiRejectedError).serviceMessage.includes('[redacted]'));
});

test('service text is cut to 200 characters', () => {
  const { error } = failure(answer('requery', 200, { code: 1001, message: 'x'.repeat(5_000), data: null }));
  assert.ok(error.message.length < 400, `${error.message.length} characters`);
});

test('Retry-After: seconds, or an HTTP date from now; anything else is none', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  assert.equal(retryAfterMs('3', now), 3_000);
  assert.equal(retryAfterMs(' 10 ', now), 10_000);
  assert.equal(retryAfterMs('Tue, 01 Jan 2030 00:00:05 GMT', now), 5_000);
  assert.equal(retryAfterMs('Mon, 31 Dec 2029 23:59:00 GMT', now), 0, 'a date past is no wait');
  assert.equal(retryAfterMs('soon', now), null);
  assert.equal(retryAfterMs(null, now), null);
  assert.equal(retryAfterMs('', now), null);
});

test('transient: 5xx and 429', () => {
  assert.deepEqual([500, 503, 599, 429, 400, 404, 302].map(isTransient), [true, true, true, true, false, false, false]);
});
