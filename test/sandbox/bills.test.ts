import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callbacksUntil, clock, newBill, startReceiver, startSandbox } from './support/harness.js';

test('create keeps the exact digits of a number or a string amount, and computes requireGCAmount', async (t) => {
  const c = clock();
  const { client } = await startSandbox(t, { now: c.now, billLifetimeMs: 60_000 });
  // 12345678901.23 is not exactly a double; written back it must keep its digits.
  const asNumber = await client.create('{"amount":12345678901.23,"callbackUrl":"http://127.0.0.1:9/cb","redirectUrl":"https://shop.test/r"}');
  assert.equal(asNumber.status, 200, asNumber.text);
  assert.match(asNumber.text, /"billAmount":12345678901\.23,/);
  assert.match(asNumber.text, /"requireGCAmount":154320986\.2654,/); // 12345678901.23 × 0.0125 = 154320986.265375
  assert.equal(asNumber.json.data.currency, 'USD');
  assert.equal(asNumber.json.data.expiredOn, c.now() + 60_000);

  const asString = await client.create(newBill({ amount: '0.10' }));
  assert.match(asString.text, /"billAmount":0\.1,/);
  assert.match(asString.text, /"requireGCAmount":0\.0013,/); // 0.00125 rounded half-up

  const rq = await client.requery(asNumber.json.data.billId);
  assert.match(rq.text, /"billAmount":"12345678901\.23"/, 'status records quote billAmount');
  assert.deepEqual(
    { ...rq.json.data, requestReference: 'x' },
    {
      billId: asNumber.json.data.billId, merchantReference: asNumber.json.data.merchantReference,
      requestReference: 'x', paymentReference: '', billAmount: '12345678901.23', currency: 'USD',
      status: 1, statusName: 'Pending Payment', isFinal: false, dateTime: c.now(),
    },
  );
  assert.match(rq.json.data.requestReference, /^RQ\d+$/);
});

test('gcRate and currency options are used', async (t) => {
  const { client } = await startSandbox(t, { gcRate: '0.5', currency: 'EUR' });
  const r = await client.create(newBill({ amount: 3.33 }));
  assert.match(r.text, /"requireGCAmount":1\.665,/);
  assert.equal(r.json.data.currency, 'EUR');
});

test('invalid create requests are 1003 and create nothing', async (t) => {
  const { client } = await startSandbox(t);
  const bad: Record<string, unknown>[] = [
    { amount: 0 }, { amount: -5 }, { amount: 1.234 }, { amount: 1000000000000.01 }, { amount: '1e3' },
    { amount: 'ten' }, { amount: null }, { amount: undefined }, { amount: true },
    { callbackUrl: 'ftp://x/cb' }, { redirectUrl: 'not a url' }, { callbackUrl: undefined },
    { merchantReference: 42 },
  ];
  for (const extra of bad) {
    const r = await client.create(newBill(extra));
    assert.equal(r.status, 400, JSON.stringify(extra));
    assert.equal(r.json.code, 1003);
    assert.equal(r.json.data, null);
  }
  assert.equal((await client.create('[1]')).json.code, 1003);
  assert.equal((await client.list()).json.data.total, 0);
  assert.equal((await client.create(newBill({ amount: 1000000000000 }))).json.code, 0, '1e12 itself is allowed');
});

test('merchantReference is generated when omitted and not unique when repeated', async (t) => {
  const { client } = await startSandbox(t);
  const generated = (await client.create(newBill())).json.data;
  assert.match(generated.merchantReference, /^SBX-\d+$/);
  const a = (await client.create(newBill({ merchantReference: 'ORDER-7' }))).json.data;
  const b = (await client.create(newBill({ merchantReference: 'ORDER-7' }))).json.data;
  assert.equal(a.merchantReference, 'ORDER-7');
  assert.equal(b.merchantReference, 'ORDER-7');
  assert.notEqual(a.billId, b.billId);
  assert.match(a.billId, /^B[0-9a-f]{24}$/);
});

test('requery of an unknown bill is 1004, without billId 1003', async (t) => {
  const { client } = await startSandbox(t);
  const r = await client.requery('nope');
  assert.equal(r.status, 404);
  assert.equal(r.json.code, 1004);
  assert.equal((await client.call('GET', '/v1/bill/requery')).json.code, 1003);
});

test('cancel works only while Pending Payment; the cancel is final and called back', async (t) => {
  const receiver = await startReceiver(t);
  const c = clock();
  const { client, sandbox } = await startSandbox(t, { now: c.now });
  const a = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  c.advance(5_000);
  const delivered = callbacksUntil(sandbox, (s) => s.length === 1);
  const cancelled = await client.cancel(a.billId);
  assert.equal(cancelled.status, 200);
  assert.deepEqual(
    [cancelled.json.data.status, cancelled.json.data.statusName, cancelled.json.data.isFinal, cancelled.json.data.dateTime],
    [4, 'Cancelled', true, c.now()],
  );
  assert.equal((await delivered)[0]!.outcome, 'ok');
  assert.equal(JSON.parse(receiver.received[0]!.body).status, 4);

  const again = await client.cancel(a.billId);
  assert.equal(again.status, 409);
  assert.equal(again.json.code, 1005);

  const b = (await client.create(newBill())).json.data;
  sandbox.pay(b.billId);
  assert.equal((await client.cancel(b.billId)).json.code, 1005);
  assert.equal((await client.requery(b.billId)).json.data.status, 2);
  assert.equal((await client.cancel('unknown')).json.code, 1004);
  assert.equal((await client.call('POST', '/v1/bill/cancel', {})).json.code, 1003);
});

test('bind returns a customerId, the same one for the same email or phone', async (t) => {
  const { client } = await startSandbox(t);
  const bind = (body: unknown) => client.call<{ customerId: string }>('POST', '/v1/customer/bind', body);
  const first = await bind({ name: 'Ada', email: 'Ada@Example.com', phone: '+44 20 7946 0000' });
  assert.equal(first.json.code, 0, first.text);
  assert.match(first.json.data.customerId, /^CUS/);
  assert.equal((await bind({ name: 'Ada L.', email: 'ada@example.com' })).json.data.customerId, first.json.data.customerId);
  assert.equal((await bind({ name: 'Ada', phone: '+442079460000' })).json.data.customerId, first.json.data.customerId);
  assert.notEqual((await bind({ name: 'Bob', email: 'bob@example.com' })).json.data.customerId, first.json.data.customerId);
  for (const bad of [{ email: 'x@y.z' }, { name: 'No contact' }, { name: '', email: 'a@b.c' }, []]) {
    const r = await bind(bad);
    assert.equal(r.json.code, 1003, JSON.stringify(bad));
    assert.equal(r.status, 400);
  }
});

test('a bill still pending at expiredOn expires on read, and the callback is sent', async (t) => {
  const receiver = await startReceiver(t);
  const c = clock();
  const { client, sandbox } = await startSandbox(t, { now: c.now, billLifetimeMs: 60_000 });
  const bill = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  c.advance(59_999);
  assert.equal((await client.requery(bill.billId)).json.data.status, 1);
  c.advance(2);
  const delivered = callbacksUntil(sandbox, (s) => s.length === 1);
  const r = (await client.requery(bill.billId)).json.data;
  assert.deepEqual([r.status, r.statusName, r.isFinal, r.dateTime], [5, 'Expired', true, bill.expiredOn]);
  await delivered;
  const body = JSON.parse(receiver.received[0]!.body) as { billId: string; status: number };
  assert.deepEqual([body.billId, body.status], [bill.billId, 5]);
  assert.equal((await client.cancel(bill.billId)).json.code, 1005);
});

test('the sweep expires pending bills without any read', async (t) => {
  const receiver = await startReceiver(t);
  const c = clock();
  const { client, sandbox } = await startSandbox(t, { now: c.now, billLifetimeMs: 1000 });
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push((await client.create(newBill({ callbackUrl: receiver.url }))).json.data.billId);
  sandbox.pay(ids[0]!);
  await sandbox.idle();
  c.advance(1000);
  const delivered = callbacksUntil(sandbox, (s) => s.length === 2);
  sandbox.sweep();
  const attempts = await delivered;
  assert.deepEqual(attempts.map((a) => a.billId).sort(), [ids[1], ids[2]].sort());
  assert.equal(receiver.received.length, 3);
});

test('expire() makes a pending bill expire now', async (t) => {
  const c = clock();
  const { client, sandbox } = await startSandbox(t, { now: c.now });
  const bill = (await client.create(newBill())).json.data;
  c.advance(10);
  const rec = sandbox.expire(bill.billId);
  assert.deepEqual([rec.status, rec.dateTime], [5, c.now()]);
  assert.throws(() => sandbox.expire(bill.billId), /not Pending Payment/);
});
