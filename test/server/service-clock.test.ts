// The service's clock, estimated from the Date headers of its answers, and handed to the widget as
// X-Service-Time: a service 90 s ahead must not give the customer 90 s that do not exist.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServiceClock } from '../../server/upstream/service-clock.js';
import { startHarness } from './support/harness.js';

test('the estimate: the middle of the Date header\'s second against the middle of the request, the median of recent answers', () => {
  let now = Date.parse('2026-11-23T12:00:00.000Z');
  const clock = createServiceClock({ now: () => now, samples: 5 });
  assert.equal(clock.offsetMs(), 0);
  // Sent at 12:00:00.000, answered at .200; the service said 12:01:30 (so 12:01:30.5 ± 0.5 s).
  clock.observe('Mon, 23 Nov 2026 12:01:30 GMT', now, now + 200);
  assert.equal(clock.offsetMs(), 90_400);
  // One slow answer through an odd proxy does not move the median.
  clock.observe('Mon, 23 Nov 2026 12:01:30 GMT', now, now + 200);
  clock.observe('Mon, 23 Nov 2026 12:05:00 GMT', now, now + 200);
  assert.equal(clock.offsetMs(), 90_400);
  now += 1000;
  assert.equal(clock.now(), now + 90_400);
  // No header, a header that is no date, or one a day off: not a clock.
  for (const header of [null, 'soon', 'Tue, 24 Nov 2026 13:00:00 GMT']) clock.observe(header, now, now);
  assert.equal(clock.offsetMs(), 90_400);
});

test('a service 90 s ahead: the BFF learns it from the answers and stamps X-Service-Time on the service\'s clock', async (t) => {
  const h = await startHarness(t, { realClock: true, sandbox: { clockOffsetMs: 90_000 } });
  const bill = await h.create();
  const res = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
  assert.equal(res.status, 200);
  const server = Number(res.headers.get('x-server-time'));
  const service = Number(res.headers.get('x-service-time'));
  // Within 2 s of the service's own clock (the Date header has whole seconds).
  assert.ok(Math.abs(service - h.sandbox.clock().now) <= 2000, `X-Service-Time ${service}, the service's clock ${h.sandbox.clock().now}`);
  assert.ok(Math.abs(service - server - 90_000) <= 2000, `offset ${service - server}`);
  // expiredOn is on the service's clock: the countdown the widget shows runs from X-Service-Time.
  const remaining = bill.expiredOn - service;
  const lifetime = bill.expiredOn - h.sandbox.clock().now;
  assert.ok(Math.abs(remaining - lifetime) <= 2000, `remaining ${remaining} ms, the service gives ${lifetime} ms`);
  // Browsers may read it (CORS).
  const preflight = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`, { headers: { Origin: h.config.allowedOrigins[0]! } });
  assert.match(preflight.headers.get('access-control-expose-headers') ?? '', /X-Service-Time/i);
  // And the metric says it.
  assert.match((await h.app.metrics.scrape()).text, /bill_checkout_service_clock_offset_seconds (89|90|91)(\.\d+)?\n/);
});

test("a Date header contradicted by the service's own bills is not believed: the bill's lifetime wins", () => {
  let now = Date.parse('2026-11-23T12:00:00.000Z');
  const clock = createServiceClock({ now: () => now });
  // Local time labelled GMT, two hours ahead.
  clock.observe(new Date(now + 7_200_000).toUTCString(), now, now);
  assert.ok(Math.abs(clock.offsetMs() - 7_200_000) <= 1000);
  const judged = clock.judgeCreated(now + 900_000, now);
  assert.ok(judged.valid);
  assert.deepEqual([judged.disagreed, judged.lifetimeMs, judged.expiresLocalAt], [true, 900_000, now + 900_000]);
  // From then on the estimate is the local clock, whatever the headers keep saying.
  clock.observe(new Date(now + 7_200_000).toUTCString(), now, now);
  assert.equal(clock.offsetMs(), 0);
  assert.ok(Math.abs(clock.headerOffsetMs() - 7_200_000) <= 1000, 'what the headers say is kept, for the metrics');
  now += 1000;
  assert.equal(clock.now(), now);
});

test("a Date header behind is contradicted by a record's dateTime (a status update the service has had)", () => {
  const now = Date.parse('2026-11-23T12:00:00.000Z');
  const clock = createServiceClock({ now: () => now });
  clock.observe(new Date(now - 7_200_000).toUTCString(), now, now);
  assert.ok(clock.offsetMs() < -7_000_000);
  clock.observeRecord(now - 300, now);
  assert.equal(clock.offsetMs(), 0);
});

test('a service whose clock really is 20 min behind: headers, bills and records agree, and its estimate stands', () => {
  const now = Date.parse('2026-11-23T12:00:00.000Z');
  const service = now - 1_200_000;
  const clock = createServiceClock({ now: () => now });
  clock.observe(new Date(service).toUTCString(), now, now);
  const judged = clock.judgeCreated(service + 900_000, now);
  assert.ok(judged.valid);
  assert.equal(judged.disagreed, false);
  clock.observeRecord(service, now);
  assert.ok(Math.abs(clock.offsetMs() + 1_200_000) <= 1000);
  // Expired by our clock, a quarter of an hour to go by the service's: the bill's.
  assert.ok(Math.abs(judged.expiresLocalAt - (now + 900_000)) <= 1000);
});

test('an expiredOn no bill can have: not positive, in seconds, already past on every clock, more than a year ahead', () => {
  const now = Date.parse('2026-11-23T12:00:00.000Z');
  const clock = createServiceClock({ now: () => now });
  for (const [expiredOn, reason] of [[-5, /positive/], [0, /positive/], [Math.floor(now / 1000) + 900, /seconds/], [now - 1, /at or before/], [now + 400 * 86_400_000, /year/]] as const) {
    const judged = clock.judgeCreated(expiredOn, now);
    assert.equal(judged.valid, false, String(expiredOn));
    if (!judged.valid) assert.match(judged.reason, reason);
  }
  // None of them moved the estimate.
  assert.equal(clock.offsetMs(), 0);
});
