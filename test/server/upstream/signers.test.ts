// Signing as a request decoration (issue 42, item 1, in part): a signer is given the request's
// time, a nonce and the call's id, and may return headers to add instead of the Sign value. Over
// real HTTP against a sandbox that checks what such a service checks; the expected values computed
// here with node:crypto, not with the scheme's own code.
import assert from 'node:assert/strict';
import { createHash, createHmac, createVerify, generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { SANDBOX_SIGNERS } from '../../../sandbox/dialect.js';
import { rsaSha256Verifier } from '../../../sandbox/signature.js';
import { builtInSigner, loadSigner } from '../../../server/upstream/signers.js';
import { BillApiConfigError, BillApiSignerError, createBillApi } from '../../../server/upstream/index.js';
import type { HttpRequest } from '../../../server/upstream/types.js';
import { expectedSignature, seen } from '../support/header-signer.js';
import { noSend } from '../support/signer-input.js';
import { startHarness } from '../support/harness.js';

test('hmac-sha256-timestamped: X-Timestamp in its own header and in what is signed, as node:crypto computes it', async () => {
  const input = {
    method: 'POST', path: '/gw/v1/bill/create', query: '', body: '{"amount":1}', key: 'k', secret: 'sec',
    operation: 'create', timestampMs: 1_800_000_000_000, timestamp: '2027-01-15T08:00:00.000Z', nonce: 'n', requestId: 'r', send: noSend,
  } as const;
  const headers = await builtInSigner('hmac-sha256-timestamped')!(input);
  const expected = createHmac('sha256', 'sec').update('POST\n/gw/v1/bill/create\n\n2027-01-15T08:00:00.000Z\n{"amount":1}').digest('hex');
  assert.deepEqual(headers, { 'X-Timestamp': '2027-01-15T08:00:00.000Z', Sign: expected });
});

test('a service that requires a timestamp header: every request of the built-in scheme is accepted, a captured one goes stale', async (t) => {
  const sent: { url: string; request: HttpRequest }[] = [];
  const h = await startHarness(t, {
    env: { BILL_SIGNER: 'hmac-sha256-timestamped' },
    sandbox: { dialect: { sign: SANDBOX_SIGNERS['hmac-sha256-timestamped']! } },
    upstreamHttp: (real) => (url, request) => {
      sent.push({ url, request });
      return real(url, request);
    },
  });
  const bill = await h.create({ amount: '12.50' });
  assert.equal((await h.request(`/api/bills/${bill.billId}?token=${bill.token}`)).status, 200);
  await h.refreshed();
  assert.ok(sent.length >= 2, 'a create and a requery went out');
  // The same requery sent again six minutes later: refused for its time, though its signature is right.
  const requery = sent.find((s) => s.url.includes('/v1/bill/requery'))!;
  const replay = () => fetch(requery.url, { method: 'GET', headers: requery.request.headers });
  assert.equal((await replay()).status, 200, 'fresh, it is taken');
  h.clock.advance(6 * 60_000);
  assert.equal((await replay()).status, 401);
});

test("a merchant's signer that returns its own headers: accepted by a service that checks them; one id per call across retries, a nonce per attempt", async (t) => {
  const h = await startHarness(t, {
    env: { BILL_SIGNER: new URL('../support/header-signer.ts', import.meta.url).pathname },
    sandbox: {
      dialect: {
        signHeader: 'X-Signature',
        sign: (i) => expectedSignature({
          ...i, timestamp: i.headers.get('x-timestamp') ?? '', nonce: i.headers.get('x-nonce') ?? '',
        }),
      },
    },
  });
  const bill = await h.create({ amount: '7.00' });
  assert.equal(seen.at(-1)?.operation, 'create');
  // One requery refused once by the service (a 503): retried, with the same request id and a new nonce.
  h.sandbox.setFaults({ refusals: { requery: [{ status: 503 }] } });
  const before = seen.length;
  h.clock.advance(h.config.refreshWindowMs + 1);
  assert.equal((await h.request(`/api/bills/${bill.billId}?token=${bill.token}`)).status, 200);
  await h.refreshed();
  const requeries = seen.slice(before).filter((i) => i.operation === 'requery');
  assert.equal(requeries.length, 2, 'the refused attempt and its retry');
  assert.equal(requeries[0]!.requestId, requeries[1]!.requestId);
  assert.notEqual(requeries[0]!.nonce, requeries[1]!.nonce);
  assert.match(requeries[0]!.requestId, /^[0-9a-f]{32}$/);
  assert.equal(h.requeries(bill.billId), 2);
});

test('a signer that returns something that is no header is refused before anything is sent', async () => {
  let called = 0;
  const api = createBillApi({
    baseUrl: 'http://127.0.0.1:9', key: 'k', secret: 's', signer: './odd.mjs', okCodes: [0], timeoutMs: 1000, retries: 0, pageSize: 20,
    maxRps: null, maxRpsByOperation: {}, cancel: { method: 'POST', path: '/v1/bill/cancel', body: null },
    bind: { method: 'POST', path: '/v1/customer/bind', idField: 'customerId' },
  }, {
    signer: () => ({ 'Bad Header': 'x' }),
    pageBase: 1,
    http: async () => {
      called++;
      throw new Error('never');
    },
  });
  await assert.rejects(api.requeryBill('B1'), (error: unknown) => error instanceof BillApiSignerError && /"Bad Header"/.test(error.message));
  assert.equal(called, 0);
});

const rsa = generateKeyPairSync('rsa', {
  modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

test('rsa-sha256: SHA256withRSA over method, path, query, timestamp and the body digest, as node:crypto verifies it', async () => {
  const input = {
    method: 'POST', path: '/v1/bill/create', query: '', body: '{"amount":1}', key: 'k', secret: '',
    operation: 'create', timestampMs: 0, timestamp: '2027-01-15T08:00:00.000Z', nonce: 'n', requestId: 'r', send: noSend,
  } as const;
  const headers = await builtInSigner('rsa-sha256', undefined, { privateKeyPem: rsa.privateKey })!(input) as Record<string, string>;
  assert.equal(headers['X-Timestamp'], input.timestamp);
  const digest = createHash('sha256').update(input.body).digest('hex');
  const verified = createVerify('RSA-SHA256').update(`POST\n/v1/bill/create\n\n${input.timestamp}\n${digest}`).verify(rsa.publicKey, headers.Sign!, 'base64');
  assert.equal(verified, true);
});

test('a service that holds only our public key and wants a timestamp header: every request of rsa-sha256 is accepted', async (t) => {
  const h = await startHarness(t, {
    // The key in one environment line, its line breaks spelt \\n, as a secret store gives it.
    env: { BILL_SIGNER: 'rsa-sha256', BILL_SIGNER_PRIVATE_KEY: rsa.privateKey.trim().replaceAll('\n', '\\n') },
    sandbox: { dialect: { sign: rsaSha256Verifier(rsa.publicKey) } },
  });
  const bill = await h.create({ amount: '12.50' });
  assert.equal((await h.request(`/api/bills/${bill.billId}?token=${bill.token}`)).status, 200);
  h.clock.advance(h.config.refreshWindowMs + 1);
  await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
  await h.refreshed();
  assert.ok(h.requeries(bill.billId) >= 1, 'a requery was accepted too');
  assert.ok(!h.logs.some((line) => line.includes('BEGIN PRIVATE KEY')), 'the key is never logged');
});

test('rsa-sha256 without a usable key stops at load with what to do', async () => {
  const none = () => Promise.reject(new Error('no module'));
  await assert.rejects(loadSigner('rsa-sha256', none), (e: Error) => e instanceof BillApiConfigError && /BILL_SIGNER_PRIVATE_KEY/.test(e.message));
  const pkcs1 = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  await assert.rejects(loadSigner('rsa-sha256', none, undefined, { privateKeyPem: pkcs1.privateKey }), (e: Error) => /openssl pkcs8 -topk8/.test(e.message));
});
