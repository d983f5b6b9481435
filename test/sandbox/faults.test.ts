import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SandboxError } from '../../sandbox/envelope.js';
import { parseFaults } from '../../sandbox/faults.js';
import { DEFAULT_DIALECT } from '../../sandbox/sandbox.js';
import { newBill, startReceiver, startSandbox, type Envelope } from './support/harness.js';

/** PUT /_control/faults with a JSON body; the answer's envelope. */
async function putFaults(base: string, body: unknown): Promise<{ status: number; json: Envelope }> {
  const res = await fetch(`${base}/_control/faults`, {
    method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Envelope };
}

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

test('fault lies.create: the answer states another billAmount as a raw number; the bill keeps the true one', async (t) => {
  const { client } = await startSandbox(t, { faults: { lies: { create: { billAmount: '12345678901234567890.123456789' } } } });
  const r = await client.create(newBill({ amount: '10.50' }));
  assert.equal(r.json.code, 0);
  assert.match(r.text, /"billAmount":12345678901234567890\.123456789,/, 'an unquoted number with exactly those digits');
  const rq = await client.requery(r.json.data.billId);
  assert.equal(rq.json.code, 0);
  assert.equal(rq.json.data.billAmount, '10.5', 'requery (no lie set for it) tells the truth');
});

test('fault lies.create: billId, merchantReference, currency and expiredOn lie; the real bill is elsewhere', async (t) => {
  const { client } = await startSandbox(t, {
    faults: { lies: { create: { billId: 'B-NOT-MINE', merchantReference: 'SOMEONE-ELSE', currency: 'XTS', expiredOn: 0 } } },
  });
  const r = await client.create(newBill({ merchantReference: 'TRUE-1' }));
  assert.equal(r.json.code, 0);
  const d = r.json.data;
  assert.deepEqual([d.billId, d.merchantReference, d.currency, d.expiredOn], ['B-NOT-MINE', 'SOMEONE-ELSE', 'XTS', 0]);
  assert.equal(d.billAmount, 10, 'members without a lie are true');
  assert.equal((await client.requery('B-NOT-MINE')).json.code, 1004, 'no bill has the lied id');
  const list = (await client.list()).json.data;
  assert.equal(list.total, 1);
  const real = list.lists[0]!;
  assert.deepEqual([real.merchantReference, real.currency, real.status], ['TRUE-1', 'USD', 1]);
  assert.ok(d.billUrl.endsWith(`/pay/${encodeURIComponent(real.billId)}`), 'billUrl points at the real bill');
});

test('fault lies.requery: billId, then paid with another amount; the bill stays pending', async (t) => {
  const { client, sandbox } = await startSandbox(t);
  const bill = (await client.create(newBill())).json.data;

  sandbox.setFaults({ lies: { requery: { billId: 'B-OTHER' } } });
  const other = await client.requery(bill.billId);
  assert.equal(other.json.code, 0);
  assert.deepEqual([other.json.data.billId, other.json.data.status, other.json.data.billAmount], ['B-OTHER', 1, '10']);

  sandbox.setFaults({ lies: { requery: { status: 'paid', billAmount: '999.99' } } });
  const paid = await client.requery(bill.billId);
  assert.equal(paid.json.code, 0);
  const p = paid.json.data;
  assert.deepEqual([p.billId, p.status, p.statusName, p.isFinal, p.billAmount], [bill.billId, 2, 'Paid', true, '999.99']);
  assert.match(paid.text, /"billAmount":"999\.99"/, 'quoted like the real record');
  const listed = (await client.list()).json.data.lists[0]!;
  assert.deepEqual([listed.status, listed.isFinal, listed.billAmount], [1, false, '10'], 'list does not lie');

  sandbox.resetFaults();
  const truth = (await client.requery(bill.billId)).json.data;
  assert.deepEqual([truth.billId, truth.status, truth.isFinal, truth.billAmount], [bill.billId, 1, false, '10']);
  assert.equal(sandbox.pay(bill.billId).status, 2, 'still pending, so it can be paid');
});

test('fault lies.requery: a lied status is written in the dialect, pending with isFinal false', async (t) => {
  const { client, sandbox } = await startSandbox(t, {
    dialect: {
      statuses: { pending: 10, paid: 20, failed: 30, cancelled: 40, expired: 50 },
      statusNames: { ...DEFAULT_DIALECT.statusNames, expired: 'Lapsed' },
    },
  });
  const bill = (await client.create(newBill())).json.data;
  sandbox.setFaults({ lies: { requery: { status: 'expired' } } });
  const e = (await client.requery(bill.billId)).json.data;
  assert.deepEqual([e.status, e.statusName, e.isFinal], [50, 'Lapsed', true]);
  sandbox.pay(bill.billId);
  sandbox.setFaults({ lies: { requery: { status: 'pending' } } });
  const p = (await client.requery(bill.billId)).json.data;
  assert.deepEqual([p.status, p.statusName, p.isFinal, p.paymentReference !== ''], [10, 'Pending Payment', false, true]);
});

test('fault lies.create: a 200,000-digit amount passes parseFaults and the control route and is written literally', async (t) => {
  const amount = '0.' + '0'.repeat(200_000) + '1';
  assert.equal(parseFaults({ lies: { create: { billAmount: amount } } }).lies?.create?.billAmount, amount);
  const { client, base } = await startSandbox(t);
  const put = await putFaults(base, { lies: { create: { billAmount: amount } } });
  assert.deepEqual([put.status, put.json.code], [200, 0]);
  const r = await client.create(newBill());
  assert.equal(r.json.code, 0);
  assert.ok(r.text.includes(`"billAmount":${amount},`), 'the digits are on the wire as a JSON number');
});

test('fault lies: bad members are refused with 1003 and change nothing', async (t) => {
  const { base, sandbox } = await startSandbox(t);
  const refused = async (body: unknown, path: string): Promise<void> => {
    const r = await putFaults(base, body);
    assert.deepEqual([r.status, r.json.code], [400, 1003], JSON.stringify(body).slice(0, 80));
    assert.ok(r.json.message.startsWith(`faults.${path}`), r.json.message);
  };
  await refused({ lies: { requery: { status: 'settled' } } }, 'lies.requery.status');
  await refused({ lies: { requery: { status: 2 } } }, 'lies.requery.status');
  for (const billAmount of ['ten', '1e5', '01', '1.', '.5', '+1', '', ' 1', 12]) {
    await refused({ lies: { create: { billAmount } } }, 'lies.create.billAmount');
  }
  await refused({ lies: { create: { billAmount: '1'.repeat(300_001) } } }, 'lies.create.billAmount');
  await refused({ lies: { requery: { billId: '' } } }, 'lies.requery.billId');
  await refused({ lies: { create: { currency: 'X'.repeat(201) } } }, 'lies.create.currency');
  await refused({ lies: { create: { expiredOn: -1 } } }, 'lies.create.expiredOn');
  await refused({ lies: { create: { expiredOn: 1.5 } } }, 'lies.create.expiredOn');
  await refused({ lies: { create: { status: 'paid' } } }, 'lies.create');
  await refused({ lies: { requery: { expiredOn: 1 } } }, 'lies.requery');
  await refused({ lies: { list: { billId: 'B1' } } }, 'lies');
  await refused({ cancelNoOpRate: 1.5 }, 'cancelNoOpRate');
  assert.throws(() => sandbox.setFaults({ lies: { requery: { billAmount: '1,5' } } }), SandboxError);
  assert.deepEqual([sandbox.faults().lies, sandbox.faults().cancelNoOpRate], [{}, 0]);
});

test('fault lies merge per operation; {} stops an operation\'s lies; reset clears them', async (t) => {
  const { client, base, sandbox } = await startSandbox(t);
  sandbox.setFaults({ lies: { create: { currency: 'XTS' } } });
  await putFaults(base, { lies: { requery: { status: 'failed' } } });
  assert.deepEqual(sandbox.faults().lies, { create: { currency: 'XTS' }, requery: { status: 'failed' } });
  const created = await client.create(newBill());
  assert.equal(created.json.data.currency, 'XTS');
  assert.equal((await client.requery(created.json.data.billId)).json.data.status, 3);

  sandbox.setFaults({ lies: { create: {} } });
  assert.deepEqual(sandbox.faults().lies, { create: {}, requery: { status: 'failed' } });
  assert.equal((await client.create(newBill())).json.data.currency, 'USD');
  assert.equal((await client.requery(created.json.data.billId)).json.data.status, 3);

  sandbox.resetFaults();
  assert.deepEqual(sandbox.faults().lies, {});
  assert.equal((await client.requery(created.json.data.billId)).json.data.status, 1);
  sandbox.setFaults({ lies: { create: { currency: 'XTS' } } });
  sandbox.reset();
  assert.deepEqual(sandbox.faults().lies, {});
});

test('fault cancelNoOpRate: cancel answers success, the bill stays pending and can be paid', async (t) => {
  const receiver = await startReceiver(t);
  const { client, sandbox } = await startSandbox(t, { faults: { cancelNoOpRate: 1 } });
  const real = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  const bill = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;

  const r = await client.cancel(bill.billId);
  assert.deepEqual([r.status, r.json.code, r.json.message], [200, 0, 'OK']);
  const c = r.json.data;
  assert.deepEqual([c.billId, c.status, c.statusName, c.isFinal, c.billAmount], [bill.billId, 4, 'Cancelled', true, '10']);
  assert.equal(sandbox.stats().calls.cancel, 1);
  await sandbox.idle();
  assert.equal(receiver.received.length, 0, 'no callback: nothing became final');

  const rq = (await client.requery(bill.billId)).json.data;
  assert.deepEqual([rq.status, rq.isFinal], [1, false]);
  assert.equal((await client.cancel('B-UNKNOWN')).json.code, 1004, 'refused where a real cancel is');

  sandbox.setFaults({ cancelNoOpRate: 0 });
  const done = await client.cancel(real.billId);
  assert.equal(done.json.data.status, 4);
  assert.deepEqual(Object.keys(c), Object.keys(done.json.data), 'the same record shape as a real cancel');

  assert.equal(sandbox.pay(bill.billId).status, 2);
  assert.equal((await client.requery(bill.billId)).json.data.status, 2);
  sandbox.setFaults({ cancelNoOpRate: 1 });
  const late = await client.cancel(bill.billId);
  assert.deepEqual([late.status, late.json.code], [409, 1005], 'a paid bill is not cancellable, no-op or not');
  assert.equal(sandbox.stats().calls.cancel, 4);
});
