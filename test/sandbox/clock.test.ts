import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SandboxError } from '../../sandbox/envelope.js';
import { SandboxConfigError, sandboxSettingsFromEnv } from '../../sandbox/env.js';
import { createSandbox, type SandboxClockState } from '../../sandbox/sandbox.js';
import { clock, newBill, startReceiver, startSandbox, type Envelope, control } from './support/harness.js';

const AHEAD = 90_000;
const LIFETIME = 15 * 60_000;

const httpDate = (ms: number): string => new Date(ms).toUTCString();

test('clockOffsetMs: expiredOn, dateTime and the Date header follow the shifted clock', async (t) => {
  const time = clock(1_800_000_000_000);
  const { client, sandbox } = await startSandbox(t, { now: time.now, clockOffsetMs: AHEAD });
  const service = time.now() + AHEAD;

  const res = await client.raw('POST', '/v1/bill/create', JSON.stringify(newBill()));
  assert.equal(res.headers.get('date'), httpDate(service));
  const created = ((await res.json()) as Envelope<{ billId: string; expiredOn: number }>).data;
  assert.equal(created.expiredOn, service + LIFETIME);

  time.advance(2_500);
  const rq = await client.raw('GET', `/v1/bill/requery?billId=${created.billId}`);
  assert.equal(rq.headers.get('date'), httpDate(service + 2_500));
  assert.equal(((await rq.json()) as Envelope<{ dateTime: number }>).data.dateTime, service, 'dateTime of the create');
  assert.equal((await client.list()).json.data.lists[0]!.dateTime, service);

  const paid = sandbox.pay(created.billId);
  assert.equal(paid.dateTime, service + 2_500);
  assert.deepEqual(sandbox.clock(), { now: service + 2_500, offsetMs: AHEAD });
});

test('clockOffsetMs: bills expire by the shifted clock; callbacks are stamped by it', async (t) => {
  const receiver = await startReceiver(t);
  const time = clock(1_800_000_000_000);
  const { client, sandbox } = await startSandbox(t, { now: time.now, billLifetimeMs: 60_000, clockOffsetMs: -30_000 });
  const bill = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  assert.equal(bill.expiredOn, time.now() - 30_000 + 60_000);

  time.advance(50_000); // the service's clock: 50 s after the create, still pending
  assert.equal((await client.requery(bill.billId)).json.data.status, 1);
  sandbox.setClockOffset(0); // now 80 s after it: past expiredOn
  const expired = (await client.requery(bill.billId)).json.data;
  assert.deepEqual([expired.status, expired.dateTime], [5, bill.expiredOn]);
  await sandbox.idle();
  assert.deepEqual(sandbox.stats().callbacks.map((a) => a.at), [time.now()], 'the attempt is stamped by the sandbox clock');
});

test('Date header: one, from the sandbox clock, on service answers, errors, the pay page and control routes', async (t) => {
  const time = clock(1_800_000_123_456);
  const { client, base } = await startSandbox(t, { now: time.now, clockOffsetMs: -AHEAD }, '/sandbox');
  const expected = httpDate(time.now() - AHEAD);
  const bill = (await client.create(newBill())).json.data;
  const answers = await Promise.all([
    client.raw('GET', `/v1/bill/requery?billId=${bill.billId}`),
    client.raw('GET', '/v1/bill/requery?billId=B-NONE'),
    client.raw('POST', '/v1/bills', '{}', { key: 'nobody' }),
    fetch(`${base}/pay/${bill.billId}`),
    fetch(`${base}/pay/${bill.billId}/pay`, { method: 'POST', redirect: 'manual' }),
    fetch(`${base}/_control/stats`),
    fetch(`${base}/no/such/route`),
  ]);
  assert.deepEqual(answers.map((r) => r.status), [200, 404, 401, 200, 303, 200, 404]);
  for (const r of answers) {
    assert.equal(r.headers.get('date'), expected, r.url);
    await r.body?.cancel();
  }
});

test('Date header with the real clock: the shift on top of the time of day', async (t) => {
  const { client } = await startSandbox(t, { clockOffsetMs: AHEAD });
  const before = Date.now();
  const res = await client.raw('POST', '/v1/bills', '{}');
  const after = Date.now();
  await res.body?.cancel();
  const date = Date.parse(res.headers.get('date')!);
  // HTTP dates have whole seconds.
  assert.ok(date >= Math.floor((before + AHEAD) / 1000) * 1000 && date <= after + AHEAD, `${res.headers.get('date')}`);
  const plain = await startSandbox(t);
  const r2 = await plain.client.raw('POST', '/v1/bills', '{}');
  await r2.body?.cancel();
  assert.ok(Math.abs(Date.parse(r2.headers.get('date')!) - Date.now()) < 2_000, 'no offset: the time of day');
});

test('GET|PUT /_control/clock moves the clock; bad offsets answer 1003; reset goes back to the option', async (t) => {
  const time = clock(1_800_000_000_000);
  const { client, base, sandbox } = await startSandbox(t, { now: time.now, clockOffsetMs: 5_000 });
  assert.deepEqual((await control<SandboxClockState>(base, 'GET', '/clock')).json.data, { now: time.now() + 5_000, offsetMs: 5_000 });

  const put = await control<SandboxClockState>(base, 'PUT', '/clock', { offsetMs: -AHEAD });
  assert.deepEqual([put.status, put.json.data], [200, { now: time.now() - AHEAD, offsetMs: -AHEAD }]);
  assert.equal(put.date, httpDate(time.now() - AHEAD));
  assert.equal((await client.create(newBill())).json.data.expiredOn, time.now() - AHEAD + LIFETIME);

  const refused = async (body: unknown, prefix: string): Promise<void> => {
    const res = await fetch(`${base}/_control/clock`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const json = (await res.json()) as Envelope;
    assert.deepEqual([res.status, json.code, json.data], [400, 1003, null], JSON.stringify(body));
    assert.ok(json.message.startsWith(prefix), json.message);
  };
  await refused({ offsetMs: 1.5 }, 'clock.offsetMs');
  await refused({ offsetMs: '90000' }, 'clock.offsetMs');
  await refused({ offsetMs: 1e15 }, 'clock.offsetMs');
  await refused({}, 'clock.offsetMs');
  await refused({ offsetMs: 1, extra: true }, 'clock');
  await refused('not json', 'Body is not valid JSON');
  assert.throws(() => sandbox.setClockOffset(Number.NaN), SandboxError);
  assert.equal(sandbox.clock().offsetMs, -AHEAD, 'unchanged by refusals');

  assert.equal((await control(base, 'POST', '/reset')).json.code, 0);
  assert.deepEqual(sandbox.clock(), { now: time.now() + 5_000, offsetMs: 5_000 }, 'the offset the sandbox was created with');
});

test('clockOffsetMs: a bad option throws TypeError; SANDBOX_CLOCK_OFFSET_MS sets it', () => {
  for (const bad of [1.5, Number.NaN, 1e15]) {
    assert.throws(() => createSandbox({ sweepIntervalMs: 0, clockOffsetMs: bad }), TypeError, String(bad));
  }
  assert.equal(sandboxSettingsFromEnv({ SANDBOX_CLOCK_OFFSET_MS: '90000' }).options.clockOffsetMs, 90_000);
  assert.equal(sandboxSettingsFromEnv({ SANDBOX_CLOCK_OFFSET_MS: '-90000' }).options.clockOffsetMs, -90_000);
  assert.equal(sandboxSettingsFromEnv({}).options.clockOffsetMs, undefined);
  for (const bad of ['ahead', '1.5', '90s', '9999999999999']) {
    assert.throws(() => sandboxSettingsFromEnv({ SANDBOX_CLOCK_OFFSET_MS: bad }), SandboxConfigError, bad);
  }
});
