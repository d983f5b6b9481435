// SSE that standard clients stop on (issue 15): every status frame carries `id:` (the bill's status
// version) and the first `retry:`; a reconnect naming the final status's id is answered 204, on
// which a WHATWG EventSource (here the `eventsource` package) stops for good.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventSource } from 'eventsource';
import type { FetchLike } from 'eventsource';
import { openingFrame, statusFrame, statusStream } from '../../../../server/http/sse/streams.js';
import type { BillView } from '../../../../contract/bill-view.js';
import { startHarness } from '../../support/harness.js';

const decoder = new TextDecoder();

function view(outcome: BillView['outcome']): BillView {
  return {
    billId: 'B1', merchantReference: 'bc_ref', billUrl: 'https://pay.example/b', billAmount: '5.00', currency: 'USD',
    requireGCAmount: null, expiredOn: 0, status: outcome === 'paid' ? 2 : 1, statusName: outcome,
    isFinal: outcome !== 'pending', outcome, dateTime: 1,
  };
}

test('frames: `id:` is the status version on every status frame, `retry:` only in the first; one shared encoding per view', () => {
  const pending = view('pending');
  const frame = statusFrame(pending, 4);
  assert.equal(decoder.decode(frame), `id: 4\nevent: status\ndata: ${JSON.stringify(pending)}\n\n`);
  assert.equal(statusFrame(pending, 4), frame, 'the same bytes for every watcher');
  const opening = openingFrame(pending, 4, 3000);
  assert.equal(decoder.decode(opening), `retry: 3000\nid: 4\nevent: status\ndata: ${JSON.stringify(pending)}\n\n`);
  assert.equal(openingFrame(pending, 4, 3000), opening);

  const written: string[] = [];
  let ended = 0;
  const stream = statusStream({
    sink: { write: (chunk) => void written.push(decoder.decode(chunk)), end: (chunk) => void (chunk && written.push(decoder.decode(chunk)), ended++) },
    first: pending, firstVersion: 4, heartbeatMs: 60_000, retryMs: 1500, onEnd: () => undefined,
  });
  stream.push(view('pending'), 4); // the same version again (a repeated message): nothing
  stream.push(view('pending'), 3); // an older one arriving late: nothing
  const paid = view('paid');
  stream.push(paid, 6);
  assert.deepEqual(written.map((w) => w.split('\n').filter((l) => !l.startsWith('data: '))), [
    ['retry: 1500', 'id: 4', 'event: status', '', ''],
    ['id: 6', 'event: status', '', ''],
  ]);
  assert.equal(ended, 1, 'ended after the final frame');
});

test('an EventSource follows a bill to paid, reconnects once, is answered 204 and stays CLOSED', async (t) => {
  const h = await startHarness(t, { sseRetryMs: 20 });
  const bill = await h.create();
  const url = `${h.url}/api/bills/${bill.billId}/events?token=${bill.token}`;

  // Every connection the client makes: the Last-Event-ID it names, and what the BFF answered.
  const connections: { lastEventId: string | null; status: number }[] = [];
  const counting: FetchLike = async (input, init) => {
    const res = await fetch(input, init);
    connections.push({ lastEventId: init.headers['Last-Event-ID'] ?? null, status: res.status });
    return res;
  };
  const source = new EventSource(url, { fetch: counting });
  t.after(() => source.close());

  const statuses: { id: string; view: BillView }[] = [];
  let sawStatus!: () => void;
  let sawFinal!: () => void;
  const firstSeen = new Promise<void>((resolve) => (sawStatus = resolve));
  const finalSeen = new Promise<void>((resolve) => (sawFinal = resolve));
  source.addEventListener('status', (event) => {
    const seen = JSON.parse(event.data) as BillView;
    statuses.push({ id: event.lastEventId, view: seen });
    sawStatus();
    if (seen.isFinal) sawFinal();
  });
  const closed = new Promise<number | undefined>((resolve) => {
    source.addEventListener('error', (event) => {
      if (source.readyState === source.CLOSED) resolve(event.code);
    });
  });

  await firstSeen;
  assert.equal(statuses[0]!.view.outcome, 'pending');
  const paid = await fetch(`${h.sandboxUrl}/_control/bills/${bill.billId}/pay`, { method: 'POST' });
  assert.equal(paid.status, 200);
  await finalSeen;
  assert.equal(await closed, 204);

  assert.equal(source.readyState, 2);
  const final = statuses.at(-1)!;
  assert.equal(final.view.outcome, 'paid');
  // Pending as stored at once (and as the requery behind it found, if it came first), then paid.
  assert.deepEqual([...new Set(statuses.map((s) => s.view.outcome))], ['pending', 'paid']);
  assert.ok(Number(final.id) > Number(statuses[0]!.id), `ids grow: ${statuses.map((s) => s.id).join(', ')}`);
  assert.equal(final.id, String((await h.store.getByBillId(bill.billId))!.statusVersion));
  assert.deepEqual(connections, [
    { lastEventId: null, status: 200 },
    { lastEventId: final.id, status: 204 },
  ], 'one reconnect after the server closed, answered 204');
  await h.sandbox.idle();
});

test('a reconnect with an older id streams as usual; the final id by query (polyfills) is answered 204 too', async (t) => {
  const h = await startHarness(t);
  const bill = await h.create();
  const events = `/api/bills/${bill.billId}/events?token=${bill.token}`;
  const delivered = new Promise<void>((resolve) => {
    h.sandbox.events.addEventListener('callback', () => resolve(), { once: true });
  });
  h.sandbox.pay(bill.billId);
  await delivered;
  await h.sandbox.idle();
  const finalId = String((await h.store.getByBillId(bill.billId))!.statusVersion);

  const older = await h.request(events, { headers: { 'Last-Event-ID': String(Number(finalId) - 1) } });
  assert.equal(older.status, 200);
  const text = await older.text();
  assert.match(text, new RegExp(`^retry: 3000\\nid: ${finalId}\\nevent: status\\ndata: \\{.*"outcome":"paid"`));

  const byHeader = await h.request(events, { headers: { 'Last-Event-ID': finalId } });
  const byQuery = await h.request(`${events}&lastEventId=${finalId}`);
  for (const res of [byHeader, byQuery]) {
    assert.equal(res.status, 204);
    assert.equal(await res.text(), '');
    assert.equal(res.headers.get('cache-control'), 'no-store');
  }
  // The 204 is for the bill's holder only: a wrong token still answers 404.
  const wrong = await h.request(`/api/bills/${bill.billId}/events?token=wrong`, { headers: { 'Last-Event-ID': finalId } });
  assert.equal(wrong.status, 404);
});
