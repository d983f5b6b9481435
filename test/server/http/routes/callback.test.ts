import assert from 'node:assert/strict';
import { test } from 'node:test';
import { returnToken } from '../../../../server/domain/create/hook-urls.js';
import type { Store } from '../../../../server/store/types.js';
import type { BillView } from '../../../../contract/bill-view.js';
import { nextCallback, STARTED_HERE, startHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const json = { 'Content-Type': 'application/json' };

async function hookPaths(h: Harness, billId: string) {
  const stored = (await h.store.getByBillId(billId))!;
  return {
    callback: `/api/hooks/callback/${stored.merchantReference}/${stored.hookToken}`,
    return: `/api/hooks/return/${stored.merchantReference}/${await returnToken(stored.hookToken)}`,
    forgedCallback: `/api/hooks/callback/${stored.merchantReference}/${'A'.repeat(43)}`,
    forgedReturn: `/api/hooks/return/${stored.merchantReference}/${'A'.repeat(43)}`,
  };
}

const paidBody = (billId: string, ref: string) => JSON.stringify({
  billId, merchantReference: ref, requestReference: 'RQ1', paymentReference: 'PY1', billAmount: '12.5',
  currency: 'USD', status: 2, statusName: 'Paid', isFinal: true, dateTime: Date.now(),
});

test('a forged callback body saying paid leaves the bill pending', async (t) => {
  const h = await startHarness(t);
  const bill = await h.create();
  const paths = await hookPaths(h, bill.billId);
  const res = await h.request(paths.callback, { method: 'POST', headers: json, body: paidBody(bill.billId, bill.merchantReference) });
  assert.equal(res.status, 200);
  assert.equal(h.requeries(bill.billId), 1);
  const stored = (await h.store.getByBillId(bill.billId))!;
  assert.equal(stored.outcome, 'pending');
  assert.equal(stored.status, 1);
});

test('a wrong-token or unknown callback answers 404 and costs zero requery; a body naming another bill 400', async (t) => {
  const h = await startHarness(t);
  const bill = await h.create();
  const paths = await hookPaths(h, bill.billId);
  const forged = await h.request(paths.forgedCallback, { method: 'POST', headers: json, body: paidBody(bill.billId, bill.merchantReference) });
  assert.equal(forged.status, 404);
  const unknown = await h.request(`/api/hooks/callback/bc_nope/${'A'.repeat(43)}`, { method: 'POST', headers: json, body: '{}' });
  assert.equal(unknown.status, 404);
  const other = await h.request(paths.callback, { method: 'POST', headers: json, body: paidBody('B-other', bill.merchantReference) });
  assert.equal(other.status, 400);
  assert.equal(h.requeries(bill.billId), 0);
  assert.equal((await h.store.getByBillId(bill.billId))!.outcome, 'pending');
});

test('a forged redirect changes nothing; a real return requeries and lands on RETURN_URL with the outcome', async (t) => {
  const h = await startHarness(t, { env: { RETURN_URL: 'https://shop.example/thanks?from=checkout' } });
  const bill = await h.create();
  const paths = await hookPaths(h, bill.billId);
  const forged = await h.request(`${paths.forgedReturn}?billId=${bill.billId}&status=2`);
  assert.equal(forged.status, 404);
  assert.equal(h.requeries(bill.billId), 0);
  const lying = await h.request(`${paths.return}?billId=${bill.billId}&merchantReference=${bill.merchantReference}&status=2`, { headers: STARTED_HERE });
  assert.equal(lying.status, 303);
  const to = new URL(lying.headers.get('location')!);
  assert.equal(to.origin + to.pathname, 'https://shop.example/thanks');
  assert.equal(to.searchParams.get('from'), 'checkout');
  assert.equal(to.searchParams.get('billId'), bill.billId);
  assert.equal(to.searchParams.get('outcome'), 'pending');
  assert.equal((await h.store.getByBillId(bill.billId))!.outcome, 'pending');

  h.sandbox.setFaults({ callbackDropRate: 1 });
  h.sandbox.pay(bill.billId);
  // The return asks the service at most once per refresh window, however often it is opened.
  h.clock.advance(h.config.refreshWindowMs);
  const real = await h.request(`${paths.return}?billId=${bill.billId}&status=2`, { headers: STARTED_HERE });
  assert.equal(new URL(real.headers.get('location')!).searchParams.get('outcome'), 'paid');
  assert.equal(h.requeries(bill.billId), 2);
  await h.sandbox.idle();
});

test('three duplicate callbacks give one merchant notice', async (t) => {
  const notices: BillView[] = [];
  const h = await startHarness(t, { hooks: { onFinal: (view) => void notices.push(view) } });
  const bill = await h.create();
  const paths = await hookPaths(h, bill.billId);
  h.sandbox.setFaults({ callbackDuplicateRate: 1 });
  h.sandbox.pay(bill.billId);
  await h.sandbox.idle();
  const third = await h.request(paths.callback, { method: 'POST', headers: json, body: paidBody(bill.billId, bill.merchantReference) });
  assert.equal(third.status, 200);
  const delivered = h.sandbox.stats().callbacks.filter((c) => c.billId === bill.billId && c.outcome === 'ok');
  assert.equal(delivered.length, 2);
  await h.internals.noticeWorker.runOnce();
  await h.internals.noticeWorker.runOnce();
  assert.equal(notices.length, 1);
  assert.equal(notices[0]!.outcome, 'paid');
  assert.equal(notices[0]!.billId, bill.billId);
  // A final status is never requeried again.
  assert.equal(h.requeries(bill.billId), 1);
});

test('when storing fails the callback answers non-200, and the service\'s retry is stored', async (t) => {
  let failing = true;
  const h = await startHarness(t, {
    wrapStore: (store) => new Proxy(store, {
      get(target, prop: keyof Store) {
        if (prop === 'applyStatus' && failing) return async () => { throw new Error('disk full'); };
        const value = target[prop];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }),
  });
  const bill = await h.create();
  const refused = nextCallback(h.sandbox, bill.billId, 'non-200');
  h.sandbox.pay(bill.billId);
  await refused;
  assert.equal((await h.store.getByBillId(bill.billId))!.outcome, 'pending');
  failing = false;
  await nextCallback(h.sandbox, bill.billId, 'ok');
  assert.equal((await h.store.getByBillId(bill.billId))!.outcome, 'paid');
  await h.sandbox.idle();
});

test('all callbacks dropped: the reconciler still finds the payment', async (t) => {
  const notices: BillView[] = [];
  const h = await startHarness(t, {
    env: { RECONCILE_INTERVAL_MS: '30000' },
    sandbox: { faults: { callbackDropRate: 1 } },
    hooks: { onFinal: (view) => void notices.push(view) },
  });
  const bill = await h.create();
  const other = await h.create({ amount: '8' });
  h.sandbox.pay(bill.billId);
  await h.sandbox.idle();
  assert.ok(h.sandbox.stats().callbacks.every((c) => c.outcome === 'dropped'));
  assert.equal((await h.store.getByBillId(bill.billId))!.outcome, 'pending');
  h.clock.advance(30_001);
  const pass = await h.internals.reconciler.runOnce();
  assert.equal(pass.requeried, 2);
  assert.equal((await h.store.getByBillId(bill.billId))!.outcome, 'paid');
  assert.equal((await h.store.getByBillId(other.billId))!.outcome, 'pending');
  // Just checked: the next pass leaves both alone.
  assert.equal((await h.internals.reconciler.runOnce()).requeried, 0);
  await h.internals.noticeWorker.runOnce();
  assert.deepEqual(notices.map((n) => n.billId), [bill.billId]);
});

test('the token a customer sees in their redirect does not open the callback route', async (t) => {
  const h = await startHarness(t);
  const bill = await h.create({ amount: '7' });
  const paths = await hookPaths(h, bill.billId);
  const seenByCustomer = paths.return.split('/').pop()!;
  const stored = (await h.store.getByBillId(bill.billId))!;
  assert.notEqual(seenByCustomer, stored.hookToken);
  const before = h.requeries(bill.billId);
  const res = await h.request(`/api/hooks/callback/${stored.merchantReference}/${seenByCustomer}`, {
    method: 'POST', headers: json, body: paidBody(bill.billId, stored.merchantReference),
  });
  assert.equal(res.status, 404);
  assert.equal(h.requeries(bill.billId), before, 'no requery');
  // The return URL the service is given is the one the customer follows back.
  const back = await h.request(paths.return, { redirect: 'manual', headers: STARTED_HERE });
  assert.equal(back.status, 303);
});
