// The hot paths: status reads from memory, JSON answers with the lean header set, SSE frames
// shared by all watchers, and applyStatus calls committed together.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { openStore } from '../../../../server/store/open-store.js';
import type { Store } from '../../../../server/store/types.js';
import type { StatusRecord } from '../../../../server/upstream/types.js';
import type { BillView } from '../../../../contract/bill-view.js';
import { nextCallback, startHarness } from '../../support/harness.js';
import { readSse } from '../../support/sse.js';

const finalRecord = (billId: string, statusName: string, dateTime: number): StatusRecord => ({
  billId, merchantReference: 'ref', requestReference: null, paymentReference: null, billAmount: '1.00',
  currency: 'USD', status: 2, statusName, isFinal: true, dateTime,
});

function countingReads(store: Store, counter: { reads: number }): Store {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key === 'getByBillId') {
        return (billId: string) => {
          counter.reads++;
          return target.getByBillId(billId);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

test('status reads: fresh reads come from memory; a status this process stores is served at once', async (t) => {
  const counter = { reads: 0 };
  const h = await startHarness(t, { wrapStore: (store) => countingReads(store, counter) });
  const bill = await h.create();
  const path = `/api/bills/${bill.billId}?token=${bill.token}`;
  assert.equal(((await (await h.request(path)).json()) as BillView).outcome, 'pending');
  const readsAfterFirst = counter.reads;
  for (let i = 0; i < 5; i++) assert.equal((await h.request(path)).status, 200);
  assert.equal(counter.reads, readsAfterFirst, 'reads within the window did not touch the store');
  assert.equal((await h.request(`/api/bills/${bill.billId}?token=wrong`)).status, 404);

  const delivered = nextCallback(h.sandbox, bill.billId);
  h.sandbox.pay(bill.billId);
  await delivered;
  const requeries = h.requeries(bill.billId);
  const after = (await (await h.request(path)).json()) as BillView;
  assert.equal(after.outcome, 'paid');
  assert.equal(h.requeries(bill.billId), requeries, 'served from what the callback stored');
  await h.sandbox.idle();
});

test('the status read of a fresh cached bill answers without a promise, as the root app and mounted with app.route()', async (t) => {
  const h = await startHarness(t);
  const bill = await h.create();
  const path = `/api/bills/${bill.billId}?token=${bill.token}`;
  await (await h.request(path)).body?.cancel(); // requeried once behind it: now fresh and cached
  await h.refreshed();
  const merchant = new Hono();
  merchant.get('/shop', (c) => c.text('shop'));
  merchant.route('/', h.app);
  const prefixed = new Hono();
  prefixed.route('/pay', h.app);
  for (const [name, app, url] of [
    ['root', h.app, path], ['app.route("/", checkout)', merchant, path], ['app.route("/pay", checkout)', prefixed, `/pay${path}`],
  ] as const) {
    const answer = app.fetch(new Request(`http://localhost${url}`));
    assert.ok(answer instanceof Response, `${name}: a Response, not a Promise`);
    assert.equal(answer.status, 200, name);
    assert.equal(((await answer.json()) as BillView).billId, bill.billId);
  }
  // Errors are still the JSON body everywhere, also from a mounted checkout.
  const wrong = await merchant.fetch(new Request(`http://localhost/api/bills/${bill.billId}?token=wrong`));
  assert.equal(wrong.status, 404);
  assert.deepEqual(await wrong.json(), { error: { code: 'not_found', message: 'No such bill.' } });
  const refused = await prefixed.fetch(new Request('http://localhost/pay/api/bills', { method: 'POST', body: 'x', headers: { 'Content-Type': 'text/plain' } }));
  assert.equal(refused.status, 415);
  assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'unsupported_media_type');
});

test('status reads: a status stored behind this process\'s back is served within one refresh window', async (t) => {
  const h = await startHarness(t, { sandbox: { faults: { callbackDropRate: 1 } } });
  const bill = await h.create();
  const path = `/api/bills/${bill.billId}?token=${bill.token}`;
  assert.equal(((await (await h.request(path)).json()) as BillView).outcome, 'pending');
  // Another instance stores the final (its hub message lost): this one's cache is not trusted past the window.
  const stored = (await h.store.getByBillId(bill.billId))!;
  await h.store.applyStatus({
    billId: bill.billId,
    record: finalRecord(bill.billId, 'Paid elsewhere', (stored.dateTime ?? 0) + 1),
    outcome: 'paid',
    checkedAt: h.clock.now(),
  }, []);
  h.clock.advance(h.config.refreshWindowMs);
  const view = (await (await h.request(path)).json()) as BillView;
  assert.equal(view.outcome, 'paid');
  assert.equal(view.statusName, 'Paid elsewhere');
});

test('JSON answers carry nosniff, no-store, CORS and X-Server-Time, not the page headers; pages keep the full set', async (t) => {
  const h = await startHarness(t, { env: { ALLOWED_ORIGINS: 'https://shop.example' } });
  const bill = await h.create();
  const res = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`, { headers: { Origin: 'https://shop.example' } });
  assert.equal(res.headers.get('content-type'), 'application/json');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.equal(res.headers.get('access-control-allow-origin'), 'https://shop.example');
  assert.equal(res.headers.get('x-server-time'), String(h.clock.now()));
  assert.equal(res.headers.get('x-frame-options'), null);
  const page = await h.request('/healthz');
  assert.equal(page.headers.get('x-frame-options'), 'SAMEORIGIN');
  assert.equal(page.headers.get('strict-transport-security'), 'max-age=15552000; includeSubDomains');
});

test('SSE: every watcher of a bill gets the same events, and each stream ends after the final one', async (t) => {
  const h = await startHarness(t);
  const bill = await h.create();
  const path = `/api/bills/${bill.billId}/events?token=${bill.token}`;
  const watchers = await Promise.all(Array.from({ length: 20 }, async () => readSse(await h.request(path))));
  for (const w of watchers) assert.equal((await w.next())?.outcome, 'pending');
  h.sandbox.pay(bill.billId);
  for (const w of watchers) {
    // A stream opened before the first requery finished also gets its (still pending) status.
    let paid = await w.next();
    while (paid?.outcome === 'pending') paid = await w.next();
    assert.equal(paid?.outcome, 'paid');
    assert.equal(paid?.isFinal, true);
    assert.equal(await w.next(), null);
  }
  assert.equal(h.internals.hub.size(), 0);
  await h.sandbox.idle();
});

test('statuses stored at once are all durable when each resolves, and one failing leaves the others stored', async (t) => {
  const h = await startHarness(t);
  const bills = await Promise.all(Array.from({ length: 12 }, (_, i) => h.create({ amount: String(i + 1) })));
  const apply = (billId: string) => h.store.applyStatus({
    billId,
    record: finalRecord(billId, 'Paid', h.clock.now()),
    outcome: 'paid',
    checkedAt: h.clock.now(),
  }, ['hook']);
  const results = await Promise.allSettled([...bills.map((b) => apply(b.billId)), apply('no-such-bill')]);
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, bills.length);
  assert.equal(results.at(-1)!.status, 'rejected');
  // Another connection sees every final and its notice.
  const other = await openStore(h.config.databaseUrl);
  t.after(() => other.close());
  for (const b of bills) assert.equal((await other.getByBillId(b.billId))?.outcome, 'paid');
  assert.equal((await other.noticesFor(bills.map((b) => b.billId))).length, bills.length);
});
