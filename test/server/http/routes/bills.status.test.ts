import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BillView } from '../../../../contract/bill-view.js';
import { nextCallback, startHarness } from '../../support/harness.js';
import { readSse } from '../../support/sse.js';

test('status reads need the bill token: a wrong or missing one answers the same 404 as an unknown bill', async (t) => {
  const h = await startHarness(t);
  const bill = await h.create();
  const ok = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
  assert.equal(ok.status, 200);
  const view = (await ok.json()) as BillView & { token?: string };
  // Answered at once from the store (the service not asked yet); the requery runs behind it.
  assert.equal(view.outcome, 'pending');
  assert.equal(view.token, undefined);
  await h.refreshed();
  assert.equal(((await (await h.request(`/api/bills/${bill.billId}?token=${bill.token}`)).json()) as BillView).status, 1);
  const bodies = [];
  for (const path of [`/api/bills/${bill.billId}?token=${bill.token.slice(0, -1)}x`, `/api/bills/${bill.billId}`, `/api/bills/nope?token=${bill.token}`,
    `/api/bills/${bill.billId}/events?token=wrong`, `/api/bills/${bill.billId}/cancel?token=wrong`]) {
    const res = await h.request(path, path.endsWith('cancel?token=wrong') ? { method: 'POST', headers: { 'Content-Type': 'application/json' } } : {});
    assert.equal(res.status, 404, path);
    bodies.push(await res.text());
  }
  assert.equal(new Set(bodies).size, 1);
  assert.equal(h.requeries(bill.billId), 1);
});

test('1,000 concurrent status reads of one bill cost at most one requery per window', async (t) => {
  const h = await startHarness(t, { env: { REFRESH_WINDOW_MS: '2000' } });
  const bill = await h.create();
  const burst = async (n: number) => {
    const answers = await Promise.all(Array.from({ length: n }, () => h.request(`/api/bills/${bill.billId}?token=${bill.token}`)));
    assert.ok(answers.every((r) => r.status === 200));
    await h.refreshed();
  };
  await burst(1000);
  assert.equal(h.requeries(bill.billId), 1);
  h.clock.advance(1500);
  await burst(200);
  assert.equal(h.requeries(bill.billId), 1);
  h.clock.advance(1000);
  await burst(200);
  assert.equal(h.requeries(bill.billId), 2);
});

for (const transport of ['node', 'web'] as const) {
  test(`SSE: the first event at once, one per change, closed after the final one (${transport} stream)`, async (t) => {
    const h = await startHarness(t, { sse: transport });
    const bill = await h.create();
    const res = await h.request(`/api/bills/${bill.billId}/events?token=${bill.token}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const sse = readSse(res);
    // What is known at once (the service not asked yet), then what the requery behind it learned.
    const first = await sse.next();
    assert.equal(first?.outcome, 'pending');
    assert.equal(first?.status, null);
    const asked = await sse.next();
    assert.equal(asked?.outcome, 'pending');
    assert.equal(asked?.status, 1);
    h.sandbox.setFaults({ callbackDuplicateRate: 1 });
    h.sandbox.pay(bill.billId);
    const second = await sse.next();
    assert.equal(second?.outcome, 'paid');
    assert.equal(second?.isFinal, true);
    assert.equal(await sse.next(), null);
    await h.sandbox.idle();
  });
}

for (const transport of ['node', 'web'] as const) {
  test(`SSE beyond MAX_SSE_CONNECTIONS answers 503 too_many_streams; a closed stream frees its place (${transport} stream)`, async (t) => {
    const h = await startHarness(t, { env: { MAX_SSE_CONNECTIONS: '1' }, sse: transport });
    const bill = await h.create();
    const path = `/api/bills/${bill.billId}/events?token=${bill.token}`;
    const one = readSse(await h.request(path));
    assert.equal((await one.next())?.outcome, 'pending');
    const refused = await h.request(path);
    assert.equal(refused.status, 503);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'too_many_streams');
    await one.cancel();
    // The server notices the disconnect on its own schedule: wait for its cleanup, not for a time.
    while (h.internals.hub.size() > 0) await new Promise((resolve) => setImmediate(resolve));
    const again = await h.request(path);
    assert.equal(again.status, 200);
    await readSse(again).cancel();
  });
}

test('SSE beyond MAX_SSE_PER_CLIENT answers that client 429 and leaves room for others', async (t) => {
  const h = await startHarness(t, {
    env: { MAX_SSE_CONNECTIONS: '10', MAX_SSE_PER_CLIENT: '2' },
    clientKey: (c) => c.req.header('x-test-client') ?? 'nobody',
  });
  const bill = await h.create();
  const path = `/api/bills/${bill.billId}/events?token=${bill.token}`;
  const open = async (client: string) => h.request(path, { headers: { 'x-test-client': client } });
  const a1 = readSse(await open('a'));
  const a2 = readSse(await open('a'));
  assert.equal((await a1.next())?.outcome, 'pending');
  assert.equal((await a2.next())?.outcome, 'pending');
  const refused = await open('a');
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get('retry-after'), '5');
  assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'too_many_streams_for_client');
  const b = readSse(await open('b'));
  assert.equal((await b.next())?.outcome, 'pending');
  await a1.cancel();
  while (h.internals.hub.size() > 2) await new Promise((resolve) => setImmediate(resolve));
  const again = await open('a');
  assert.equal(again.status, 200);
  await Promise.all([readSse(again).cancel(), a2.cancel(), b.cancel()]);
});

test('without a clientKey, MAX_SSE_PER_CLIENT does not turn into a cap on everybody', async (t) => {
  const h = await startHarness(t, { env: { MAX_SSE_PER_CLIENT: '1' } });
  const bill = await h.create();
  const path = `/api/bills/${bill.billId}/events?token=${bill.token}`;
  const streams = [readSse(await h.request(path)), readSse(await h.request(path))];
  for (const s of streams) assert.equal((await s.next())?.outcome, 'pending');
  await Promise.all(streams.map((s) => s.cancel()));
});

test('cancel works only while the bill is pending', async (t) => {
  const h = await startHarness(t);
  const bill = await h.create();
  const res = await h.request(`/api/bills/${bill.billId}/cancel?token=${bill.token}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
  assert.equal(res.status, 200);
  const view = (await res.json()) as BillView;
  assert.equal(view.outcome, 'cancelled');
  assert.equal(view.isFinal, true);
  const twice = await h.request(`/api/bills/${bill.billId}/cancel?token=${bill.token}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
  assert.equal(twice.status, 409);
  assert.equal(((await twice.json()) as { error: { code: string } }).error.code, 'not_cancellable');

  const paid = await h.create({ amount: '3' });
  const delivered = nextCallback(h.sandbox, paid.billId);
  h.sandbox.pay(paid.billId);
  await delivered;
  // Paid upstream, stored as paid by the callback: refused without asking the service.
  const calls = h.sandbox.stats().calls.cancel;
  const late = await h.request(`/api/bills/${paid.billId}/cancel?token=${paid.token}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
  assert.equal(late.status, 409);
  assert.equal(h.sandbox.stats().calls.cancel, calls);
  await h.sandbox.idle();
});

test('a cancel the service refuses (paid meanwhile) answers 409 and stores the truth', async (t) => {
  const h = await startHarness(t, { sandbox: { faults: { callbackDropRate: 1 } } });
  const bill = await h.create();
  h.sandbox.pay(bill.billId);
  await h.sandbox.idle();
  const res = await h.request(`/api/bills/${bill.billId}/cancel?token=${bill.token}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
  assert.equal(res.status, 409);
  assert.equal((await h.store.getByBillId(bill.billId))!.outcome, 'paid');
});

for (const transport of ['node', 'web'] as const) {
  test(`SSE: an idle stream carries comment heartbeats (${transport} stream)`, async (t) => {
    const h = await startHarness(t, { sseHeartbeatMs: 20, sse: transport });
    const bill = await h.create();
    const res = await h.request(`/api/bills/${bill.billId}/events?token=${bill.token}`);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes(': keep-alive\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    assert.match(text, /^retry: 3000\nid: \d+\nevent: status\n/);
    assert.ok(text.includes(': keep-alive\n\n'));
    await reader.cancel();
  });
}
