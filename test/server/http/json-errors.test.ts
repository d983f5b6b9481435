// The one maker of error answers: each kind of CheckoutError has its status, its Retry-After and
// other headers go with it, and the code it answers is what countRefusals is told.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { CheckoutError } from '../../../server/domain/errors.js';
import type { CheckoutErrorKind } from '../../../server/domain/errors.js';
import { errorCode, jsonErrors, payloadTooLarge } from '../../../server/http/json-errors.js';
import { countRefusals } from '../../../server/http/middleware/count-refusals.js';
import { StoreUnavailableError } from '../../../server/store/errors.js';
import { logLines } from '../support/unit.js';

const STATUS: Record<CheckoutErrorKind, number> = {
  invalid: 400, unauthorized: 401, forbidden: 403, not_found: 404, conflict: 409, too_large: 413, unsupported: 415,
  unprocessable: 422, too_many: 429, upstream: 502, busy: 503,
};

/** An app whose one route throws `error`, guarded as app.ts guards its routes, with the codes countRefusals saw. */
function throwing(error: unknown) {
  const { log, lines } = logLines();
  const counted: string[] = [];
  const guarded = jsonErrors(log);
  const app = new Hono();
  app.get('/', guarded(countRefusals((code) => counted.push(code))), guarded(() => {
    throw error;
  }));
  return { app, counted, lines };
}

test('each kind answers its status, with the code and message as they are', async () => {
  for (const [kind, status] of Object.entries(STATUS) as [CheckoutErrorKind, number][]) {
    const { app, counted } = throwing(new CheckoutError(kind, `code_${kind}`, `Message of ${kind}.`));
    const res = await app.request('/');
    assert.equal(res.status, status, kind);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(await res.text(), `{"error":{"code":"code_${kind}","message":"Message of ${kind}."}}`);
    assert.equal(res.headers.get('retry-after'), null);
    assert.deepEqual(counted, [`code_${kind}`]);
  }
});

test('Retry-After and other headers go with the answer; the public four-argument form still sets Retry-After', async () => {
  const both = throwing(new CheckoutError('unauthorized', 'unauthorized', 'No.', { retryAfterSeconds: 7, headers: { 'WWW-Authenticate': 'Bearer realm="x"' } }));
  const res = await both.app.request('/');
  assert.equal(res.headers.get('retry-after'), '7');
  assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="x"');
  const positional = new CheckoutError('busy', 'later', 'Later.', 2);
  assert.equal(positional.retryAfterSeconds, 2);
  assert.deepEqual(positional.headers, {});
  assert.equal((await throwing(positional).app.request('/')).headers.get('retry-after'), '2');
});

test('payload_too_large is 413 with the limit in its message', async () => {
  const res = await throwing(payloadTooLarge(64)).app.request('/');
  assert.equal(res.status, 413);
  assert.deepEqual(await res.json(), { error: { code: 'payload_too_large', message: 'The body is larger than 64 bytes.' } });
});

test('an unexpected error is a logged 500 internal_error; the store out of reach, 503 store_unavailable', async () => {
  const boom = throwing(new Error('secret detail'));
  const res = await boom.app.request('/');
  assert.equal(res.status, 500);
  assert.doesNotMatch(await res.text(), /secret detail/);
  assert.deepEqual(boom.counted, ['internal_error']);
  assert.ok(boom.lines.some((line) => line.msg === 'unhandled error'));
  assert.equal(errorCode('not an error'), 'internal_error');

  const outage = throwing(new StoreUnavailableError('db down'));
  const down = await outage.app.request('/');
  assert.equal(down.status, 503);
  assert.equal(down.headers.get('retry-after'), '5');
  assert.deepEqual(outage.counted, ['store_unavailable']);
});

test('an answer without an error counts nothing', async () => {
  const { log } = logLines();
  const counted: string[] = [];
  const guarded = jsonErrors(log);
  const app = new Hono();
  app.get('/', guarded(countRefusals((code) => counted.push(code))), guarded((c) => c.json({ ok: true })));
  assert.equal((await app.request('/')).status, 200);
  assert.deepEqual(counted, []);
});
