// The sandbox playing a service that chose differently (option `dialect`, or SANDBOX_* in the
// environment): other success code, status codes, signature, cancel and bind routes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import { loadConfig } from '../../server/config.js';
import { SANDBOX_DEMO_CREDENTIALS } from '../../sandbox/credentials.js';
import { SandboxConfigError, sandboxSettingsFromEnv } from '../../sandbox/env.js';
import {
  SANDBOX_SIGNERS, createSandbox, type DialectOptions, type SandboxOptions, type SignInput,
} from '../../sandbox/sandbox.js';
import {
  BillApiAuthError, BillApiRejectedError, builtInSigner, createBillApi, type BillApi,
} from '../../server/upstream/index.js';
import {
  Client, KEY, SECRET, callbacksUntil, clock, newBill, signBase64, startReceiver, startSandbox,
  type CreatedData, type Rec, type Started,
} from './support/harness.js';

const OTHER_ENV = {
  SANDBOX_OK_CODE: '200',
  SANDBOX_STATUSES: 'pending=10,paid=20,failed=30,cancelled=40,expired=50',
  SANDBOX_SIGN: 'hmac-sha256-base64',
  SANDBOX_CANCEL: 'DELETE /v2/bills/{billId}',
  SANDBOX_BIND: 'PUT /v2/customers customerRef',
};

const OTHER: DialectOptions = {
  okCode: 200,
  statuses: { pending: 10, paid: 20, failed: 30, cancelled: 40, expired: 50 },
  sign: SANDBOX_SIGNERS['hmac-sha256-base64']!,
  cancel: { method: 'DELETE', path: '/v2/bills/{billId}' },
  bind: { method: 'PUT', path: '/v2/customers', idField: 'customerRef' },
};

const MOUNT = '/gw/api';

/** A sandbox speaking OTHER under MOUNT; `other` signs base64, `client` the default hex way. */
async function startOther(t: TestContext, options: SandboxOptions = {}): Promise<Started & { other: Client }> {
  const started = await startSandbox(t, { dialect: OTHER, ...options }, MOUNT);
  return { ...started, other: new Client(started.client.origin, MOUNT, signBase64) };
}

function cancelPath(billId: string): string {
  return `/v2/bills/${encodeURIComponent(billId)}`;
}

async function everyOperation(t: TestContext, options: SandboxOptions): Promise<void> {
  const { client, base } = await startSandbox(t, options, MOUNT);
  const other = new Client(client.origin, MOUNT, signBase64);

  const created = await other.create(newBill({ amount: 12.5, merchantReference: 'ORD-7' }));
  assert.equal(created.status, 200);
  assert.equal(created.json.code, 200);
  assert.match(created.text, /"billAmount":12\.5,/);
  const bill = created.json.data;
  assert.equal(bill.billUrl, `${base}/pay/${bill.billId}`);

  const pending = await other.requery(bill.billId);
  assert.equal(pending.json.code, 200);
  assert.deepEqual(
    { status: pending.json.data.status, statusName: pending.json.data.statusName, isFinal: pending.json.data.isFinal },
    { status: 10, statusName: 'Pending Payment', isFinal: false },
  );

  const bound = await other.call<Record<string, string>>('PUT', '/v2/customers', { name: 'Ada', email: 'ada@example.test' });
  assert.equal(bound.status, 200);
  assert.equal(bound.json.code, 200);
  assert.deepEqual(Object.keys(bound.json.data), ['customerRef']);
  assert.match(bound.json.data.customerRef!, /^CUS/);
  const again = await other.call<Record<string, string>>('PUT', '/v2/customers', { name: 'Ada L.', email: 'ADA@example.test' });
  assert.equal(again.json.data.customerRef, bound.json.data.customerRef);

  // The id travels in the path; no body, no Content-Type.
  const cancelled = await other.call<Rec>('DELETE', cancelPath(bill.billId));
  assert.equal(cancelled.status, 200);
  assert.equal(cancelled.json.code, 200);
  assert.deepEqual(
    { status: cancelled.json.data.status, statusName: cancelled.json.data.statusName, isFinal: cancelled.json.data.isFinal },
    { status: 40, statusName: 'Cancelled', isFinal: true },
  );
  const twice = await other.call('DELETE', cancelPath(bill.billId));
  assert.deepEqual([twice.status, twice.json.code], [409, 1005]);
  const unknown = await other.call('DELETE', cancelPath('no-such-bill'));
  assert.deepEqual([unknown.status, unknown.json.code], [404, 1004]);

  const byNewCode = await other.list({ filters: [{ name: 'status', value: '40', matchType: 'equal' }] });
  assert.equal(byNewCode.json.code, 200);
  assert.deepEqual(byNewCode.json.data.lists.map((r) => [r.merchantReference, r.status]), [['ORD-7', 40]]);
  const byOldCode = await other.list({ filters: [{ name: 'status', value: '4', matchType: 'equal' }] });
  assert.equal(byOldCode.json.data.total, 0);
}

test('signed the dialect\'s way, every operation works under a prefix and answers with its codes', async (t) => {
  await t.test('dialect given as an option', (t) => everyOperation(t, { dialect: OTHER }));
  const fromEnv = sandboxSettingsFromEnv(OTHER_ENV).options;
  delete fromEnv.publicUrl; // billUrl then follows the test server's address
  await t.test('dialect read from SANDBOX_* variables', (t) => everyOperation(t, fromEnv));
});

test('signed the default way, a dialect sandbox refuses every operation', async (t) => {
  const { client, other } = await startOther(t);
  const refusals = [
    await client.create(newBill()),
    await client.requery('B1'),
    await client.list(),
    await client.call('DELETE', cancelPath('B1')),
    await client.call('PUT', '/v2/customers', { name: 'Ada', email: 'ada@example.test' }),
  ];
  assert.deepEqual(refusals.map((r) => [r.status, r.json.code, r.json.data]), Array(5).fill([401, 1002, null]));
  assert.equal((await other.list()).json.data.total, 0);

  // The default routes of cancel and bind are not this service's.
  const oldCancel = await other.raw('POST', '/v1/bill/cancel', JSON.stringify({ billId: 'B1' }));
  const oldBind = await other.raw('POST', '/v1/customer/bind', JSON.stringify({ name: 'Ada', email: 'a@b.c' }));
  assert.deepEqual([oldCancel.status, oldBind.status], [404, 404]);
});

test('callbacks and the return to the merchant carry the dialect\'s status codes', async (t) => {
  const receiver = await startReceiver(t);
  const { sandbox, other, base } = await startOther(t);
  const ids: Record<string, string> = {};
  for (const name of ['paid', 'declined', 'expired', 'cancelled']) {
    ids[name] = (await other.create(newBill({ callbackUrl: receiver.url, merchantReference: name }))).json.data.billId;
  }
  const delivered = callbacksUntil(sandbox, (a) => a.filter((x) => x.outcome === 'ok').length === 4);

  const paid = await fetch(`${base}/pay/${ids.paid}/pay`, { method: 'POST', redirect: 'manual' });
  assert.equal(paid.status, 303);
  assert.equal(new URL(paid.headers.get('location')!).searchParams.get('status'), '20');
  sandbox.decline(ids.declined!);
  sandbox.expire(ids.expired!);
  assert.equal((await other.call('DELETE', cancelPath(ids.cancelled!))).json.code, 200);
  await delivered;

  const records = receiver.received.map((r) => JSON.parse(r.body) as Rec);
  const seen = Object.fromEntries(records.map((r) => [r.merchantReference, [r.status, r.statusName, r.isFinal]]));
  assert.deepEqual(seen, {
    paid: [20, 'Paid', true], declined: [30, 'Failed', true], expired: [50, 'Expired', true], cancelled: [40, 'Cancelled', true],
  });
  assert.equal((await other.requery(ids.paid!)).json.data.status, 20);
});

function upstreamFor(base: string, env: Record<string, string>, signer = 'hmac-sha256-base64'): BillApi {
  const config = loadConfig({ BILL_API_BASE_URL: base, ...env }, SANDBOX_DEMO_CREDENTIALS);
  return createBillApi(config.upstream, { signer: builtInSigner(signer)!, pageBase: 1, sleep: async () => undefined });
}

const BFF_ENV = {
  BILL_SIGNER: 'hmac-sha256-base64',
  BILL_API_OK_CODES: '200',
  BILL_CANCEL_METHOD: 'DELETE',
  BILL_CANCEL_PATH: '/v2/bills/{billId}',
  BILL_CANCEL_BODY: 'none',
  BILL_BIND_METHOD: 'PUT',
  BILL_BIND_PATH: '/v2/customers',
  BILL_BIND_ID_FIELD: 'customerRef',
  BILL_PENDING_STATUSES: '10',
  BILL_PAID_STATUSES: '20',
  BILL_CANCELLED_STATUSES: '40',
  BILL_EXPIRED_STATUSES: '50',
};

test('the upstream client configured to match works against the dialect sandbox', async (t) => {
  const { base, sandbox } = await startOther(t);
  const { statuses } = loadConfig({ BILL_API_BASE_URL: base, ...BFF_ENV });
  const api = upstreamFor(base, BFF_ENV);
  const urls = { callbackUrl: 'http://127.0.0.1:9/cb', redirectUrl: 'http://127.0.0.1:9/return' };

  const bill = await api.createBill({ amount: '99.90', merchantReference: 'ORD-42', ...urls });
  assert.equal(bill.billAmount, '99.9');
  const pending = await api.requeryBill(bill.billId);
  assert.ok(statuses.pending.includes(pending.status), `pending is ${pending.status}`);
  assert.deepEqual((await api.findByMerchantReference('ORD-42')).map((r) => r.billId), [bill.billId]);
  await api.cancelBill(bill.billId);
  assert.ok(statuses.cancelled.includes((await api.requeryBill(bill.billId)).status));

  const second = await api.createBill({ amount: '5', ...urls });
  sandbox.pay(second.billId);
  assert.ok(statuses.paid.includes((await api.requeryBill(second.billId)).status));
  const listed = await api.listBills({ filters: [{ name: 'status', value: '20', matchType: 'equal' }] });
  assert.deepEqual(listed.lists.map((r) => r.billId), [second.billId]);

  const customer = await api.bindCustomer({ name: 'Ada', phone: '+1 555 0100' });
  assert.match(customer.customerId, /^CUS/);
  assert.deepEqual(customer.data, { customerRef: customer.customerId });

  // Configured for the defaults instead, the client is told why.
  await assert.rejects(upstreamFor(base, {}, 'hmac-sha256').requeryBill(bill.billId), BillApiAuthError);
  await assert.rejects(
    upstreamFor(base, { BILL_SIGNER: 'hmac-sha256-base64' }).requeryBill(bill.billId),
    (err: unknown) => err instanceof BillApiRejectedError && err.code === 200 && /BILL_API_OK_CODES/.test(err.message),
  );
});

test('a dialect\'s own sign function gets the request as received, mount prefix included', async (t) => {
  const inputs: SignInput[] = [];
  const custom = async (i: SignInput): Promise<string> => {
    inputs.push(i);
    return `v1:${i.key}:${i.method}:${i.path}:${i.query}:${i.body.length}:${i.secret.length}`;
  };
  const { client } = await startSandbox(t, { dialect: { sign: custom } }, MOUNT);
  const customClient = new Client(client.origin, MOUNT, (secret, method, path, query, body) =>
    `v1:${KEY}:${method}:${path}:${query}:${body.length}:${secret.length}`);

  const bill = (await customClient.create(newBill())).json.data as CreatedData;
  assert.equal((await customClient.requery(bill.billId)).json.code, 0);
  const { headers, now, ...asReceived } = inputs.at(-1)!;
  assert.deepEqual(asReceived, {
    method: 'GET', path: `${MOUNT}/v1/bill/requery`, query: `billId=${bill.billId}`, body: '', key: KEY, secret: SECRET,
  });
  // And its headers and the sandbox's time, for a scheme that carries or checks them there.
  assert.equal(headers.get('key'), KEY);
  assert.equal(typeof now, 'number');
  assert.equal((await client.requery(bill.billId)).json.code, 1002);
});

test('an inconsistent dialect is refused when the sandbox is made', () => {
  const cases: [DialectOptions, RegExp][] = [
    [{ statuses: { pending: 1, paid: 1, failed: 3, cancelled: 4, expired: 5 } }, /six different codes/],
    // processing keeps its default, 6.
    [{ statuses: { expired: 6 } }, /six different codes, got .*expired=6,processing=6/],
    [{ okCode: 1002 }, /okCode 1002 is one of the sandbox's error codes/],
    [{ cancel: { method: 'GET', path: '/v2/cancel' } }, /carries no body/],
    [{ cancel: { method: 'POST', path: '/v1/bill/create' } }, /another operation answers there/],
    [{ bind: { method: 'DELETE', path: '/v2/bills/{billId}', idField: 'id' } }, /cannot hold \{billId\}/],
    [{ cancel: { method: 'PUT', path: '/v2/x' }, bind: { method: 'PUT', path: '/v2/x', idField: 'id' } }, /bind cannot be PUT \/v2\/x/],
    [{ cancel: { method: 'POST', path: 'v2/no-slash' } }, /cancel\.path must be like/],
  ];
  for (const [dialect, message] of cases) {
    assert.throws(() => createSandbox({ dialect, sweepIntervalMs: 0 }), message);
  }
});

test('SANDBOX_* variables set the other options too, and bad values are refused by name', async (t) => {
  const env = {
    SANDBOX_PAGE_BASE: '0', SANDBOX_BILL_LIFETIME_MS: '60000', SANDBOX_CALLBACK_RETRY_DELAY_MS: '5',
    SANDBOX_GC_RATE: '0.5', SANDBOX_CURRENCY: 'EUR', SANDBOX_PUBLIC_URL: 'https://pay.example.test/sbx/',
  };
  const { options, publicUrl, port } = sandboxSettingsFromEnv(env);
  assert.deepEqual([port, publicUrl, options.callbackRetryDelayMs], [8788, 'https://pay.example.test/sbx', 5]);

  const time = clock();
  const { client } = await startSandbox(t, { ...options, now: time.now, callbackRetryDelayMs: 1 });
  const created = await client.create(newBill({ amount: 3 }));
  assert.match(created.text, /"requireGCAmount":1\.5,"currency":"EUR"/);
  assert.equal(created.json.data.expiredOn, time.now() + 60_000);
  assert.equal(created.json.data.billUrl, `https://pay.example.test/sbx/pay/${created.json.data.billId}`);
  assert.equal(created.json.code, 0); // no dialect variables: the defaults
  assert.equal((await client.list({ paging: { index: 0, size: 5 } })).json.data.total, 1);

  const bad: [Record<string, string>, RegExp][] = [
    [{ SANDBOX_STATUSES: 'pending=10,unpaid=3' }, /SANDBOX_STATUSES must be name=code pairs/],
    [{ SANDBOX_STATUSES: 'paid=1' }, /statuses must be six different codes/],
    [{ SANDBOX_SIGN: 'rsa' }, /SANDBOX_SIGN must be one of hmac-sha256, hmac-sha256-base64/],
    [{ SANDBOX_CANCEL: 'DELETE' }, /SANDBOX_CANCEL must be "METHOD \/path"/],
    [{ SANDBOX_BIND: 'GET /v2/customers' }, /bind\.method GET carries no body/],
    [{ SANDBOX_OK_CODE: 'ok' }, /SANDBOX_OK_CODE must be a whole number/],
    [{ SANDBOX_PAGE_BASE: '2' }, /SANDBOX_PAGE_BASE must be a whole number from 0 to 1/],
    [{ SANDBOX_GC_RATE: '1,5' }, /SANDBOX_GC_RATE must be decimal text/],
    [{ SANDBOX_BILL_LIFETIME_MS: '0' }, /SANDBOX_BILL_LIFETIME_MS must be a whole number from 1/],
  ];
  for (const [badEnv, message] of bad) {
    assert.throws(() => sandboxSettingsFromEnv(badEnv), (err: unknown) => err instanceof SandboxConfigError && message.test(err.message));
  }
});

test('`npm run sandbox` speaks the dialect of its environment', async (t) => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/main.ts'], {
    env: { ...process.env, ...OTHER_ENV, SANDBOX_PORT: '0', SANDBOX_PUBLIC_URL: 'http://127.0.0.1:1' },
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  t.after(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  });
  const origin = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      const m = /on (http:\/\/localhost:\d+)/.exec(out);
      if (m) resolve(m[1]!.replace('localhost', '127.0.0.1'));
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${out}`)));
  });

  const other = new Client(origin, '', signBase64);
  const created = await other.create(newBill());
  assert.deepEqual([created.status, created.json.code], [200, 200]);
  assert.equal((await other.requery(created.json.data.billId)).json.data.status, 10);
  assert.equal((await new Client(origin, '').requery(created.json.data.billId)).json.code, 1002);

  child.kill('SIGTERM');
  assert.deepEqual(await exited, [0, null]);
});
