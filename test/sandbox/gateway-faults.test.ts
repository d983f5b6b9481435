// Faults of a service that answers the way real gateways do: maxPageSize, dateHeaderOffsetMs,
// expiredOnUnit. The validation, merging and clearing of these and of replicaLagMs, payOnCreate,
// createAnswerAfterCallback and callbackRetryDelayMs; their SANDBOX_* variables.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SandboxError } from '../../sandbox/envelope.js';
import { SandboxConfigError, sandboxSettingsFromEnv } from '../../sandbox/env.js';
import { createSandbox, type Faults } from '../../sandbox/sandbox.js';
import { clock, newBill, startSandbox, type Envelope, control } from './support/harness.js';

const LIFETIME = 15 * 60_000;
const TWO_HOURS = 7_200_000;

const httpDate = (ms: number): string => new Date(ms).toUTCString();

test('maxPageSize: a larger paging.size is refused with 1003 naming the maximum; the default size fits under it', async (t) => {
  const { client, sandbox } = await startSandbox(t, { faults: { maxPageSize: 2 } });
  for (let i = 0; i < 3; i++) await client.create(newBill());

  const refused = await client.list({ paging: { index: 1, size: 3 } });
  assert.deepEqual([refused.status, refused.json], [400, { code: 1003, message: 'paging.size must be at most 2', data: null }]);
  const page = (await client.list({ paging: { index: 2, size: 2 } })).json.data;
  assert.deepEqual([page.lists.length, page.total], [1, 3]);
  assert.equal((await client.list()).json.data.lists.length, 2, 'no size asked: the default, 20, is cut to the maximum');

  sandbox.setFaults({ maxPageSize: 10 });
  const message = (await client.list({ paging: { size: 11 } })).json.message;
  assert.equal(message, 'paging.size must be at most 10');
});

test('maxPageSize above 100 serves pages that large; without it (or null) sizes above 100 are capped', async (t) => {
  const { client, base } = await startSandbox(t);
  await Promise.all(Array.from({ length: 105 }, () => client.create(newBill())));
  const capped = await client.list({ paging: { size: 1000 } });
  assert.deepEqual([capped.json.code, capped.json.data.lists.length], [0, 100]);

  await control(base, 'PUT', '/faults', { maxPageSize: 1000 });
  assert.equal((await client.list({ paging: { size: 1000 } })).json.data.lists.length, 105);
  await control(base, 'PUT', '/faults', { maxPageSize: 200 });
  assert.equal((await client.list({ paging: { size: 201 } })).json.code, 1003);

  const unset = await control<Faults>(base, 'PUT', '/faults', { maxPageSize: null });
  assert.equal(unset.json.data.maxPageSize, null);
  assert.equal((await client.list({ paging: { size: 201 } })).json.data.lists.length, 100);
});

test('dateHeaderOffsetMs: the Date header alone is off; expiredOn, dateTime and the clock are not', async (t) => {
  const time = clock(1_800_000_000_000);
  const { client, base, sandbox } = await startSandbox(t, { now: time.now, clockOffsetMs: 30_000, faults: { dateHeaderOffsetMs: TWO_HOURS } });
  const service = time.now() + 30_000;

  const res = await client.raw('POST', '/v1/bill/create', JSON.stringify(newBill()));
  assert.equal(res.headers.get('date'), httpDate(service + TWO_HOURS));
  const created = ((await res.json()) as Envelope<{ billId: string; expiredOn: number }>).data;
  assert.equal(created.expiredOn, service + LIFETIME);

  time.advance(1_000);
  const answers = await Promise.all([
    client.raw('GET', `/v1/bill/requery?billId=${created.billId}`),
    client.raw('GET', '/v1/bill/requery?billId=B-NONE'),
    client.raw('POST', '/v1/bills', '{}'),
    fetch(`${base}/pay/${created.billId}`),
    fetch(`${base}/_control/clock`),
  ]);
  assert.deepEqual(answers.map((r) => r.status), [200, 404, 200, 200, 200]);
  for (const r of answers) assert.equal(r.headers.get('date'), httpDate(service + 1_000 + TWO_HOURS), r.url);
  const [requery, , , , clockRes] = answers;
  assert.equal(((await requery!.json()) as Envelope<{ dateTime: number }>).data.dateTime, service);
  assert.deepEqual(((await clockRes!.json()) as Envelope).data, { now: service + 1_000, offsetMs: 30_000 });
  for (const r of answers.slice(1, 4)) await r.body?.cancel();

  time.advance(LIFETIME - 1_000);
  assert.equal((await client.requery(created.billId)).json.data.status, 5, 'expired by the clock, not by the header');

  const behind = await control(base, 'PUT', '/faults', { dateHeaderOffsetMs: -TWO_HOURS });
  assert.equal(behind.date, httpDate(time.now() + 30_000 - TWO_HOURS));
  sandbox.resetFaults();
  assert.equal((await control(base, 'GET', '/faults')).date, httpDate(time.now() + 30_000));
});

test('expiredOnUnit s: the create answer states unix seconds, rounded down; the bill expires at its true time', async (t) => {
  const time = clock(1_800_000_000_999);
  const { client, sandbox } = await startSandbox(t, { now: time.now, faults: { expiredOnUnit: 's' } });
  const expiresAt = time.now() + LIFETIME;
  const created = await client.create(newBill());
  assert.equal(created.json.data.expiredOn, Math.floor(expiresAt / 1000));
  assert.match(created.text, /"expiredOn":1800000900}/, 'a whole number of seconds on the wire');

  time.advance(LIFETIME - 1);
  assert.equal((await client.requery(created.json.data.billId)).json.data.status, 1, 'still pending 999 ms past the stated second');
  time.advance(1);
  const expired = (await client.requery(created.json.data.billId)).json.data;
  assert.deepEqual([expired.status, expired.dateTime], [5, expiresAt]);

  sandbox.setFaults({ lies: { create: { expiredOn: 42 } } });
  assert.equal((await client.create(newBill())).json.data.expiredOn, 42, 'a lie is stated as it is');
  sandbox.setFaults({ expiredOnUnit: 'ms', lies: { create: {} } });
  assert.equal((await client.create(newBill())).json.data.expiredOn, time.now() + LIFETIME);
});

test('time and gateway faults: bad values are refused with 1003 naming the field, and change nothing', async (t) => {
  const { base, sandbox } = await startSandbox(t);
  const before = sandbox.faults();
  const refused = async (body: unknown, path: string): Promise<void> => {
    const r = await control(base, 'PUT', '/faults', body);
    assert.deepEqual([r.status, r.json.code, r.json.data], [400, 1003, null], JSON.stringify(body));
    assert.ok(r.json.message.startsWith(`faults.${path}:`), r.json.message);
  };
  for (const bad of [-1, 1.5, 600_001, '1000', null]) await refused({ replicaLagMs: bad }, 'replicaLagMs');
  for (const bad of [1, 'true', null]) {
    await refused({ payOnCreate: bad }, 'payOnCreate');
    await refused({ createAnswerAfterCallback: bad }, 'createAnswerAfterCallback');
  }
  for (const bad of [-1, 0.5, 600_001, '0']) await refused({ callbackRetryDelayMs: bad }, 'callbackRetryDelayMs');
  for (const bad of [0, 1001, 2.5, '10']) await refused({ maxPageSize: bad }, 'maxPageSize');
  for (const bad of [1.5, 10 * 366 * 86_400_000 + 1, -(10 * 366 * 86_400_000 + 1), '7200000', null]) {
    await refused({ dateHeaderOffsetMs: bad }, 'dateHeaderOffsetMs');
  }
  for (const bad of ['seconds', 'S', 1000, null]) await refused({ expiredOnUnit: bad }, 'expiredOnUnit');
  await refused({ replicaLagMs: 10, maxPageSize: 0 }, 'maxPageSize');
  assert.throws(() => sandbox.setFaults({ replicaLagMs: -5 }), SandboxError);
  assert.throws(() => createSandbox({ sweepIntervalMs: 0, faults: { expiredOnUnit: 'us' as 's' } }), SandboxError);
  assert.deepEqual(sandbox.faults(), before, 'nothing was set, not even the valid half');
});

test('time and gateway faults: defaults; PUT merges them; DELETE and reset clear them', async (t) => {
  const { base, sandbox } = await startSandbox(t);
  const defaults = {
    replicaLagMs: 0, payOnCreate: false, createAnswerAfterCallback: false, callbackRetryDelayMs: null,
    maxPageSize: null, dateHeaderOffsetMs: 0, expiredOnUnit: 'ms',
  };
  const pick = (f: Faults): Record<string, unknown> => Object.fromEntries(Object.keys(defaults).map((k) => [k, f[k as keyof Faults]]));
  assert.deepEqual(pick((await control<Faults>(base, 'GET', '/faults')).json.data), defaults);

  const set = {
    replicaLagMs: 500, payOnCreate: true, createAnswerAfterCallback: true, callbackRetryDelayMs: 0,
    maxPageSize: 50, dateHeaderOffsetMs: -3_600_000, expiredOnUnit: 's',
  };
  await control(base, 'PUT', '/faults', { replicaLagMs: 500, payOnCreate: true, createAnswerAfterCallback: true });
  const merged = await control<Faults>(base, 'PUT', '/faults', { callbackRetryDelayMs: 0, maxPageSize: 50, dateHeaderOffsetMs: -3_600_000, expiredOnUnit: 's' });
  assert.deepEqual(pick(merged.json.data), set);
  assert.deepEqual(pick(sandbox.faults()), set);

  assert.deepEqual(pick((await control<Faults>(base, 'DELETE', '/faults')).json.data), defaults);
  sandbox.setFaults(set as Partial<Faults>);
  assert.equal((await control(base, 'POST', '/reset')).json.code, 0);
  assert.deepEqual(pick(sandbox.faults()), defaults);
  const fromOptions = await startSandbox(t, { faults: set as Partial<Faults> });
  assert.deepEqual(pick(fromOptions.sandbox.faults()), set);
  fromOptions.sandbox.resetFaults();
  assert.deepEqual(pick(fromOptions.sandbox.faults()), defaults);
});

test('SANDBOX_* variables set these faults as initial faults; bad values name the variable', () => {
  const { options } = sandboxSettingsFromEnv({
    SANDBOX_REPLICA_LAG_MS: '1500', SANDBOX_MAX_PAGE_SIZE: '10', SANDBOX_DATE_HEADER_OFFSET_MS: '7200000',
    SANDBOX_EXPIRED_ON_UNIT: 's', SANDBOX_PAY_ON_CREATE: 'true', SANDBOX_CREATE_ANSWER_AFTER_CALLBACK: 'false',
  });
  assert.deepEqual(options.faults, {
    replicaLagMs: 1500, maxPageSize: 10, dateHeaderOffsetMs: 7_200_000, expiredOnUnit: 's', payOnCreate: true, createAnswerAfterCallback: false,
  });
  assert.equal(sandboxSettingsFromEnv({ SANDBOX_DATE_HEADER_OFFSET_MS: '-7200000' }).options.faults?.dateHeaderOffsetMs, -7_200_000);
  assert.equal(sandboxSettingsFromEnv({ SANDBOX_EXPIRED_ON_UNIT: 'ms' }).options.faults?.expiredOnUnit, 'ms');
  assert.equal(sandboxSettingsFromEnv({}).options.faults, undefined);
  const sandbox = createSandbox({ sweepIntervalMs: 0, ...options });
  assert.equal(sandbox.faults().maxPageSize, 10, 'createSandbox takes them');
  sandbox.close();

  const bad: [string, string][] = [
    ['SANDBOX_REPLICA_LAG_MS', '-1'], ['SANDBOX_REPLICA_LAG_MS', '600001'], ['SANDBOX_REPLICA_LAG_MS', '1s'],
    ['SANDBOX_MAX_PAGE_SIZE', '0'], ['SANDBOX_MAX_PAGE_SIZE', '1001'], ['SANDBOX_MAX_PAGE_SIZE', 'ten'],
    ['SANDBOX_DATE_HEADER_OFFSET_MS', '2h'], ['SANDBOX_DATE_HEADER_OFFSET_MS', '1.5'], ['SANDBOX_DATE_HEADER_OFFSET_MS', '9999999999999'],
    ['SANDBOX_EXPIRED_ON_UNIT', 'seconds'], ['SANDBOX_EXPIRED_ON_UNIT', 'S'],
    ['SANDBOX_PAY_ON_CREATE', 'yes'], ['SANDBOX_CREATE_ANSWER_AFTER_CALLBACK', '2'], ['SANDBOX_PROCESSING_STEP', 'on'],
  ];
  for (const [name, value] of bad) {
    assert.throws(() => sandboxSettingsFromEnv({ [name]: value }), (err: unknown) =>
      err instanceof SandboxConfigError && err.message.startsWith(`${name} must be`) && err.message.includes(`"${value}"`), `${name}=${value}`);
  }
});
