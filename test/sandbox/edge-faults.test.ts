// Faults of what stands between the client and the service, and of a service that lost its
// memory: createResetAfterMade, refusals, listRefusedFilters, recordDateTimeOffsetMs, forget. Over
// real HTTP where the fault is about the wire; their validation, merging, clearing and SANDBOX_*.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { TestContext } from 'node:test';
import { test } from 'node:test';
import { serve, type Http2Bindings, type HttpBindings } from '@hono/node-server';
import { SandboxError } from '../../sandbox/envelope.js';
import { SandboxConfigError, sandboxSettingsFromEnv } from '../../sandbox/env.js';
import { createSandbox, type Faults, type Sandbox } from '../../sandbox/sandbox.js';
import { Client, clock, newBill, sign, startReceiver, startSandbox, KEY, SECRET, type Envelope, control } from './support/harness.js';

/** Serves the sandbox passing node-server's HttpBindings on (the harness's `listen` drops them). */
async function serveWithBindings(t: TestContext, sandbox: Sandbox): Promise<Client> {
  const origin = await new Promise<string>((resolve) => {
    const server = serve({
      fetch: (req, env: HttpBindings | Http2Bindings) => sandbox.app.fetch(req, env), port: 0, hostname: '127.0.0.1',
    }, (info) => resolve(`http://127.0.0.1:${info.port}`));
    t.after(() => new Promise<void>((done) => {
      server.close(() => done());
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
    }));
  });
  return new Client(origin, '');
}

interface NetworkError {
  name: string;
  causeCode: string | undefined;
}

/** A signed create by fetch that must fail without an HTTP answer; what the client saw. */
async function createFailing(client: Client, body: Record<string, unknown>): Promise<NetworkError> {
  try {
    const res = await client.raw('POST', '/v1/bill/create', JSON.stringify(body));
    assert.fail(`an HTTP answer came: ${res.status}`);
  } catch (err) {
    assert.ok(err instanceof TypeError, String(err));
    return { name: err.name, causeCode: (err.cause as { code?: string } | undefined)?.code };
  }
}

/** The same create by node:http: the error it ends with, and whether any status line came. */
function createByNodeHttp(client: Client, body: Record<string, unknown>): Promise<{ code: string | undefined; status: number | null }> {
  const text = JSON.stringify(body);
  const url = new URL('/v1/bill/create', client.origin);
  return new Promise((resolve) => {
    let status: number | null = null;
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', Key: KEY, Sign: sign(SECRET, 'POST', url.pathname, '', text) },
    }, (res) => {
      status = res.statusCode ?? null;
      res.resume();
      res.on('end', () => resolve({ code: undefined, status }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ code: err.code, status }));
    req.end(text);
  });
}

async function byReference(client: Client, merchantReference: string): Promise<{ billId: string; status: number }[]> {
  const r = await client.list({ filters: [{ name: 'merchantReference', value: merchantReference, matchType: 'equal' }] });
  assert.equal(r.json.code, 0, r.text);
  return r.json.data.lists;
}

test('createResetAfterMade: the bill is made, the connection is reset; fetch and node:http see a network error, no status', async (t) => {
  const receiver = await startReceiver(t);
  const { client, sandbox, base } = await startSandbox(t, { faults: { createResetAfterMade: 2 } });

  const seen = await createFailing(client, newBill({ merchantReference: 'RST-1', callbackUrl: receiver.url }));
  assert.deepEqual(seen, { name: 'TypeError', causeCode: 'ECONNRESET' });
  assert.deepEqual(await createByNodeHttp(client, newBill({ merchantReference: 'RST-2' })), { code: 'ECONNRESET', status: null });

  assert.equal(sandbox.stats().calls.create, 2);
  assert.equal(sandbox.faults().createResetAfterMade, 0, 'each reset counts down');
  const [made] = await byReference(client, 'RST-1');
  assert.equal(made?.status, 1, 'the bill of the reset create is there, pending');
  assert.equal((await byReference(client, 'RST-2')).length, 1);
  assert.equal((await client.requery(made.billId)).json.data.billId, made.billId);
  assert.equal((await control<{ status: number }>(base, 'POST', `/bills/${made.billId}/pay`)).json.data.status, 2);
  await sandbox.idle();
  assert.equal(JSON.parse(receiver.received[0]!.body).billId, made.billId, 'its callback is sent as usual');

  const next = await client.create(newBill({ merchantReference: 'RST-3' }));
  assert.deepEqual([next.status, next.json.code], [200, 0], 'the count is used up: answered as usual');
});

test('createResetAfterMade: the same when node-server passes its HttpBindings on; a refused create does not count', async (t) => {
  const sandbox = createSandbox({ sweepIntervalMs: 0, faults: { createResetAfterMade: 1 } });
  t.after(() => sandbox.close());
  const client = await serveWithBindings(t, sandbox);

  const invalid = await client.create(newBill({ amount: -1 }));
  assert.deepEqual([invalid.status, invalid.json.code], [400, 1003], 'no bill made: answered, not reset');
  assert.equal(sandbox.faults().createResetAfterMade, 1);
  assert.deepEqual(await createFailing(client, newBill({ merchantReference: 'RST-B' })), { name: 'TypeError', causeCode: 'ECONNRESET' });
  assert.equal((await byReference(client, 'RST-B')).length, 1);
  assert.equal(sandbox.stats().calls.create, 2);
});

test('createResetAfterMade in-process (app.request): a 200 whose body fails to read; the bill is made', async (t) => {
  const sandbox = createSandbox({ sweepIntervalMs: 0, faults: { createResetAfterMade: 1 } });
  t.after(() => sandbox.close());
  const body = JSON.stringify(newBill({ merchantReference: 'RST-IN' }));
  const res = await sandbox.app.request('/v1/bill/create', {
    method: 'POST',
    headers: { 'content-type': 'application/json', Key: KEY, Sign: sign(SECRET, 'POST', '/v1/bill/create', '', body) },
    body,
  });
  assert.equal(res.status, 200);
  await assert.rejects(res.text());
  assert.equal(sandbox.faults().createResetAfterMade, 0);
  assert.equal(sandbox.stats().calls.create, 1);
  const listBody = JSON.stringify({ filters: [{ name: 'merchantReference', value: 'RST-IN', matchType: 'equal' }] });
  const listed = await sandbox.app.request('/v1/bills', {
    method: 'POST',
    headers: { 'content-type': 'application/json', Key: KEY, Sign: sign(SECRET, 'POST', '/v1/bills', '', listBody) },
    body: listBody,
  });
  assert.equal(((await listed.json()) as Envelope<{ total: number }>).data.total, 1);
});

test('refusals: a 429 with Retry-After on create, then one HTML 503 page; nothing is made; then as usual', async (t) => {
  const { client, sandbox, base } = await startSandbox(t);
  await control(base, 'PUT', '/faults', { refusals: { create: [{ status: 429, retryAfterS: 1 }, { status: 503, html: true }] } });

  const throttled = await client.create(newBill({ merchantReference: 'REF-1' }));
  assert.deepEqual([throttled.status, throttled.json.code, throttled.json.data], [429, 1006, null]);
  assert.equal(typeof throttled.json.message, 'string');
  const again = await client.raw('POST', '/v1/bill/create', JSON.stringify(newBill({ merchantReference: 'REF-2' })));
  assert.equal(again.status, 503);
  assert.equal(again.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(again.headers.get('retry-after'), null);
  assert.equal(await again.text(), '<!doctype html><title>503 Service Unavailable</title><h1>Down for maintenance</h1>');
  assert.deepEqual(sandbox.faults().refusals, { create: [] }, 'the queue is used up');

  assert.equal((await client.list()).json.data.total, 0, 'no bill was made');
  assert.equal((await client.create(newBill())).json.code, 0);
  assert.equal(sandbox.stats().calls.create, 3, 'refused calls are counted');
  assert.equal(sandbox.stats().throttled.create, 0, 'throttled is the rateLimit fault\'s');
});

test('refusals: the Retry-After header comes over the wire', async (t) => {
  const { client } = await startSandbox(t, { faults: { refusals: { list: [{ status: 429, retryAfterS: 7 }, { status: 503, retryAfterS: 30, html: true }] } } });
  const first = await client.raw('POST', '/v1/bills', '{}');
  assert.deepEqual([first.status, first.headers.get('retry-after'), first.headers.get('content-type')], [429, '7', 'application/json; charset=utf-8']);
  assert.equal(((await first.json()) as Envelope).code, 1006);
  const second = await client.raw('POST', '/v1/bills', '{}');
  assert.deepEqual([second.status, second.headers.get('retry-after')], [503, '30']);
  assert.match(await second.text(), /^<!doctype html>/);
  assert.equal((await client.list()).json.code, 0);
});

test('refusals: a cancel refused once leaves the bill pending; default and given codes; before authentication', async (t) => {
  const { client, sandbox } = await startSandbox(t);
  const bill = (await client.create(newBill())).json.data;
  sandbox.setFaults({ refusals: { cancel: [{ status: 429 }] } });
  const refused = await client.cancel(bill.billId);
  assert.deepEqual([refused.status, refused.json.code, refused.json.data], [429, 1006, null]);
  assert.equal((await client.requery(bill.billId)).json.data.status, 1, 'not cancelled');
  assert.equal((await client.cancel(bill.billId)).json.data.status, 4, 'the next cancel is served');

  sandbox.setFaults({
    refusals: {
      requery: [{ status: 401 }, { status: 500 }, { status: 502 }, { status: 404 }, { status: 400 }, { status: 418, code: 4242 }],
    },
  });
  const codes: [number, number][] = [];
  for (let i = 0; i < 6; i++) {
    const r = await client.requery(bill.billId);
    codes.push([r.status, r.json.code]);
  }
  assert.deepEqual(codes, [[401, 1001], [500, 1500], [502, 1500], [404, 1003], [400, 1003], [418, 4242]]);

  sandbox.setFaults({ refusals: { bind: [{ status: 503 }] } });
  const unsigned = await client.call('POST', '/v1/customer/bind', { name: 'Ada', email: 'ada@example.com' }, { key: 'wrong' });
  assert.deepEqual([unsigned.status, unsigned.json.code], [503, 1500], 'answered before the Key is looked at');
  assert.equal(sandbox.stats().calls.requery, 7);
});

test('refusals: a patch replaces one operation\'s queue and keeps the others; faults() shows what is left', async (t) => {
  const { base, sandbox, client } = await startSandbox(t);
  await control(base, 'PUT', '/faults', { refusals: { create: [{ status: 429 }, { status: 500 }], list: [{ status: 503 }] } });
  await client.create(newBill());
  const merged = await control<Faults>(base, 'PUT', '/faults', { refusals: { list: [{ status: 502, html: true }, { status: 504 }] } });
  assert.deepEqual(merged.json.data.refusals, {
    create: [{ status: 500 }], list: [{ status: 502, html: true }, { status: 504 }],
  });
  sandbox.setFaults({ refusals: { create: [] } });
  assert.deepEqual(sandbox.faults().refusals.create, []);
  assert.equal((await client.create(newBill())).json.code, 0);
});

test('listRefusedFilters: a list filtering on one of them is refused with 1003; other lists as usual', async (t) => {
  const { client, base } = await startSandbox(t, { faults: { listRefusedFilters: ['merchantReference'] } });
  await client.create(newBill({ merchantReference: 'LRF-1' }));
  const refused = await client.list({
    filters: [{ name: 'merchantReference', value: 'LRF-1', matchType: 'equal' }], paging: { index: 1, size: 1000 },
  });
  assert.deepEqual([refused.status, refused.json], [400, { code: 1003, message: 'filters: "merchantReference" cannot be filtered on', data: null }]);
  assert.doesNotMatch(refused.json.message, /size|pag/i);
  assert.equal((await client.list()).json.data.total, 1);
  assert.equal((await client.list({ filters: [{ name: 'status', value: '1', matchType: 'equal' }] })).json.data.total, 1);
  const sorted = await client.list({ sort: { name: 'merchantReference', order: 1 } });
  assert.equal(sorted.json.data.total, 1, 'sorting on it is not filtering');

  await control(base, 'PUT', '/faults', { listRefusedFilters: ['billId', 'status'] });
  assert.equal((await byReference(client, 'LRF-1')).length, 1, 'the patch replaces the list');
  assert.equal((await client.list({ filters: [{ name: 'status', value: '1', matchType: 'like' }] })).json.message, 'filters: "status" cannot be filtered on');
});

test('recordDateTimeOffsetMs: dateTime of requery, cancel, list and callbacks is off; nothing else is', async (t) => {
  const SEVEN_HOURS = 25_200_000;
  const time = clock(1_800_000_000_000);
  const receiver = await startReceiver(t);
  const { client, sandbox, base } = await startSandbox(t, { now: time.now, faults: { recordDateTimeOffsetMs: SEVEN_HOURS } });
  const createdAt = time.now();
  const created = await client.create(newBill({ callbackUrl: receiver.url }));
  assert.equal(created.json.data.expiredOn, createdAt + 900_000, 'expiredOn follows the clock');
  time.advance(1000);

  assert.equal((await client.requery(created.json.data.billId)).json.data.dateTime, createdAt + SEVEN_HOURS);
  const listed = (await client.list()).json.data.lists[0]!;
  assert.equal(listed.dateTime, createdAt + SEVEN_HOURS);
  const found = await client.list({ filters: [{ name: 'dateTime', value: String(createdAt + SEVEN_HOURS), matchType: 'equal' }] });
  assert.equal(found.json.data.total, 1, 'list filters see the stated value');

  const cancelled = await client.raw('POST', '/v1/bill/cancel', JSON.stringify({ billId: created.json.data.billId }));
  assert.equal(((await cancelled.json()) as Envelope<{ dateTime: number }>).data.dateTime, time.now() + SEVEN_HOURS);
  assert.equal(cancelled.headers.get('date'), new Date(time.now()).toUTCString(), 'the Date header follows the clock');
  await sandbox.idle();
  assert.equal(JSON.parse(receiver.received[0]!.body).dateTime, time.now() + SEVEN_HOURS, 'the callback body too');

  const other = (await client.create(newBill())).json.data.billId;
  const paid = await control<{ dateTime: number }>(base, 'POST', `/bills/${other}/pay`);
  assert.equal(paid.json.data.dateTime, time.now(), 'the control routes state the truth');
  sandbox.setFaults({ recordDateTimeOffsetMs: -60_000 });
  assert.equal((await client.requery(other)).json.data.dateTime, time.now() - 60_000);
});

test('forget: every bill is forgotten, pending callbacks dropped; clock, faults, stats and customers stay', async (t) => {
  const receiver = await startReceiver(t);
  const { client, sandbox, base } = await startSandbox(t, { clockOffsetMs: 5000, faults: { callbackDelayMs: [600_000, 600_000] } });
  const bind = () => client.call<{ customerId: string }>('POST', '/v1/customer/bind', { name: 'Ada', email: 'ada@example.com' });
  const customerId = (await bind()).json.data.customerId;
  const billId = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data.billId;
  const payId = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data.billId;
  sandbox.pay(payId);
  sandbox.setFaults({ latencyMs: 1 });

  const forgot = await control(base, 'POST', '/forget');
  assert.deepEqual([forgot.status, forgot.json], [200, { code: 0, message: 'OK', data: null }]);
  await sandbox.idle();
  assert.equal(receiver.received.length, 0, 'the pending callback was dropped');

  const requery = await client.requery(billId);
  assert.deepEqual([requery.status, requery.json.code], [404, 1004]);
  const cancel = await client.cancel(billId);
  assert.deepEqual([cancel.status, cancel.json.code], [404, 1004]);
  assert.deepEqual((await client.list()).json.data, { lists: [], total: 0 });
  assert.equal((await fetch(`${base}/pay/${billId}`)).status, 404);
  assert.equal((await control(base, 'POST', `/bills/${billId}/pay`)).json.code, 1004);

  assert.equal(sandbox.clock().offsetMs, 5000);
  assert.equal(sandbox.faults().latencyMs, 1);
  assert.equal(sandbox.stats().calls.create, 2);
  assert.equal(sandbox.stats().requeryByBill[billId], 1);
  assert.equal((await bind()).json.data.customerId, customerId);

  const fresh = (await client.create(newBill())).json.data.billId;
  sandbox.forget();
  assert.equal((await client.requery(fresh)).json.code, 1004, 'in-process forget() does the same');
});

test('these faults: defaults; bad values refused with 1003 and nothing set; reset and DELETE clear them', async (t) => {
  const { base, sandbox } = await startSandbox(t);
  const defaults = { createResetAfterMade: 0, refusals: {}, listRefusedFilters: [], recordDateTimeOffsetMs: 0 };
  const pick = (f: Faults): Record<string, unknown> => Object.fromEntries(Object.keys(defaults).map((k) => [k, f[k as keyof Faults]]));
  assert.deepEqual(pick((await control<Faults>(base, 'GET', '/faults')).json.data), defaults);

  const before = sandbox.faults();
  const refused = async (body: unknown, path: string): Promise<void> => {
    const r = await control(base, 'PUT', '/faults', body);
    assert.deepEqual([r.status, r.json.code, r.json.data], [400, 1003, null], JSON.stringify(body));
    assert.ok(r.json.message.startsWith(`faults.${path}`), r.json.message);
  };
  for (const bad of [-1, 1.5, 1001, '1', null]) await refused({ createResetAfterMade: bad }, 'createResetAfterMade');
  for (const bad of [399, 600, 429.5, '429']) await refused({ refusals: { create: [{ status: bad }] } }, 'refusals.create.0.status');
  await refused({ refusals: { create: [{ status: 429, retryAfterS: -1 }] } }, 'refusals.create.0.retryAfterS');
  await refused({ refusals: { create: [{ status: 429, retryAfterS: 3601 }] } }, 'refusals.create.0.retryAfterS');
  await refused({ refusals: { create: [{ status: 503, html: 'yes' }] } }, 'refusals.create.0.html');
  await refused({ refusals: { create: [{ status: 503, code: 1.5 }] } }, 'refusals.create.0.code');
  await refused({ refusals: { create: [{ status: 503, html: true, code: 1500 }] } }, 'refusals.create.0');
  await refused({ refusals: { create: [{ status: 503, wait: 1 }] } }, 'refusals.create.0');
  await refused({ refusals: { pay: [{ status: 503 }] } }, 'refusals');
  await refused({ refusals: { create: { status: 503 } } }, 'refusals.create');
  await refused({ listRefusedFilters: ['merchantRef'] }, 'listRefusedFilters.0');
  await refused({ listRefusedFilters: 'merchantReference' }, 'listRefusedFilters');
  for (const bad of [1.5, 10 * 366 * 86_400_000 + 1, '25200000', null]) await refused({ recordDateTimeOffsetMs: bad }, 'recordDateTimeOffsetMs');
  await refused({ createResetAfterMade: 1, recordDateTimeOffsetMs: 0.5 }, 'recordDateTimeOffsetMs');
  assert.throws(() => sandbox.setFaults({ createResetAfterMade: -1 }), SandboxError);
  assert.throws(() => createSandbox({ sweepIntervalMs: 0, faults: { refusals: { list: [{ status: 200 }] } } }), SandboxError);
  assert.deepEqual(sandbox.faults(), before, 'nothing was set');

  const set = {
    createResetAfterMade: 3, refusals: { cancel: [{ status: 429, retryAfterS: 2 }] }, listRefusedFilters: ['merchantReference'],
    recordDateTimeOffsetMs: -3_600_000,
  };
  assert.deepEqual(pick((await control<Faults>(base, 'PUT', '/faults', set)).json.data), set);
  assert.deepEqual(pick((await control<Faults>(base, 'DELETE', '/faults')).json.data), defaults);
  sandbox.setFaults(set);
  assert.deepEqual(pick(sandbox.faults()), set);
  assert.equal((await control(base, 'POST', '/reset')).json.code, 0);
  assert.deepEqual(pick(sandbox.faults()), defaults);
  const fromOptions = await startSandbox(t, { faults: set });
  assert.deepEqual(pick(fromOptions.sandbox.faults()), set);
});

test('SANDBOX_* variables: record dateTime offset, refused list filters, create resets; bad values name the variable', () => {
  const { options } = sandboxSettingsFromEnv({
    SANDBOX_RECORD_DATE_TIME_OFFSET_MS: '25200000', SANDBOX_LIST_REFUSED_FILTERS: 'merchantReference, billId',
    SANDBOX_CREATE_RESET_AFTER_MADE: '2',
  });
  assert.deepEqual(options.faults, { recordDateTimeOffsetMs: 25_200_000, listRefusedFilters: ['merchantReference', 'billId'], createResetAfterMade: 2 });
  assert.equal(sandboxSettingsFromEnv({ SANDBOX_RECORD_DATE_TIME_OFFSET_MS: '-3600000' }).options.faults?.recordDateTimeOffsetMs, -3_600_000);
  const sandbox = createSandbox({ sweepIntervalMs: 0, ...options });
  assert.deepEqual(sandbox.faults().listRefusedFilters, ['merchantReference', 'billId'], 'createSandbox takes them');
  sandbox.close();

  const bad: [string, string][] = [
    ['SANDBOX_RECORD_DATE_TIME_OFFSET_MS', '7h'], ['SANDBOX_RECORD_DATE_TIME_OFFSET_MS', '1.5'],
    ['SANDBOX_RECORD_DATE_TIME_OFFSET_MS', '9999999999999'],
    ['SANDBOX_LIST_REFUSED_FILTERS', 'merchantRef'], ['SANDBOX_CREATE_RESET_AFTER_MADE', '-1'],
    ['SANDBOX_CREATE_RESET_AFTER_MADE', '1001'],
  ];
  for (const [name, value] of bad) {
    assert.throws(() => sandboxSettingsFromEnv({ [name]: value }), (err: unknown) =>
      err instanceof SandboxConfigError && err.message.startsWith(`${name} must be`) && err.message.includes(`"${value}"`), `${name}=${value}`);
  }
});
