import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newBill, startReceiver, startSandbox, type Envelope } from './support/sandbox-harness.js';

test('fault latencyMs delays every operation', async (t) => {
  const { client, sandbox } = await startSandbox(t);
  const bill = (await client.create(newBill())).json.data;
  sandbox.setFaults({ latencyMs: 120 });
  const start = performance.now();
  const r = await client.requery(bill.billId);
  const took = performance.now() - start;
  assert.equal(r.json.code, 0);
  assert.ok(took >= 115, `took ${took} ms`);
});

test('fault errorRate answers 500 with 1500 before processing: no bill is created', async (t) => {
  const { client, sandbox } = await startSandbox(t, { faults: { errorRate: { create: 1 } } });
  const r = await client.create(newBill({ merchantReference: 'ERR-1' }));
  assert.equal(r.status, 500);
  assert.deepEqual(r.json, { code: 1500, message: 'Injected error', data: null });
  assert.equal((await client.list()).json.data.total, 0, 'list is not affected');
  sandbox.setFaults({ errorRate: { create: 0 } });
  assert.equal((await client.create(newBill())).json.code, 0);
});

test('fault timeoutRate holds the answer hangMs, then 503', async (t) => {
  const { client } = await startSandbox(t, { faults: { timeoutRate: { requery: 1 }, hangMs: 150 } });
  const bill = (await client.create(newBill())).json.data;
  const start = performance.now();
  const r = await client.requery(bill.billId);
  const took = performance.now() - start;
  assert.equal(r.status, 503);
  assert.equal(r.json.code, 1500);
  assert.ok(took >= 145, `answered after ${took} ms`);
});

test('fault malformedRate answers 200 with a body that is not an envelope', async (t) => {
  const { client } = await startSandbox(t, { faults: { malformedRate: { list: 1 } } });
  await client.create(newBill());
  const r = await client.list();
  assert.equal(r.status, 200);
  assert.throws(() => JSON.parse(r.text));
  assert.ok(r.text.length > 0);
});

test('fault createLostResponseRate: the bill is created but the answer is a late 503', async (t) => {
  const { client } = await startSandbox(t, { faults: { createLostResponseRate: 1, hangMs: 50 } });
  const r = await client.create(newBill({ merchantReference: 'LOST-1' }));
  assert.equal(r.status, 503);
  assert.equal(r.json.code, 1500);
  const found = await client.list({ filters: [{ name: 'merchantReference', value: 'LOST-1', matchType: 'equal' }] });
  assert.equal(found.json.data.total, 1, 'the orphan bill is found by its merchantReference');
  assert.equal(found.json.data.lists[0]!.status, 1);
});

test('a rate between 0 and 1 hits some calls and not others', async (t) => {
  let i = 0;
  const dice = [0.1, 0.9, 0.1, 0.9];
  const { client } = await startSandbox(t, { random: () => dice[i++ % dice.length]!, faults: { errorRate: { list: 0.5 } } });
  const codes = [];
  for (let n = 0; n < 4; n++) codes.push((await client.list()).json.code);
  assert.deepEqual(codes, [1500, 0, 1500, 0]);
});

test('control routes: faults merge, reset; stats; pay/decline/expire; reset', async (t) => {
  const receiver = await startReceiver(t);
  const { client, base, sandbox } = await startSandbox(t, {}, '/sandbox');
  const control = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; json: Envelope<T> }> => {
    const res = await fetch(`${base}/_control${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Envelope<T> };
  };

  type F = { errorRate: Record<string, number>; latencyMs: number; hangMs: number };
  await control('PUT', '/faults', { errorRate: { create: 1 } });
  const merged = await control<F>('PUT', '/faults', { errorRate: { list: 0.5 }, latencyMs: 1 });
  assert.deepEqual(merged.json.data.errorRate, { create: 1, list: 0.5 });
  assert.equal(merged.json.data.latencyMs, 1);
  assert.equal((await client.create(newBill())).json.code, 1500);
  const bad = await control('PUT', '/faults', { errorRate: { create: 2 } });
  assert.deepEqual([bad.status, bad.json.code], [400, 1003]);
  assert.equal((await control('PUT', '/faults', { nonsense: 1 })).json.code, 1003);
  const cleared = await control<F>('DELETE', '/faults');
  assert.deepEqual([cleared.json.data.errorRate, cleared.json.data.latencyMs, cleared.json.data.hangMs], [{}, 0, 30000]);
  assert.deepEqual((await control<F>('GET', '/faults')).json.data, cleared.json.data);

  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await client.create(newBill({ callbackUrl: receiver.url }))).json.data.billId);
  const paid = await control<{ status: number }>('POST', `/bills/${ids[0]}/pay`);
  assert.equal(paid.json.data.status, 2);
  assert.equal((await control<{ status: number }>('POST', `/bills/${ids[1]}/decline`)).json.data.status, 3);
  assert.equal((await control<{ status: number }>('POST', `/bills/${ids[2]}/expire`)).json.data.status, 5);
  const twice = await control('POST', `/bills/${ids[0]}/pay`);
  assert.deepEqual([twice.status, twice.json.code], [409, 1005]);
  assert.equal((await control('POST', '/bills/nope/pay')).json.code, 1004);
  await client.requery(ids[0]!);
  await client.requery(ids[0]!);
  await sandbox.idle();

  type S = { calls: Record<string, number>; requeryByBill: Record<string, number>; callbacks: unknown[] };
  const stats = (await control<S>('GET', '/stats')).json.data;
  assert.deepEqual(stats.calls, { create: 4, list: 0, requery: 2, cancel: 0, bind: 0 });
  assert.deepEqual(stats.requeryByBill, { [ids[0]!]: 2 });
  assert.equal(stats.callbacks.length, 3);
  assert.equal(receiver.received.length, 3);

  await control('PUT', '/faults', { latencyMs: 5 });
  assert.equal((await control('POST', '/reset')).json.code, 0);
  assert.equal((await client.requery(ids[0]!)).json.code, 1004, 'bills are gone');
  const after = (await control<S>('GET', '/stats')).json.data;
  assert.deepEqual(after.calls, { create: 0, list: 0, requery: 1, cancel: 0, bind: 0 });
  assert.equal((await control<F>('GET', '/faults')).json.data.latencyMs, 0);
});
