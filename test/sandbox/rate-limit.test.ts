import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SandboxError } from '../../sandbox/envelope.js';
import { SandboxConfigError, sandboxSettingsFromEnv } from '../../sandbox/env.js';
import { createSandbox, type Op, type SandboxStats } from '../../sandbox/sandbox.js';
import { clock, newBill, startSandbox, type Client, type Envelope, control } from './support/harness.js';

const OPS: readonly Op[] = ['create', 'list', 'requery', 'cancel', 'bind'];

async function stats(base: string): Promise<SandboxStats> {
  return (await control<SandboxStats>(base, 'GET', '/stats')).json.data;
}

function counts(partial: Partial<Record<Op, number>>): Record<Op, number> {
  return Object.fromEntries(OPS.map((op) => [op, partial[op] ?? 0])) as Record<Op, number>;
}

interface Answer {
  status: number;
  retryAfter: string | null;
  json: Envelope<unknown>;
}

/** A signed call of `op` with its status, Retry-After and envelope. */
async function call(client: Client, op: Op, billId = 'B-NONE'): Promise<Answer> {
  const bodies: Record<Op, [string, string, unknown]> = {
    create: ['POST', '/v1/bill/create', newBill()],
    list: ['POST', '/v1/bills', {}],
    requery: ['GET', `/v1/bill/requery?billId=${encodeURIComponent(billId)}`, undefined],
    cancel: ['POST', '/v1/bill/cancel', { billId }],
    bind: ['POST', '/v1/customer/bind', { name: 'Ada', email: 'ada@shop.test' }],
  };
  const [method, path, body] = bodies[op];
  const res = await client.raw(method, path, body === undefined ? undefined : JSON.stringify(body));
  return { status: res.status, retryAfter: res.headers.get('retry-after'), json: (await res.json()) as Envelope<unknown> };
}

test('rateLimit: beyond the limit a 429 with Retry-After and the error envelope; the others of the second pass', async (t) => {
  const time = clock();
  const { client, base } = await startSandbox(t, { now: time.now, faults: { rateLimit: { requery: 3 } } });
  const bill = (await client.create(newBill())).json.data;

  const answers: Answer[] = [];
  for (let i = 0; i < 5; i++) answers.push(await call(client, 'requery', bill.billId));
  assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 429, 429]);
  assert.deepEqual(answers.slice(0, 3).map((a) => a.retryAfter), [null, null, null]);
  const refused = answers[3]!;
  assert.equal(refused.retryAfter, '1', 'default retryAfterS');
  assert.deepEqual(refused.json, { code: 1006, message: 'Rate limit exceeded: 3 requery requests per second', data: null });

  const s = await stats(base);
  assert.deepEqual(s.calls, counts({ create: 1, requery: 5 }), 'calls counts every request received, refused ones too');
  assert.deepEqual(s.throttled, counts({ requery: 2 }));
});

test('rateLimit: each operation has its own limit and its own count', async (t) => {
  const time = clock();
  const { client, base, sandbox } = await startSandbox(t, {
    now: time.now, faults: { rateLimit: { create: 2, list: 1, requery: 4, cancel: 1, bind: 2 } },
  });
  const statuses: Record<string, number[]> = {};
  for (const op of OPS) {
    statuses[op] = [];
    for (let i = 0; i < 5; i++) statuses[op].push((await call(client, op)).status);
  }
  // Requery and cancel of an unknown bill: 404 when let through.
  assert.deepEqual(statuses, {
    create: [200, 200, 429, 429, 429],
    list: [200, 429, 429, 429, 429],
    requery: [404, 404, 404, 404, 429],
    cancel: [404, 429, 429, 429, 429],
    bind: [200, 200, 429, 429, 429],
  });
  const s = await stats(base);
  assert.deepEqual(s.calls, counts({ create: 5, list: 5, requery: 5, cancel: 5, bind: 5 }));
  assert.deepEqual(s.throttled, counts({ create: 3, list: 4, requery: 1, cancel: 4, bind: 3 }));
  assert.deepEqual(sandbox.stats().throttled, s.throttled, 'the same counts in-process');

  // An operation without a limit is never refused, however busy the others are.
  sandbox.setFaults({ rateLimit: { list: 0 } });
  for (let i = 0; i < 20; i++) assert.equal((await call(client, 'list')).status, 200);
});

test('rateLimit: a refused request does nothing (no bill, no cancel, no customer)', async (t) => {
  const time = clock();
  const { client, sandbox } = await startSandbox(t, { now: time.now });
  const keep = (await client.create(newBill({ merchantReference: 'KEEP' }))).json.data;
  const other = (await client.create(newBill({ merchantReference: 'OTHER' }))).json.data;
  time.advance(1000);

  sandbox.setFaults({ rateLimit: { create: 2, cancel: 1, bind: 1 } });
  const created = [];
  for (let i = 0; i < 6; i++) created.push(await client.create(newBill({ merchantReference: `RL-${i}` })));
  assert.deepEqual(created.map((r) => r.status), [200, 200, 429, 429, 429, 429]);
  const list = (await client.list({ sort: { name: 'merchantReference', order: 1 } })).json.data;
  assert.deepEqual(list.lists.map((r) => r.merchantReference), ['KEEP', 'OTHER', 'RL-0', 'RL-1'], 'refused creates created nothing');

  assert.equal((await client.cancel(keep.billId)).json.data.status, 4);
  const refused = await client.cancel(other.billId);
  assert.deepEqual([refused.status, refused.json.code], [429, 1006]);
  assert.equal((await client.requery(other.billId)).json.data.status, 1, 'the refused cancel left the bill pending');

  const bind = (email: string): Promise<Answer> =>
    client.raw('POST', '/v1/customer/bind', JSON.stringify({ name: 'A', email })).then(async (res) => ({
      status: res.status, retryAfter: res.headers.get('retry-after'), json: (await res.json()) as Envelope<unknown>,
    }));
  const first = (await bind('a@shop.test')).json.data as { customerId: string };
  assert.equal((await bind('b@shop.test')).status, 429);
  time.advance(1000);
  const second = (await bind('b@shop.test')).json.data as { customerId: string };
  assert.notEqual(second.customerId, first.customerId);
  assert.equal(sandbox.stats().throttled.create, 4);
});

test('rateLimit: fixed one-second windows of the sandbox clock; refused requests count in theirs', async (t) => {
  const time = clock(1_800_000_000_000); // a whole second
  const { client, sandbox } = await startSandbox(t, { now: time.now, faults: { rateLimit: { list: 2 } } });
  const second = async (n: number): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await call(client, 'list')).status);
    return out;
  };
  assert.deepEqual(await second(3), [200, 200, 429]);
  time.advance(999);
  assert.deepEqual(await second(1), [429], 'still the same second');
  time.advance(1);
  assert.deepEqual(await second(3), [200, 200, 429], 'a new window: the count starts again');
  time.advance(500);
  assert.deepEqual(await second(1), [429]);
  time.advance(500);
  assert.deepEqual(await second(2), [200, 200], 'refusals used up nothing beyond their own second');
  time.advance(5_000);
  assert.deepEqual(await second(2), [200, 200]);
  assert.deepEqual([sandbox.stats().calls.list, sandbox.stats().throttled.list], [12, 4]);
});

test('rateLimit: concurrent requests in one second: exactly the limit passes', async (t) => {
  const time = clock();
  const { client, sandbox } = await startSandbox(t, { now: time.now, faults: { rateLimit: { requery: 10 } } });
  const bill = (await client.create(newBill())).json.data;
  const answers = await Promise.all(Array.from({ length: 40 }, () => call(client, 'requery', bill.billId)));
  assert.equal(answers.filter((a) => a.status === 200).length, 10);
  assert.equal(answers.filter((a) => a.status === 429).length, 30);
  assert.deepEqual([sandbox.stats().calls.requery, sandbox.stats().throttled.requery], [40, 30]);
  // The acceptance arithmetic a BFF test uses: let-through requests per second stay within the limit.
  const passed = sandbox.stats().calls.requery - sandbox.stats().throttled.requery;
  assert.ok(passed <= 10 * 1);
});

test('rateLimit: retryAfterS sets Retry-After; it answers before latency and before authentication', async (t) => {
  const time = clock();
  const { client, sandbox } = await startSandbox(t, { now: time.now, faults: { rateLimit: { list: 1 }, retryAfterS: 7 } });
  assert.equal((await call(client, 'list')).status, 200);
  sandbox.setFaults({ latencyMs: 2_000 });
  const start = performance.now();
  const refused = await call(client, 'list');
  assert.ok(performance.now() - start < 1_000, 'no injected latency on a refusal');
  assert.deepEqual([refused.status, refused.retryAfter, refused.json.code], [429, '7', 1006]);

  const unsigned = await client.raw('POST', '/v1/bills', '{}', { key: 'nobody' });
  assert.deepEqual([unsigned.status, unsigned.headers.get('retry-after')], [429, '7'], 'counted and refused before the Key is checked');
  await unsigned.body?.cancel();

  sandbox.setFaults({ retryAfterS: 0, latencyMs: 0 });
  assert.equal((await call(client, 'list')).retryAfter, '0');
});

test('rateLimit: PUT /_control/faults merges per operation; 0 lifts a limit; DELETE and reset clear limits and counts', async (t) => {
  const time = clock();
  const { client, base, sandbox } = await startSandbox(t, { now: time.now });
  type F = { rateLimit: Partial<Record<Op, number>>; retryAfterS: number };
  assert.deepEqual((await control<F>(base, 'GET', '/faults')).json.data.rateLimit, {});
  assert.equal((await control<F>(base, 'GET', '/faults')).json.data.retryAfterS, 1);
  await control(base, 'PUT', '/faults', { rateLimit: { create: 1 } });
  const merged = await control<F>(base, 'PUT', '/faults', { rateLimit: { list: 2 }, retryAfterS: 3 });
  assert.deepEqual([merged.status, merged.json.data.rateLimit, merged.json.data.retryAfterS], [200, { create: 1, list: 2 }, 3]);

  await call(client, 'create');
  assert.equal((await call(client, 'create')).status, 429);
  await control(base, 'PUT', '/faults', { rateLimit: { create: 0 } });
  assert.equal((await call(client, 'create')).status, 200, '0 lifts the limit at once');

  await control(base, 'PUT', '/faults', { rateLimit: { create: 1 } });
  const cleared = await control<F>(base, 'DELETE', '/faults');
  assert.deepEqual([cleared.json.data.rateLimit, cleared.json.data.retryAfterS], [{}, 1]);
  assert.equal((await call(client, 'create')).status, 200);

  // A limit set mid-second sees the requests that second already had.
  sandbox.setFaults({ rateLimit: { create: 4 } });
  assert.equal((await call(client, 'create')).status, 429, 'the fifth create of this second');
  assert.equal((await stats(base)).throttled.create, 2);

  assert.equal((await control(base, 'POST', '/reset')).json.code, 0);
  assert.deepEqual((await stats(base)).throttled, counts({}));
  sandbox.setFaults({ rateLimit: { create: 1 } });
  assert.equal((await call(client, 'create')).status, 200, 'reset forgot the windows too');
});

test('rateLimit: bad values are refused with 1003 and change nothing', async (t) => {
  const { base, sandbox } = await startSandbox(t);
  const refused = async (body: unknown, path: string): Promise<void> => {
    const r = await control(base, 'PUT', '/faults', body);
    assert.deepEqual([r.status, r.json.code, r.json.data], [400, 1003, null], JSON.stringify(body));
    assert.ok(r.json.message.startsWith(`faults.${path}`), r.json.message);
  };
  await refused({ rateLimit: { requery: -1 } }, 'rateLimit.requery');
  await refused({ rateLimit: { requery: 1.5 } }, 'rateLimit.requery');
  await refused({ rateLimit: { requery: '10' } }, 'rateLimit.requery');
  await refused({ rateLimit: { requery: null } }, 'rateLimit.requery');
  await refused({ rateLimit: { create: 1_000_001 } }, 'rateLimit.create');
  await refused({ rateLimit: { pay: 1 } }, 'rateLimit');
  await refused({ rateLimit: 10 }, 'rateLimit');
  await refused({ retryAfterS: -1 }, 'retryAfterS');
  await refused({ retryAfterS: 0.5 }, 'retryAfterS');
  await refused({ retryAfterS: 3601 }, 'retryAfterS');
  await refused({ rateLimit: { list: 5 }, retryAfterS: 'soon' }, 'retryAfterS');
  assert.throws(() => sandbox.setFaults({ rateLimit: { list: -5 } }), SandboxError);
  assert.throws(() => createSandbox({ sweepIntervalMs: 0, faults: { retryAfterS: -1 } }), SandboxError);
  assert.deepEqual([sandbox.faults().rateLimit, sandbox.faults().retryAfterS], [{}, 1], 'nothing was set, not even the valid half');
});

test('rateLimit from the environment: SANDBOX_RATE_LIMIT and SANDBOX_RETRY_AFTER_S', () => {
  const { options } = sandboxSettingsFromEnv({ SANDBOX_RATE_LIMIT: 'requery=10, create=5', SANDBOX_RETRY_AFTER_S: '2' });
  assert.deepEqual(options.faults, { rateLimit: { requery: 10, create: 5 }, retryAfterS: 2 });
  assert.equal(sandboxSettingsFromEnv({}).options.faults, undefined);
  for (const bad of ['requery', 'requery=x', 'pay=1', 'requery=-1', 'requery=1.5', 'requery=1000001']) {
    assert.throws(() => sandboxSettingsFromEnv({ SANDBOX_RATE_LIMIT: bad }), (err: unknown) =>
      err instanceof SandboxConfigError && err.message.startsWith('SANDBOX_RATE_LIMIT'), bad);
  }
  assert.throws(() => sandboxSettingsFromEnv({ SANDBOX_RETRY_AFTER_S: '3601' }), SandboxConfigError);
});
