// The SNAP-style pair (issue 42, item 1): an access token asked for with SHA256withRSA over
// `clientKey|timestamp`, each call signed with HMAC-SHA512 over method, path, token, body digest and
// timestamp; a create sent again after an unknown outcome under the same X-EXTERNAL-ID. The expected
// values are node:crypto's; the service is the sandbox's snap mode over real HTTP.
import assert from 'node:assert/strict';
import { createHash, createHmac, createVerify, generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { sandboxSettingsFromEnv } from '../../../sandbox/env.js';
import { builtInSigner } from '../../../server/upstream/signers.js';
import type { SignInput, SignerRequest } from '../../../server/upstream/types.js';
import { startHarness } from '../support/harness.js';

const rsa = generateKeyPairSync('rsa', {
  modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
const SNAP_ENV = { BILL_SIGNER: 'snap', BILL_SIGNER_PRIVATE_KEY: rsa.privateKey, BILL_SIGNER_CHANNEL_ID: '95221' };

test('snap: the token request and each call signed as node:crypto computes them; one token until it expires', async () => {
  const asked: SignerRequest[] = [];
  const send = async (request: SignerRequest) => {
    asked.push(request);
    return { status: 200, headers: new Headers(), text: JSON.stringify({ responseCode: '2007300', accessToken: `tok${asked.length}`, expiresIn: '900' }) };
  };
  const sign = builtInSigner('snap', undefined, { privateKeyPem: rsa.privateKey, partnerId: 'P-1', channelId: '95221' })!;
  const input = (timestampMs: number): SignInput => ({
    method: 'POST', path: '/gw/v1/bill/create', query: '', body: '{"amount":1}', key: 'client-1', secret: 'client-secret',
    operation: 'create', timestampMs, timestamp: new Date(timestampMs).toISOString(), nonce: 'n', requestId: 'ab'.repeat(16), send,
  });
  const t0 = Date.UTC(2027, 0, 15, 8);
  const first = await sign(input(t0)) as Record<string, string>;

  assert.equal(asked.length, 1);
  const tokenCall = asked[0]!;
  assert.equal(tokenCall.path, '/v1.0/access-token/b2b');
  assert.equal(tokenCall.body, '{"grantType":"client_credentials"}');
  const stamp = tokenCall.headers!['X-TIMESTAMP']!;
  assert.equal(stamp, '2027-01-15T08:00:00+00:00');
  assert.equal(tokenCall.headers!['X-CLIENT-KEY'], 'client-1');
  assert.equal(createVerify('RSA-SHA256').update(`client-1|${stamp}`).verify(rsa.publicKey, tokenCall.headers!['X-SIGNATURE']!, 'base64'), true);

  const digest = createHash('sha256').update('{"amount":1}').digest('hex');
  const expected = createHmac('sha512', 'client-secret').update(`POST:/gw/v1/bill/create:tok1:${digest}:${stamp}`).digest('base64');
  assert.deepEqual(first, {
    Authorization: 'Bearer tok1', 'X-TIMESTAMP': stamp, 'X-SIGNATURE': expected, 'X-PARTNER-ID': 'P-1',
    'X-EXTERNAL-ID': BigInt(`0x${'ab'.repeat(14)}`).toString(), 'CHANNEL-ID': '95221',
  });
  assert.match(first['X-EXTERNAL-ID']!, /^\d{1,36}$/);

  // Within its lifetime (less the minute before it ends) the token is reused, by concurrent requests too.
  await Promise.all([sign(input(t0 + 60_000)), sign(input(t0 + 60_000))]);
  await sign(input(t0 + 839_000));
  assert.equal(asked.length, 1);
  const later = await sign(input(t0 + 841_000)) as Record<string, string>;
  assert.equal(asked.length, 2, 'a new token a minute before the first expires');
  assert.equal(later.Authorization, 'Bearer tok2');
});

test('a SNAP-style service over real HTTP: a token once, each call signed, a new token when it expires', async (t) => {
  const h = await startHarness(t, {
    env: SNAP_ENV,
    sandbox: { snap: { publicKeyPem: rsa.publicKey }, billLifetimeMs: 60 * 60_000 },
  });
  const bill = await h.create({ amount: '12.50' });
  h.clock.advance(h.config.refreshWindowMs + 1);
  assert.equal((await h.request(`/api/bills/${bill.billId}?token=${bill.token}`)).status, 200);
  await h.refreshed();
  assert.ok(h.requeries(bill.billId) >= 1, 'a requery was accepted');
  assert.equal(h.sandbox.stats().tokensGranted, 1, 'one token served the create and the requery');

  // Both clocks past the token's 900 s: the service refuses the old token, the client has asked for a new one.
  h.clock.advance(901_000);
  const before = h.requeries(bill.billId);
  await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
  await h.refreshed();
  assert.equal(h.requeries(bill.billId), before + 1);
  assert.equal(h.sandbox.stats().tokensGranted, 2);
  assert.ok(!h.logs.some((line) => /BillApi(Auth|Signer)Error|refused/.test(line)), h.logs.join('\n'));
});

test('a create whose answer was lost is sent again under the same X-EXTERNAL-ID, and the service\'s answer settles it', async (t) => {
  const h = await startHarness(t, {
    env: { ...SNAP_ENV, BILL_API_IDEMPOTENT_CREATE: 'true' },
    sandbox: { snap: { publicKeyPem: rsa.publicKey }, faults: { createResetAfterMade: 1 } },
  });
  const bill = await h.create({ amount: '12.50' });
  assert.equal(bill.billAmount, '12.50');
  const ledger = h.sandbox.ledger();
  assert.equal(ledger.length, 1, 'one bill at the service');
  assert.equal(ledger[0]!.billId, bill.billId);
  assert.equal(h.sandbox.stats().calls.create, 2);
  assert.equal(h.sandbox.stats().calls.list, 0, 'no list was needed to settle it');
});

test('a token refused for our key: nothing is created, and the log says what to check', async (t) => {
  const other = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  const h = await startHarness(t, { env: SNAP_ENV, sandbox: { snap: { publicKeyPem: other.publicKey } } });
  const res = await h.request('/api/bills', {
    method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'k-snap-refused' }, body: JSON.stringify({ amount: '12.50' }),
  });
  assert.equal(res.status, 502, 'refused by the service for our credentials: not ours to retry');
  const body = await res.json() as { error: { code: string } };
  assert.equal(typeof body.error.code, 'string');
  assert.equal(h.sandbox.ledger().length, 0);
  assert.equal(h.sandbox.stats().calls.create, 0, 'the create was never sent');
  assert.ok(h.logs.some((line) => line.includes('BILL_SIGNER_PRIVATE_KEY')), h.logs.join('\n'));
});

test('npm run sandbox plays the asymmetric schemes from its environment, and says what is missing', () => {
  const base = { SANDBOX_PUBLIC_URL: 'http://localhost:8788' };
  const oneLine = rsa.publicKey.trim().replaceAll('\n', '\\n');
  const snap = sandboxSettingsFromEnv({ ...base, SANDBOX_SIGN: 'snap', SANDBOX_PUBLIC_KEY: oneLine });
  assert.equal(snap.options.snap?.publicKeyPem, rsa.publicKey.trim());
  assert.equal(typeof sandboxSettingsFromEnv({ ...base, SANDBOX_SIGN: 'rsa-sha256', SANDBOX_PUBLIC_KEY: oneLine }).options.dialect?.sign, 'function');
  assert.throws(() => sandboxSettingsFromEnv({ ...base, SANDBOX_SIGN: 'snap' }), /SANDBOX_PUBLIC_KEY/);
  assert.throws(() => sandboxSettingsFromEnv({ ...base, SANDBOX_SIGN: 'hmac-sha512' }), /rsa-sha256, snap/);
});

test('a token call that gets no answer: the create was surely not made, and the customer is told to try again shortly', async (t) => {
  let cut = true;
  const h = await startHarness(t, {
    env: SNAP_ENV,
    sandbox: { snap: { publicKeyPem: rsa.publicKey } },
    upstreamHttp: (real) => (url, request) =>
      cut && url.endsWith('/v1.0/access-token/b2b') ? Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } })) : real(url, request),
  });
  const res = await h.request('/api/bills', {
    method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'k-snap-cut' }, body: JSON.stringify({ amount: '12.50' }),
  });
  assert.equal(res.status, 503);
  assert.ok(Number(res.headers.get('retry-after')) > 0);
  assert.equal(h.sandbox.stats().calls.create, 0);
  assert.equal(h.sandbox.stats().calls.list, 0, 'nothing to settle: the create never left');
  cut = false;
  const again = await h.request('/api/bills', {
    method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'k-snap-cut' }, body: JSON.stringify({ amount: '12.50' }),
  });
  assert.equal(again.status, 201, 'the same key makes the bill once the token can be had');
  assert.equal(h.sandbox.ledger().length, 1);
});
