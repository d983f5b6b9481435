import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox } from '../../sandbox/sandbox.js';
import { Client, KEY, SECRET, listen, newBill, sign, startSandbox } from './support/harness.js';

test('a missing or wrong Key is refused with 1001 and creates nothing', async (t) => {
  const { client, sandbox } = await startSandbox(t);
  for (const key of [null, 'someone-else']) {
    const r = await client.create(newBill(), { key });
    assert.equal(r.status, 401);
    assert.deepEqual(r.json, { code: 1001, message: 'Unknown or missing Key', data: null });
  }
  assert.equal((await client.list()).json.data.total, 0);
  assert.equal(sandbox.stats().calls.create, 2);
});

test('a wrong Sign is refused with 1002 and creates nothing', async (t) => {
  const { client } = await startSandbox(t);
  const body = JSON.stringify(newBill());
  const wrongSecret = await client.call('POST', '/v1/bill/create', body, { secret: 'not-the-secret' });
  assert.equal(wrongSecret.status, 401);
  assert.equal(wrongSecret.json.code, 1002);
  assert.equal(wrongSecret.json.data, null);

  // Signed for another body than the one sent.
  const sent = JSON.stringify(newBill({ amount: 1000 }));
  const res = await fetch(`${client.origin}/v1/bill/create`, {
    method: 'POST',
    headers: { Key: KEY, 'Content-Type': 'application/json', Sign: sign(SECRET, 'POST', '/v1/bill/create', '', body) },
    body: sent,
  });
  assert.equal(res.status, 401);
  assert.equal(((await res.json()) as { code: number }).code, 1002);
  assert.equal((await client.list()).json.data.total, 0);
});

test('the query string is signed: requery with a Sign for another billId is refused', async (t) => {
  const { client } = await startSandbox(t);
  const bill = (await client.create(newBill())).json.data;
  const forged = await fetch(`${client.origin}/v1/bill/requery?billId=${bill.billId}`, {
    headers: { Key: KEY, Sign: sign(SECRET, 'GET', '/v1/bill/requery', 'billId=other', '') },
  });
  assert.equal(forged.status, 401);
  assert.equal((await client.requery(bill.billId)).json.code, 0);
});

test('the signature covers the mount prefix', async (t) => {
  const { client, base } = await startSandbox(t, {}, '/gateway');
  const ok = await client.create(newBill());
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.json.data.billUrl, `${base}/pay/${ok.json.data.billId}`, 'billUrl defaults to origin + mount');

  const unprefixed = await client.create(newBill(), { signedPath: '/v1/bill/create' });
  assert.equal(unprefixed.status, 401);
  assert.equal(unprefixed.json.code, 1002);

  const rq = await client.requery(ok.json.data.billId);
  assert.equal(rq.json.code, 0);
  assert.equal(rq.json.data.billId, ok.json.data.billId);
});

test('own key pair and publicUrl are honoured', async (t) => {
  const sandbox = createSandbox({ key: 'k1', secret: 's1', publicUrl: 'https://pay.example/sbx/', sweepIntervalMs: 0 });
  t.after(() => sandbox.close());
  const client = new Client(await listen(t, (req) => sandbox.app.fetch(req)), '');
  assert.equal((await client.create(newBill())).json.code, 1001);
  const r = await client.create(newBill(), { key: 'k1', secret: 's1' });
  assert.equal(r.json.code, 0, r.text);
  assert.equal(r.json.data.billUrl, `https://pay.example/sbx/pay/${r.json.data.billId}`);
});

test('a body without Content-Type application/json, or not JSON, is 1003', async (t) => {
  const { client } = await startSandbox(t);
  const body = JSON.stringify(newBill());
  for (const contentType of [null, 'text/plain', 'application/json-seq']) {
    const r = await client.call('POST', '/v1/bill/create', body, { contentType });
    assert.equal(r.status, 400, String(contentType));
    assert.equal(r.json.code, 1003);
  }
  const notJson = await client.call('POST', '/v1/bill/create', '{"amount": 1,');
  assert.equal(notJson.json.code, 1003);
  assert.equal((await client.call('POST', '/v1/bill/create', body, { contentType: 'application/json; charset=utf-8' })).json.code, 0);
});
