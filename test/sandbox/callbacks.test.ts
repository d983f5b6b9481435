import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callbacksUntil, clock, newBill, seeded, startReceiver, startSandbox } from './support/harness.js';

test('a final status is called back as JSON with billAmount quoted', async (t) => {
  const receiver = await startReceiver(t);
  const c = clock();
  const { client, sandbox } = await startSandbox(t, { now: c.now });
  const bill = (await client.create(newBill({ amount: 12345678901.23, callbackUrl: receiver.url }))).json.data;
  c.advance(3000);
  const delivered = callbacksUntil(sandbox, (s) => s.length === 1);
  const record = sandbox.pay(bill.billId);
  const [attempt] = await delivered;
  assert.deepEqual(attempt, { billId: bill.billId, url: receiver.url, attempt: 1, outcome: 'ok', httpStatus: 200, at: c.now() });
  assert.equal(receiver.received.length, 1);
  assert.equal(receiver.received[0]!.method, 'POST');
  assert.match(receiver.received[0]!.body, /"billAmount":"12345678901\.23"/);
  assert.deepEqual(JSON.parse(receiver.received[0]!.body), { ...record, dateTime: c.now() });
  assert.equal(record.statusName, 'Paid');
  assert.deepEqual(sandbox.stats().callbacks, [attempt]);
});

test('a receiver that always answers 500 gets exactly 6 attempts, then no more', async (t) => {
  const receiver = await startReceiver(t, () => 500);
  const { client, sandbox } = await startSandbox(t, { callbackRetryDelayMs: 1 });
  const bill = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  const six = callbacksUntil(sandbox, (s) => s.length === 6);
  sandbox.decline(bill.billId);
  const attempts = await six;
  await sandbox.idle();
  assert.deepEqual(attempts.map((a) => [a.attempt, a.outcome, a.httpStatus]),
    [1, 2, 3, 4, 5, 6].map((n) => [n, 'non-200', 500]));
  assert.equal(receiver.received.length, 6);
  assert.equal(sandbox.stats().callbacks.length, 6);
});

test('a retry that succeeds stops the retries; non-200 success codes count as failures', async (t) => {
  const receiver = await startReceiver(t, (n) => (n === 1 ? 503 : n === 2 ? 204 : 200));
  const { client, sandbox } = await startSandbox(t);
  const bill = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  sandbox.pay(bill.billId);
  await sandbox.idle();
  assert.deepEqual(sandbox.stats().callbacks.map((a) => a.httpStatus), [503, 204, 200]);
  assert.equal(receiver.received.length, 3);
});

test('network errors are retried as well', async (t) => {
  const { client, sandbox } = await startSandbox(t);
  // Port 9 (discard) is closed here: every attempt fails to connect.
  const bill = (await client.create(newBill({ callbackUrl: 'http://127.0.0.1:9/cb' }))).json.data;
  sandbox.pay(bill.billId);
  await sandbox.idle();
  assert.deepEqual(sandbox.stats().callbacks.map((a) => a.outcome), Array(6).fill('network-error'));
});

test('the retry delay is callbackRetryDelayMs', async (t) => {
  const receiver = await startReceiver(t, (n) => (n === 1 ? 500 : 200));
  const { client, sandbox } = await startSandbox(t, { callbackRetryDelayMs: 150 });
  const bill = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  const times: number[] = [];
  sandbox.events.addEventListener('callback', () => times.push(performance.now()));
  sandbox.pay(bill.billId);
  await sandbox.idle();
  assert.equal(times.length, 2);
  assert.ok(times[1]! - times[0]! >= 140, `retry after ${times[1]! - times[0]!} ms`);
});

test('fault callbackDropRate: the callback is lost, recorded as dropped, never retried', async (t) => {
  const receiver = await startReceiver(t);
  const { client, sandbox } = await startSandbox(t, { faults: { callbackDropRate: 1 } });
  const bill = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  sandbox.pay(bill.billId);
  await sandbox.idle();
  assert.deepEqual(sandbox.stats().callbacks.map((a) => [a.outcome, a.httpStatus]), [['dropped', null]]);
  assert.equal(receiver.received.length, 0);
});

test('fault callbackDuplicateRate: the callback arrives twice', async (t) => {
  const receiver = await startReceiver(t);
  const { client, sandbox } = await startSandbox(t, { faults: { callbackDuplicateRate: 1 } });
  const bill = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  sandbox.pay(bill.billId);
  await sandbox.idle();
  assert.equal(receiver.received.length, 2);
  assert.equal(receiver.received[0]!.body, receiver.received[1]!.body);
});

test('fault callbackDelayMs: the first attempt waits within the range', async (t) => {
  const receiver = await startReceiver(t);
  const { client, sandbox } = await startSandbox(t, { faults: { callbackDelayMs: [120, 160] } });
  const bill = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  const start = performance.now();
  sandbox.pay(bill.billId);
  await sandbox.idle();
  const waited = performance.now() - start;
  assert.ok(waited >= 115, `delivered after ${waited} ms`);
  assert.equal(receiver.received.length, 1);
});

test('fault callbackReorderWindowMs: callbacks due together are sent shuffled', async (t) => {
  const receiver = await startReceiver(t);
  const { client, sandbox } = await startSandbox(t, { random: seeded(7), faults: { callbackReorderWindowMs: 30 } });
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) ids.push((await client.create(newBill({ callbackUrl: receiver.url }))).json.data.billId);
  for (const id of ids) sandbox.pay(id);
  await sandbox.idle();
  const order = receiver.received.map((r) => (JSON.parse(r.body) as { billId: string }).billId);
  assert.deepEqual([...order].sort(), [...ids].sort(), 'each exactly once');
  assert.notDeepEqual(order, ids, 'not in the order they became final');

  // Without the fault the order is kept.
  sandbox.resetFaults();
  receiver.received.length = 0;
  const more: string[] = [];
  for (let i = 0; i < 4; i++) more.push((await client.create(newBill({ callbackUrl: receiver.url }))).json.data.billId);
  for (const id of more) {
    const one = callbacksUntil(sandbox, (s) => s.length === 1);
    sandbox.pay(id);
    await one;
  }
  assert.deepEqual(receiver.received.map((r) => (JSON.parse(r.body) as { billId: string }).billId), more);
});

test('close() stops pending callbacks and idle() then resolves', async (t) => {
  const receiver = await startReceiver(t);
  const c = clock();
  const { client, sandbox } = await startSandbox(t, { now: c.now, faults: { callbackDelayMs: [60_000, 60_000] } });
  const bill = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  sandbox.pay(bill.billId);
  let idle = false;
  const idled = sandbox.idle().then(() => (idle = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(idle, false, 'a callback is scheduled');
  sandbox.close();
  await idled;
  assert.equal(receiver.received.length, 0);
});
