// Callbacks before the create's answer (payOnCreate, createAnswerAfterCallback) and the
// callbackRetryDelayMs fault.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callbacksUntil, newBill, startReceiver, startSandbox, type Client } from './support/harness.js';

/** Lists until the bill of `merchantReference` is in the book (a held create has made it). */
async function billOf(client: Client, merchantReference: string): Promise<string> {
  for (;;) {
    const found = await client.list({ filters: [{ name: 'merchantReference', value: merchantReference, matchType: 'equal' }] });
    const record = found.json.data.lists[0];
    if (record) return record.billId;
  }
}

test('payOnCreate: the bill is paid at once and called back, with retries', async (t) => {
  const receiver = await startReceiver(t, (n) => (n < 3 ? 500 : 200));
  const { client, sandbox } = await startSandbox(t, { faults: { payOnCreate: true } });
  const three = callbacksUntil(sandbox, (s) => s.length === 3);
  const created = await client.create(newBill({ callbackUrl: receiver.url }));
  assert.deepEqual([created.status, created.json.code], [200, 0]);
  const bill = created.json.data;
  assert.ok(bill.billUrl.endsWith(`/pay/${bill.billId}`));

  const paid = (await client.requery(bill.billId)).json.data;
  assert.deepEqual([paid.status, paid.statusName, paid.isFinal], [2, 'Paid', true]);
  assert.match(paid.paymentReference, /^PY\d{12}$/);
  assert.deepEqual((await three).map((a) => [a.billId, a.attempt, a.httpStatus]), [[bill.billId, 1, 500], [bill.billId, 2, 500], [bill.billId, 3, 200]]);
  assert.deepEqual(JSON.parse(receiver.received[2]!.body), paid);
  const cancel = await client.cancel(bill.billId);
  assert.deepEqual([cancel.status, cancel.json.code], [409, 1005]);
});

test('createAnswerAfterCallback: the callback is delivered before the create is answered', async (t) => {
  const receiver = await startReceiver(t);
  // The delay would let an answer that does not wait arrive well before the callback.
  const { client, sandbox } = await startSandbox(t, { faults: { payOnCreate: true, createAnswerAfterCallback: true, callbackDelayMs: [200, 200] } });
  const created = await client.create(newBill({ callbackUrl: receiver.url }));
  assert.equal(created.json.code, 0);
  assert.equal(receiver.received.length, 1, 'the receiver had the callback when the answer came');
  assert.equal((JSON.parse(receiver.received[0]!.body) as { billId: string }).billId, created.json.data.billId);
  assert.deepEqual(sandbox.stats().callbacks.map((a) => a.outcome), ['ok']);
});

test('createAnswerAfterCallback: the answer waits for every attempt to fail, for both copies, or for a drop', async (t) => {
  const receiver = await startReceiver(t, () => 500);
  const { client, sandbox } = await startSandbox(t, { faults: { payOnCreate: true, createAnswerAfterCallback: true } });
  const failing = await client.create(newBill({ callbackUrl: receiver.url }));
  assert.equal(failing.json.code, 0);
  assert.deepEqual(sandbox.stats().callbacks.map((a) => a.attempt), [1, 2, 3, 4, 5, 6], 'all six attempts before the answer');
  assert.equal(receiver.received.length, 6);

  const ok = await startReceiver(t);
  sandbox.setFaults({ callbackDuplicateRate: 1, callbackDelayMs: [0, 100] });
  const twice = await client.create(newBill({ callbackUrl: ok.url }));
  assert.equal(twice.json.code, 0);
  assert.equal(ok.received.length, 2, 'both copies delivered before the answer');

  sandbox.setFaults({ callbackDuplicateRate: 0, callbackDropRate: 1, callbackDelayMs: [200, 200] });
  const dropped = await client.create(newBill({ callbackUrl: ok.url }));
  assert.equal(dropped.json.code, 0);
  assert.deepEqual(sandbox.stats().callbacks.at(-1), {
    billId: dropped.json.data.billId, url: ok.url, attempt: 1, outcome: 'dropped', httpStatus: null, at: sandbox.stats().callbacks.at(-1)!.at,
  });
  assert.equal(ok.received.length, 2);
});

test('createAnswerAfterCallback without payOnCreate: a bill paid while the answer is held releases it', async (t) => {
  const receiver = await startReceiver(t);
  const { client, sandbox } = await startSandbox(t, { faults: { createAnswerAfterCallback: true, hangMs: 600_000 } });
  const answer = client.create(newBill({ merchantReference: 'HELD-1', callbackUrl: receiver.url }));
  const billId = await billOf(client, 'HELD-1');
  let answered = false;
  void answer.then(() => (answered = true));
  await client.requery(billId);
  assert.equal(answered, false, 'held while the bill is pending');
  sandbox.pay(billId);
  const created = await answer;
  assert.deepEqual([created.status, created.json.data.billId], [200, billId]);
  assert.equal(receiver.received.length, 1);
});

test('createAnswerAfterCallback: the hold ends after hangMs when no callback comes; answered as usual', async (t) => {
  const { client } = await startSandbox(t, { faults: { createAnswerAfterCallback: true, hangMs: 150 } });
  const start = performance.now();
  const created = await client.create(newBill());
  const took = performance.now() - start;
  assert.deepEqual([created.status, created.json.code], [200, 0]);
  assert.ok(took >= 145, `answered after ${took} ms`);
  assert.equal((await client.requery(created.json.data.billId)).json.data.status, 1);
});

for (const stop of ['reset', 'close'] as const) {
  test(`createAnswerAfterCallback: ${stop}() releases a held answer`, { timeout: 10_000 }, async (t) => {
    const { client, sandbox } = await startSandbox(t, { faults: { createAnswerAfterCallback: true, hangMs: 600_000 } });
    const answer = client.create(newBill({ merchantReference: `HELD-${stop}` }));
    const billId = await billOf(client, `HELD-${stop}`);
    let answered = false;
    void answer.then(() => (answered = true));
    await client.list();
    assert.equal(answered, false, 'held');
    sandbox[stop]();
    const created = await answer;
    assert.deepEqual([created.status, created.json.code, created.json.data.billId], [200, 0, billId]);
  });
}

test('fault callbackRetryDelayMs overrides the option: 0 retries at once', { timeout: 10_000 }, async (t) => {
  const receiver = await startReceiver(t, () => 503);
  const { client, sandbox } = await startSandbox(t, { callbackRetryDelayMs: 600_000, faults: { callbackRetryDelayMs: 0 } });
  const bill = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
  sandbox.pay(bill.billId);
  await sandbox.idle();
  assert.deepEqual(sandbox.stats().callbacks.map((a) => a.attempt), [1, 2, 3, 4, 5, 6]);
});

test('fault callbackRetryDelayMs: a longer delay than the option\'s; null goes back to the option', async (t) => {
  const receiver = await startReceiver(t, (n) => (n % 2 === 1 ? 500 : 200));
  const { client, base, sandbox } = await startSandbox(t, { callbackRetryDelayMs: 1, faults: { callbackRetryDelayMs: 150 } });
  const gap = async (): Promise<number> => {
    const bill = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;
    const times: number[] = [];
    const on = (): number => times.push(performance.now());
    sandbox.events.addEventListener('callback', on);
    sandbox.pay(bill.billId);
    await sandbox.idle();
    sandbox.events.removeEventListener('callback', on);
    assert.equal(times.length, 2);
    return times[1]! - times[0]!;
  };
  const slow = await gap();
  assert.ok(slow >= 140, `retry after ${slow} ms`);

  const put = await fetch(`${base}/_control/faults`, {
    method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ callbackRetryDelayMs: null }),
  });
  assert.equal(put.status, 200);
  await put.body?.cancel();
  assert.equal(sandbox.faults().callbackRetryDelayMs, null);
  const fast = await gap();
  assert.ok(fast < 140, `retry after ${fast} ms`);
});
