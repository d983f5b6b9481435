// The client against the real sandbox, mounted under a prefix, over loopback HTTP.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { SANDBOX_DEMO_KEY } from '../../../sandbox/credentials.js';
import { multiplyDecimal } from '../../../contract/decimal.js';
import { createSandbox, type Sandbox } from '../../../sandbox/sandbox.js';
import {
  BillApiAuthError, BillApiError, BillApiRejectedError, BillApiTimeoutError, builtInSigner,
  type BillApiOptions,
} from '../../../server/upstream/index.js';
import { recordingClient } from '../support/upstream-client.js';

/** mulberry32: a seeded random, so injected faults fall the same way on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let sandbox: Sandbox;
let server: Server;
let base: string;

before(async () => {
  sandbox = createSandbox({
    random: seeded(42),
    sweepIntervalMs: 0,
    callbackRetryDelayMs: 1,
    fetch: async () => new Response('ok'), // callbacks go nowhere in these tests
  });
  const app = new Hono().route('/gateway', sandbox.app);
  server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/gateway`;
});

after(async () => {
  sandbox.close();
  await sandbox.idle();
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
});

function client(env: Record<string, string> = {}, extra: Partial<BillApiOptions> = {}) {
  return recordingClient(base, env, extra);
}

const urls = { callbackUrl: 'http://127.0.0.1:9/cb', redirectUrl: 'http://127.0.0.1:9/return?shop=1' };

async function failure(promise: Promise<unknown>): Promise<BillApiError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof BillApiError, String(err));
    return err;
  }
  assert.fail('expected a failure');
}

test('create returns exact amounts; requery reads the quoted amount back', async () => {
  const { api } = client();
  const bill = await api.createBill({ amount: '999999999999.99', merchantReference: 'BIG-1', ...urls });
  assert.equal(bill.billAmount, '999999999999.99');
  assert.equal(bill.requireGCAmount, multiplyDecimal('999999999999.99', '0.0125', 4));
  assert.equal(bill.merchantReference, 'BIG-1');
  assert.ok(bill.billUrl.startsWith(`${base}/pay/`), bill.billUrl);
  assert.ok(bill.expiredOn > Date.now());

  const small = await api.createBill({ amount: '0.10', ...urls });
  assert.equal(small.billAmount, '0.1');
  assert.match(small.merchantReference, /\S/, 'the sandbox makes a reference when none is given');

  const record = await api.requeryBill(bill.billId);
  assert.equal(record.billAmount, '999999999999.99');
  assert.equal(record.status, 1);
  assert.equal(record.isFinal, false);
  assert.equal(record.paymentReference, null, "'' until paid");
  assert.ok(record.requestReference);
});

test('list filters, pages from 1 and sorts; findByMerchantReference gathers every page', async () => {
  const { api } = client();
  const tag = `LST-${Date.now()}`;
  for (const amount of ['5.00', '1.25', '3', '4.5', '2']) await api.createBill({ amount, merchantReference: `${tag}-${amount}`, ...urls });
  const filters = [{ name: 'merchantReference', value: `${tag}-%`, matchType: 'like' as const }];

  const first = await api.listBills({ filters, paging: { index: 1, size: 2 }, sort: { name: 'billAmount', order: 1 } });
  assert.equal(first.total, 5);
  assert.deepEqual(first.lists.map((r) => r.billAmount), ['1.25', '2']);
  const last = await api.listBills({ filters, paging: { index: 3, size: 2 }, sort: { name: 'billAmount', order: 1 } });
  assert.deepEqual(last.lists.map((r) => r.billAmount), ['5']);

  const equal = await api.listBills({ filters: [{ name: 'billAmount', value: '4.50', matchType: 'equal' }, ...filters] });
  assert.deepEqual(equal.lists.map((r) => r.merchantReference), [`${tag}-4.5`]);

  for (let i = 0; i < 3; i++) await api.createBill({ amount: `${i + 1}`, merchantReference: `${tag}-same`, ...urls });
  const { api: smallPages } = client({ BILL_PAGE_SIZE: '2' });
  const found = await smallPages.findByMerchantReference(`${tag}-same`);
  assert.equal(found.length, 3);
  assert.deepEqual(found.map((r) => r.billAmount).sort(), ['1', '2', '3']);
  assert.deepEqual(await api.findByMerchantReference(`${tag}-none`), []);
});

test('cancel works while Pending Payment and is refused with 1005 once paid', async () => {
  const { api } = client();
  const pending = await api.createBill({ amount: '7', ...urls });
  await api.cancelBill(pending.billId);
  const cancelled = await api.requeryBill(pending.billId);
  assert.equal(cancelled.status, 4);
  assert.equal(cancelled.isFinal, true);

  const paid = await api.createBill({ amount: '8', ...urls });
  sandbox.pay(paid.billId);
  const err = await failure(api.cancelBill(paid.billId));
  assert.ok(err instanceof BillApiRejectedError);
  assert.equal(err.code, 1005);
  assert.equal(err.httpStatus, 409);
  const record = await api.requeryBill(paid.billId);
  assert.equal(record.status, 2);
  assert.ok(record.paymentReference);

  const missing = await failure(api.requeryBill('no-such-bill'));
  assert.ok(missing instanceof BillApiRejectedError);
  assert.equal(missing.code, 1004);
});

test('bind gives one customer id per email', async () => {
  const { api } = client();
  const a = await api.bindCustomer({ name: 'Ann', email: 'ann@example.com' });
  const again = await api.bindCustomer({ name: 'Ann B.', email: 'ann@example.com' });
  const b = await api.bindCustomer({ name: 'Bo', phone: '+15550100' });
  assert.ok(a.customerId);
  assert.equal(again.customerId, a.customerId);
  assert.notEqual(b.customerId, a.customerId);

  const err = await failure(api.bindCustomer({ email: 'x@example.com' }));
  assert.ok(err instanceof BillApiRejectedError);
  assert.equal(err.code, 1003);
});

test('a wrong secret or key is refused as an auth error', async () => {
  const wrongSecret = await failure(client({ BILL_API_SECRET: 'not-the-secret' }).api.requeryBill('x'));
  assert.ok(wrongSecret instanceof BillApiAuthError);
  assert.equal(wrongSecret.code, 1002);
  assert.ok(!wrongSecret.message.includes('not-the-secret'));

  const base64 = await failure(client({}, { signer: builtInSigner('hmac-sha256-base64')! }).api.listBills({}));
  assert.ok(base64 instanceof BillApiAuthError, 'the sandbox expects hex');

  const wrongKey = await failure(client({ BILL_API_KEY: `${SANDBOX_DEMO_KEY}-x` }).api.listBills({}));
  assert.ok(wrongKey instanceof BillApiAuthError);
  assert.equal(wrongKey.code, 1001);
});

test("requery is retried through the sandbox's injected 500s", async (t) => {
  t.after(() => sandbox.resetFaults());
  const { api } = client();
  const bill = await api.createBill({ amount: '12.34', ...urls });
  sandbox.setFaults({ errorRate: { requery: 0.6 } });

  const { api: retrying, delays } = client({ BILL_API_RETRIES: '10' });
  const before = sandbox.stats().calls.requery;
  const failed = { count: 0 };
  for (let i = 0; i < 5; i++) {
    const attempts = delays.length;
    const record = await retrying.requeryBill(bill.billId);
    assert.equal(record.billAmount, '12.34');
    failed.count += delays.length - attempts;
  }
  assert.ok(failed.count > 0, 'some requeries met an injected 500 and were retried');
  assert.equal(sandbox.stats().calls.requery - before, 5 + failed.count, 'one extra call per retry');

  const { api: noRetry } = client({ BILL_API_RETRIES: '0' });
  sandbox.setFaults({ errorRate: { requery: 1 } });
  const err = await failure(noRetry.requeryBill(bill.billId));
  assert.ok(err instanceof BillApiRejectedError);
  assert.equal(err.code, 1500);
  assert.equal(err.retryable, true);
});

test('a create whose answer is lost is not retried, then settled with findByMerchantReference', async (t) => {
  t.after(() => sandbox.resetFaults());
  const { api } = client({ BILL_API_RETRIES: '5' });
  const reference = `LOST-${Date.now()}`;

  sandbox.setFaults({ createLostResponseRate: 1, hangMs: 0 });
  const before = sandbox.stats().calls.create;
  const lost = await failure(api.createBill({ amount: '42.42', merchantReference: reference, ...urls }));
  assert.equal(lost.outcomeUnknown, true);
  assert.equal(sandbox.stats().calls.create - before, 1, 'sent exactly once');

  // The same with the answer hanging past the client's timeout.
  sandbox.setFaults({ hangMs: 60_000 });
  const { api: impatient } = client({ BILL_API_TIMEOUT_MS: '100' });
  const timedOut = await failure(impatient.createBill({ amount: '42.42', merchantReference: reference, ...urls }));
  assert.ok(timedOut instanceof BillApiTimeoutError);
  assert.equal(timedOut.outcomeUnknown, true);
  assert.equal(sandbox.stats().calls.create - before, 2);

  sandbox.resetFaults();
  const found = await api.findByMerchantReference(reference);
  assert.equal(found.length, 2, 'both bills were made although neither answer arrived');
  for (const record of found) {
    assert.equal(record.billAmount, '42.42');
    assert.equal(record.status, 1);
  }
});
