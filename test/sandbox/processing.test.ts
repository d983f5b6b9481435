// The processingStep fault: a payment leaves a bill `processing` (status 6, not final, no callback)
// until /_control/bills/:billId/confirm pays it or decline fails it; it is neither cancellable nor
// expired meanwhile. Over real HTTP, as the BFF and the e2e suites drive it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sandboxSettingsFromEnv } from '../../sandbox/env.js';
import type { Faults } from '../../sandbox/sandbox.js';
import { callbacksUntil, control, newBill, startReceiver, startSandbox, type Rec } from './support/harness.js';

const LIFETIME_MS = 60_000;

test('processing: paid at the control route, not final nor called back; not cancellable nor expired; confirm pays it', async (t) => {
  const receiver = await startReceiver(t);
  const { client, sandbox, base } = await startSandbox(t, { billLifetimeMs: LIFETIME_MS });
  const on = await control<Faults>(base, 'PUT', '/faults', { processingStep: true });
  assert.equal(on.json.data.processingStep, true);
  const bill = (await client.create(newBill({ callbackUrl: receiver.url }))).json.data;

  const paid = await control<Rec>(base, 'POST', `/bills/${bill.billId}/pay`);
  assert.equal(paid.status, 200);
  const { now } = (await control<{ now: number }>(base, 'GET', '/clock')).json.data;
  assert.deepEqual(
    [paid.json.data.status, paid.json.data.statusName, paid.json.data.isFinal, paid.json.data.paymentReference],
    [6, 'Processing', false, ''],
  );
  assert.ok(paid.json.data.dateTime <= now && paid.json.data.dateTime > now - 10_000);
  const read = (await client.requery(bill.billId)).json.data;
  assert.deepEqual([read.status, read.isFinal, read.dateTime], [6, false, paid.json.data.dateTime]);
  await sandbox.idle();
  assert.deepEqual(sandbox.stats().callbacks, [], 'the spec calls back on final statuses only');
  // Paid already: neither paid again nor cancelled (the service refuses as for any bill not pending).
  assert.equal((await control(base, 'POST', `/bills/${bill.billId}/pay`)).json.code, 1005);
  const cancel = await client.cancel(bill.billId);
  assert.deepEqual([cancel.status, cancel.json.code], [409, 1005]);
  assert.match(cancel.json.message, /Processing/);

  // Past its expiredOn: still processing, on a read and on the sweep.
  await control(base, 'PUT', '/clock', { offsetMs: LIFETIME_MS + 1_000 });
  sandbox.sweep();
  assert.equal((await client.requery(bill.billId)).json.data.status, 6);
  assert.equal((await control(base, 'POST', `/bills/${bill.billId}/expire`)).json.code, 1005);
  const listed = (await client.list({ filters: [{ name: 'billId', value: bill.billId, matchType: 'equal' }] })).json.data.lists;
  assert.deepEqual(listed.map((r) => [r.status, r.isFinal]), [[6, false]]);

  const delivered = callbacksUntil(sandbox, (s) => s.length === 1);
  const confirmed = await control<Rec>(base, 'POST', `/bills/${bill.billId}/confirm`);
  assert.deepEqual([confirmed.json.data.status, confirmed.json.data.statusName, confirmed.json.data.isFinal], [2, 'Paid', true]);
  assert.match(confirmed.json.data.paymentReference, /^PY\d+$/);
  assert.equal((await delivered)[0]!.outcome, 'ok');
  const body = JSON.parse(receiver.received[0]!.body) as Rec;
  assert.deepEqual([body.status, body.paymentReference], [2, confirmed.json.data.paymentReference]);
  assert.deepEqual(sandbox.ledger()[0]!.history.map((h) => h.status), ['pending', 'processing', 'paid']);
  assert.equal((await control(base, 'POST', `/bills/${bill.billId}/confirm`)).json.code, 1005, 'paid: nothing to confirm');
});

test('processing: decline fails it (called back); confirm of a pending bill is refused; the pay page shows it and offers nothing to pay', async (t) => {
  const receiver = await startReceiver(t);
  const { client, sandbox, base } = await startSandbox(t, { faults: { processingStep: true } });
  const pending = (await client.create(newBill())).json.data;
  const refused = await control(base, 'POST', `/bills/${pending.billId}/confirm`);
  assert.deepEqual([refused.status, refused.json.code], [409, 1005]);
  assert.match(refused.json.message, /Pending Payment, not Processing/);

  const bill = (await client.create(newBill({ callbackUrl: receiver.url, redirectUrl: 'https://shop.test/return' }))).json.data;
  const page = await (await fetch(bill.billUrl)).text();
  const pay = /<form method="post" action="([^"]+\/pay)">/.exec(page)![1]!;
  const res = await fetch(new URL(pay, bill.billUrl), { method: 'POST', redirect: 'manual' });
  assert.equal(res.status, 303);
  assert.equal(new URL(res.headers.get('location')!).searchParams.get('status'), '6', 'back to the merchant, still processing');

  const shown = await (await fetch(bill.billUrl)).text();
  assert.match(shown, /class="state state-processing" data-field="status" role="status">Processing</);
  assert.doesNotMatch(shown, /<form|role="timer"/);
  await sandbox.idle();
  assert.equal(sandbox.stats().callbacks.length, 0);

  const delivered = callbacksUntil(sandbox, (s) => s.length === 1);
  const declined = await control<Rec>(base, 'POST', `/bills/${bill.billId}/decline`);
  assert.deepEqual([declined.json.data.status, declined.json.data.isFinal], [3, true]);
  await delivered;
  assert.equal((JSON.parse(receiver.received[0]!.body) as Rec).status, 3);
});

test('processingStep: payOnCreate pays into processing; a requery lie may say processing; cleared by DELETE and reset; SANDBOX_PROCESSING_STEP', async (t) => {
  const { client, base } = await startSandbox(t);
  await control(base, 'PUT', '/faults', { processingStep: true, payOnCreate: true });
  const bill = (await client.create(newBill())).json.data;
  assert.equal((await client.requery(bill.billId)).json.data.status, 6);

  const cleared = await control<Faults>(base, 'DELETE', '/faults');
  assert.equal(cleared.json.data.processingStep, false);
  await control(base, 'PUT', '/faults', { processingStep: true, lies: { requery: { status: 'processing' } } });
  const other = (await client.create(newBill())).json.data;
  const lied = (await client.requery(other.billId)).json.data;
  assert.deepEqual([lied.status, lied.statusName, lied.isFinal], [6, 'Processing', false]);
  assert.equal((await control(base, 'PUT', '/faults', { processingStep: 'yes' })).json.code, 1003);
  await control(base, 'POST', '/reset');
  assert.equal((await control<Faults>(base, 'GET', '/faults')).json.data.processingStep, false);

  for (const [value, on] of [['1', true], ['true', true], ['0', false], ['false', false]] as const) {
    assert.equal(sandboxSettingsFromEnv({ SANDBOX_PROCESSING_STEP: value }).options.faults?.processingStep, on, value);
  }
  assert.throws(() => sandboxSettingsFromEnv({ SANDBOX_PROCESSING_STEP: 'yes' }), /SANDBOX_PROCESSING_STEP must be true or false/);
  const dialect = sandboxSettingsFromEnv({ SANDBOX_STATUSES: 'processing=60' }).options.dialect;
  assert.deepEqual(dialect?.statuses, { processing: 60 });
});
