// The replicaLagMs fault: requery and list read a replica behind the sandbox's clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clock, newBill, startReceiver, startSandbox, type Envelope } from './support/harness.js';

const LAG = 1_000;

test('replicaLagMs: a bill paid 300 ms ago still reads Pending Payment as it was; then paid once the lag has passed', async (t) => {
  const receiver = await startReceiver(t);
  const time = clock();
  const { client, sandbox } = await startSandbox(t, { now: time.now, faults: { replicaLagMs: LAG } });
  const bill = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  const createdAt = time.now();
  time.advance(5_000);
  const paidAt = time.now();
  const paid = sandbox.pay(bill.billId);
  time.advance(300);

  const stale = await client.requery(bill.billId);
  assert.equal(stale.json.code, 0);
  const s = stale.json.data;
  assert.deepEqual([s.status, s.statusName, s.isFinal, s.paymentReference, s.dateTime], [1, 'Pending Payment', false, '', createdAt]);
  const listed = (await client.list()).json.data;
  assert.deepEqual([listed.total, listed.lists[0]!.status, listed.lists[0]!.paymentReference], [1, 1, '']);

  // The book is not lagged: the callback went out, and a cancel sees the bill paid.
  await sandbox.idle();
  assert.equal(receiver.received.length, 1);
  assert.equal((JSON.parse(receiver.received[0]!.body) as { status: number }).status, 2);
  const cancel = await client.cancel(bill.billId);
  assert.deepEqual([cancel.status, cancel.json.code], [409, 1005]);

  time.advance(LAG - 300 - 1);
  assert.equal((await client.requery(bill.billId)).json.data.status, 1, '1 ms short of the lag');
  time.advance(1);
  const fresh = (await client.requery(bill.billId)).json.data;
  assert.deepEqual(fresh, paid, 'the paid record, with its paymentReference and dateTime');
  assert.equal(fresh.dateTime, paidAt);
  assert.deepEqual((await client.list()).json.data.lists[0]!.paymentReference, paid.paymentReference);
});

test('replicaLagMs: a bill created less than the lag ago is not there: requery 1004, list leaves it out', async (t) => {
  const time = clock();
  const { client, sandbox } = await startSandbox(t, { now: time.now });
  const old = (await client.create(newBill({ merchantReference: 'OLD' }))).json.data;
  time.advance(10_000);
  sandbox.setFaults({ replicaLagMs: LAG });
  const young = (await client.create(newBill({ merchantReference: 'YOUNG' }))).json.data;
  time.advance(LAG - 1);

  const missing = await client.requery(young.billId);
  assert.deepEqual([missing.status, missing.json], [404, { code: 1004, message: 'Bill not found', data: null }]);
  const listed = (await client.list()).json.data;
  assert.deepEqual([listed.total, listed.lists.map((r) => r.merchantReference)], [1, ['OLD']]);
  const filtered = await client.list({ filters: [{ name: 'billId', value: young.billId, matchType: 'equal' }] });
  assert.equal(filtered.json.data.total, 0);
  assert.equal(sandbox.pay(young.billId).status, 2, 'the book has it');

  time.advance(1);
  assert.equal((await client.requery(young.billId)).json.code, 0, 'exactly the lag: in the replica');
  assert.equal((await client.list()).json.data.total, 2);
  assert.equal((await client.requery(old.billId)).json.data.status, 1);
});

test('replicaLagMs: an expiry more recent than the lag still reads pending; an older one reads expired', async (t) => {
  const receiver = await startReceiver(t);
  const time = clock();
  const lifetime = 60_000;
  const { client, sandbox } = await startSandbox(t, { now: time.now, billLifetimeMs: lifetime, faults: { replicaLagMs: 5_000 } });
  const recent = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  time.advance(lifetime + 4_999);

  const pending = (await client.requery(recent.billId)).json.data;
  assert.deepEqual([pending.status, pending.isFinal], [1, false]);
  // The book expired it at expiredOn: the callback says so and it can no longer be paid.
  await sandbox.idle();
  assert.equal((JSON.parse(receiver.received[0]!.body) as { status: number }).status, 5);
  assert.throws(() => sandbox.pay(recent.billId), /not Pending Payment/);

  time.advance(1);
  const expired = (await client.requery(recent.billId)).json.data;
  assert.deepEqual([expired.status, expired.statusName, expired.dateTime], [5, 'Expired', recent.expiredOn]);

  // Never read nor swept since its expiry, long past the lag: expired at the first read.
  const older = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  time.advance(lifetime + 60_000);
  const listed = (await client.list({ filters: [{ name: 'billId', value: older.billId, matchType: 'equal' }] })).json.data;
  assert.deepEqual([listed.total, listed.lists[0]!.status], [1, 5]);
});

test('replicaLagMs: a cancel is seen only after the lag; 0 (or resetting faults) reads the book again', async (t) => {
  const time = clock();
  const { client, base, sandbox } = await startSandbox(t, { now: time.now });
  const bill = (await client.create(newBill())).json.data;
  time.advance(60_000);
  const put = await fetch(`${base}/_control/faults`, {
    method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ replicaLagMs: 600_000 }),
  });
  assert.equal(((await put.json()) as Envelope<{ replicaLagMs: number }>).data.replicaLagMs, 600_000);

  assert.equal((await client.cancel(bill.billId)).json.data.status, 4);
  time.advance(1_000);
  assert.equal((await client.requery(bill.billId)).json.code, 1004, 'created 61 s ago: not in a replica 10 min behind');
  sandbox.setFaults({ replicaLagMs: 30_000 });
  assert.equal((await client.requery(bill.billId)).json.data.status, 1, 'cancelled 1 s ago');
  sandbox.setFaults({ replicaLagMs: 0 });
  assert.equal((await client.requery(bill.billId)).json.data.status, 4);
  sandbox.setFaults({ replicaLagMs: 30_000 });
  sandbox.resetFaults();
  assert.equal((await client.requery(bill.billId)).json.data.status, 4);
});
