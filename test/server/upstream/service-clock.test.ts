// The service's clock (DESIGN rule 10: time belongs to the service, judged per bill). A bill's
// lifetime is fixed from its own create exchange; the service-wide estimate (the Date headers of
// recent answers) is handed to the widget as X-Service-Time for answers about no bill in particular,
// and may only lengthen a bill's life. A service 90 s ahead must not give the customer 90 s that do
// not exist; a record dated 7 h ahead must not take a bill's 15 min away.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { overdue, payableFor, type ServiceTime } from '../../../server/domain/status/expiry.js';
import { BillApiResponseError } from '../../../server/upstream/errors.js';
import { createServiceClock, type ClockContradiction, type CreatedTiming } from '../../../server/upstream/service-clock.js';
import type { HttpClient } from '../../../server/upstream/types.js';
import { startHarness } from '../support/harness.js';
import { recordingClient } from '../support/upstream-client.js';

const T0 = Date.parse('2026-11-23T12:00:00.000Z');
const QUARTER = 900_000;
const SEVEN_HOURS = 25_200_000;
const gmt = (ms: number) => new Date(ms).toUTCString();

function valid(judged: ReturnType<ReturnType<typeof createServiceClock>['judgeCreated']>): CreatedTiming {
  assert.ok(judged.valid, judged.valid ? '' : judged.reason);
  return judged;
}

/** A service on a clock `offsetMs` from ours, answering at the end of each round trip; our clock is `local`. */
interface FakeService {
  local: number;
  offsetMs: number;
  rttMs: number;
  lifetimeMs: number;
  /** How far each status record's dateTime is from the service's clock. */
  recordAheadMs: number;
}

function fakeService(s: FakeService): HttpClient {
  let made = 0;
  return async (url) => {
    s.local += s.rttMs;
    const serviceNow = s.local + s.offsetMs;
    const data = url.includes('/v1/bill/create')
      ? { billId: `B-${++made}`, billUrl: 'https://pay.example/b', billAmount: 12.5, currency: 'USD', merchantReference: 'M1', expiredOn: serviceNow + s.lifetimeMs }
      : { billId: 'B-1', merchantReference: 'M1', billAmount: 12.5, currency: 'USD', status: 1, statusName: 'Pending', isFinal: false, dateTime: serviceNow + s.recordAheadMs };
    const text = JSON.stringify({ code: 0, message: 'OK', data });
    return { status: 200, headers: { get: (name: string) => (name.toLowerCase() === 'date' ? gmt(serviceNow) : null) }, text: async () => text };
  };
}

function clientOf(s: FakeService) {
  return recordingClient('http://service.invalid', { BILL_API_MAX_RPS: '100000' }, { http: fakeService(s), now: () => s.local }).api;
}

test('the estimate: the middle of the Date header\'s second against the middle of the request, the median of recent answers', () => {
  let now = T0;
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

test("a bill's lifetime is its own answer's: expiredOn against that answer's Date header, never early, at most the round trip plus 1 s late", async () => {
  // The service 20 min behind; the request takes 300 ms and the service answers as it ends, on the
  // second its Date header names.
  const service: FakeService = { local: T0, offsetMs: -1_200_300, rttMs: 300, lifetimeMs: QUARTER, recordAheadMs: 0 };
  const api = clientOf(service);
  const bill = await api.createBill(CREATE);
  const received = service.local;
  // The truth: the service reaches expiredOn a quarter of an hour after the answer.
  const truth = received + QUARTER;
  assert.ok(bill.expiresLocalAt >= truth, `judged ${bill.expiresLocalAt - truth} ms before the truth: the bill would be withdrawn early`);
  assert.ok(bill.expiresLocalAt - truth <= 1300, `judged ${bill.expiresLocalAt - truth} ms after the truth`);
  assert.equal(bill.clockDisagreed, false);
  // Answered as the request left, at the end of the second its Date header names: still never early, within the bound.
  const judged = valid(createServiceClock({ now: () => T0 }).judgeCreated(T0 - 1_200_000 + 999 + QUARTER, {
    dateHeader: gmt(T0 - 1_200_000), sentAt: T0, receivedAt: T0 + 300,
  }));
  // The service's clock was 20 min less 999 ms behind: it reaches expiredOn a quarter of an hour after T0.
  const late = judged.expiresLocalAt - (T0 + QUARTER);
  assert.ok(late >= 0 && late <= 1300, `${late} ms after the truth`);
});

test("a Date header contradicted by the bill (local time labelled GMT): the local clock gives its lifetime, the disagreement is said", () => {
  let now = T0;
  const clock = createServiceClock({ now: () => now });
  // Two hours ahead: the bill's quarter of an hour would have expired before it was made.
  clock.observe(gmt(now + 7_200_000), now, now);
  assert.ok(Math.abs(clock.offsetMs() - 7_200_000) <= 1000);
  const judged = valid(clock.judgeCreated(now + QUARTER, { dateHeader: gmt(now + 7_200_000), sentAt: now, receivedAt: now }));
  assert.deepEqual([judged.source, judged.disagreed, judged.lifetimeMs, judged.expiresLocalAt], ['local', true, QUARTER, now + QUARTER]);
  // From then on the estimate is the local clock, whatever the headers keep saying.
  clock.observe(gmt(now + 7_200_000), now, now);
  assert.equal(clock.offsetMs(), 0);
  assert.ok(Math.abs(clock.headerOffsetMs() - 7_200_000) <= 1000, 'what the headers say is kept, for the metrics');
  now += 1000;
  assert.equal(clock.now(), now);
});

test("records dated 7 h ahead (local time labelled UTC): the next bill keeps its quarter of an hour, the estimate does not move, each is reported", async () => {
  const service: FakeService = { local: T0, offsetMs: 0, rttMs: 100, lifetimeMs: QUARTER, recordAheadMs: SEVEN_HOURS };
  const told: ClockContradiction[] = [];
  const api = recordingClient('http://service.invalid', { BILL_API_MAX_RPS: '100000' }, {
    http: fakeService(service), now: () => service.local, onClockContradiction: (c) => told.push(c),
  }).api;
  // Other customers' bills, requeried in the background: every record says 7 h from now.
  for (let i = 0; i < 5; i++) {
    await api.createBill(CREATE);
    for (let j = 0; j < 4; j++) {
      service.local += 5_000;
      await api.requeryBill('B-1');
    }
  }
  // The next customer's bill: a quarter of an hour on our clock, not drawn as expired at once.
  const bill = await api.createBill(CREATE);
  const left = bill.expiresLocalAt - service.local;
  assert.ok(left >= QUARTER && left <= QUARTER + 1100, `${left} ms to pay a bill the service gives ${QUARTER} ms`);
  // And its countdown by the estimate (answers about no bill in particular) is right too.
  assert.ok(Math.abs(bill.expiredOn - api.clock!.now() - QUARTER) <= 1000, `estimate ${api.clock!.offsetMs()} ms`);
  // Each record was reported, with its bill, for an alert.
  assert.equal(told.length, 20);
  assert.equal(told[0]!.billId, 'B-1');
  assert.ok(Math.abs(told[0]!.aheadMs - SEVEN_HOURS) <= 1000);
});

test('a record in the service\'s past is no contradiction; a removed listener is not told', () => {
  const now = T0;
  const told: ClockContradiction[] = [];
  const clock = createServiceClock({ now: () => now });
  clock.observe(gmt(now), now - 100, now);
  const stop = clock.onContradiction((c) => told.push(c));
  assert.equal(clock.observeRecord(now - 5_000, now).contradicts, false);
  assert.equal(clock.observeRecord(now + 4_000, now).contradicts, false, 'within the slack');
  assert.equal(clock.observeRecord(now + SEVEN_HOURS, now, 'B-3').contradicts, true);
  assert.deepEqual(told.map((c) => c.billId), ['B-3']);
  stop();
  clock.observeRecord(now + SEVEN_HOURS, now);
  assert.equal(told.length, 1);
});

test("a Date header behind is contradicted by a record's dateTime: reported, the estimate stands", () => {
  const now = T0;
  const clock = createServiceClock({ now: () => now });
  clock.observe(gmt(now - 7_200_000), now, now);
  const estimate = clock.offsetMs();
  assert.ok(estimate < -7_000_000);
  const check = clock.observeRecord(now - 300, now);
  assert.equal(clock.offsetMs(), estimate);
  assert.equal(check.contradicts, true);
});

test('a service whose clock really is 20 min behind: headers and bills agree, and its estimate stands', () => {
  const now = T0;
  const service = now - 1_200_000;
  const clock = createServiceClock({ now: () => now });
  clock.observe(gmt(service), now, now);
  const judged = valid(clock.judgeCreated(service + QUARTER, { dateHeader: gmt(service), sentAt: now, receivedAt: now }));
  assert.equal(judged.disagreed, false);
  assert.equal(clock.observeRecord(service, now).contradicts, false);
  assert.ok(Math.abs(clock.offsetMs() + 1_200_000) <= 1000);
  // Expired by our clock, a quarter of an hour to go by the service's: the bill's.
  assert.ok(Math.abs(judged.expiresLocalAt - (now + QUARTER)) <= 1000);
  // A create answer without a Date header: our clock says it expired 5 min ago, the estimate says what is right.
  const unheaded = valid(clock.judgeCreated(service + QUARTER, now));
  assert.equal(unheaded.source, 'estimate');
  assert.ok(unheaded.expiresLocalAt >= now + QUARTER && unheaded.expiresLocalAt <= now + QUARTER + 1000);
});

test("the service's clock 20 min behind, then corrected: the very next bill's lifetime is right", async () => {
  const service: FakeService = { local: T0, offsetMs: -1_200_000, rttMs: 100, lifetimeMs: QUARTER, recordAheadMs: 0 };
  const api = clientOf(service);
  for (let i = 0; i < 3; i++) await api.requeryBill('B-1');
  const before = await api.createBill(CREATE);
  assert.ok(Math.abs(before.expiresLocalAt - service.local - QUARTER) <= 1100);
  service.offsetMs = 0;
  service.local += 5_000;
  const next = await api.createBill(CREATE);
  const left = next.expiresLocalAt - service.local;
  assert.ok(left >= QUARTER && left <= QUARTER + 1100, `${left} ms for a ${QUARTER} ms bill`);
});

test('old evidence ages out by time: fifteen answers 20 min behind, then ten minutes on, one answer corrects the estimate', () => {
  let now = T0;
  const clock = createServiceClock({ now: () => now });
  for (let i = 0; i < 15; i++) {
    now += 5_000;
    clock.observe(gmt(now - 1_200_000), now - 50, now);
  }
  assert.ok(Math.abs(clock.offsetMs() + 1_200_000) <= 1000);
  now += 600_000;
  clock.observe(gmt(now), now - 50, now);
  assert.ok(Math.abs(clock.offsetMs()) <= 1000, `estimate ${clock.offsetMs()}`);
  // Nothing newer: the newest answer stands (old, but the only evidence).
  now += 3_600_000;
  assert.ok(Math.abs(clock.offsetMs()) <= 1000);
  // A bill's bound ages out too: recent, it keeps a Date header 2 h ahead from the estimate; old, no longer.
  const later = createServiceClock({ now: () => now });
  later.observe(gmt(now + 7_200_000), now, now);
  valid(later.judgeCreated(now + QUARTER, { dateHeader: gmt(now + 7_200_000), sentAt: now, receivedAt: now }));
  assert.equal(later.offsetMs(), 0);
  now += 601_000;
  later.observe(gmt(now + 7_200_000), now, now);
  assert.ok(Math.abs(later.offsetMs() - 7_200_000) <= 1000);
});

test('an expiredOn no bill can have: not positive, in seconds, at or before the service\'s time, under a minute ahead, more than a year ahead', () => {
  const now = T0;
  const clock = createServiceClock({ now: () => now });
  const own = now;
  for (const [expiredOn, reason] of [
    [-5, /positive/], [0, /positive/], [now + 0.5, /whole/], [Math.floor(now / 1000) + 900, /seconds/], [now - 1, /at or before/],
    [now + 1000, /less than 60 s/], [now + 59_000, /less than 60 s/], [now + 400 * 86_400_000, /year/],
  ] as const) {
    const judged = clock.judgeCreated(expiredOn, own);
    assert.equal(judged.valid, false, String(expiredOn));
    if (!judged.valid) assert.match(judged.reason, reason);
  }
  // None of them moved the estimate.
  assert.equal(clock.offsetMs(), 0);
  // A minute is the shortest a bill may live, by its own Date header too.
  assert.equal(clock.judgeCreated(now + 60_000, own).valid, true);
  assert.equal(clock.judgeCreated(now + 59_000, { dateHeader: gmt(now), sentAt: now - 100, receivedAt: now }).valid, false);
});

/** A service answering every create with `expiredOn` (as JSON text) and a Date header of its clock. */
function createAnswering(expiredOn: string, other: Record<string, unknown> = {}): HttpClient {
  return async () => {
    const data = `{"billId":"B-77","billUrl":"https://pay.example/B-77","billAmount":12.5,"currency":"USD","merchantReference":"M1","expiredOn":${expiredOn}${
      Object.entries(other).map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`).join('')}}`;
    const text = `{"code":0,"message":"OK","data":${data}}`;
    return { status: 200, headers: { get: (name: string) => (name.toLowerCase() === 'date' ? gmt(Date.now()) : null) }, text: async () => text };
  };
}

const CREATE = { amount: '12.50', merchantReference: 'M1', callbackUrl: 'https://m.example/cb', redirectUrl: 'https://m.example/r' };

test('an absurd expiredOn is an invalid answer naming the bill the service made, never an unknown outcome', async () => {
  const inAQuarter = () => Date.now() + QUARTER;
  const cases: [string, string][] = [
    ['fractional', `${inAQuarter()}.5`],
    ['a quoted number', `"${inAQuarter()}"`],
    ['a string', '"tomorrow"'],
    ['negative', '-5'],
    ['zero', '0'],
    ['in seconds', String(Math.floor(Date.now() / 1000) + 900)],
    ['1 s ahead', String(Date.now() + 1000)],
    ['30 s ahead', String(Date.now() + 30_000)],
    ['more than a year ahead', String(Date.now() + 400 * 86_400_000)],
    ['null', 'null'],
  ];
  for (const [what, expiredOn] of cases) {
    const { api } = recordingClient('http://service.invalid', {}, { http: createAnswering(expiredOn) });
    await assert.rejects(api.createBill(CREATE), (error: unknown) => {
      assert.ok(error instanceof BillApiResponseError, `${what}: ${String(error)}`);
      assert.equal(error.madeBillId, 'B-77', what);
      assert.equal(error.outcomeUnknown, false, what);
      assert.equal(error.field, 'data.expiredOn', what);
      return true;
    }, what);
  }
  // Another member not as the spec says: the outcome is still unknown (settled by reference).
  const { api } = recordingClient('http://service.invalid', {}, { http: createAnswering(String(inAQuarter()), { currency: 'C'.repeat(40) }) });
  await assert.rejects(api.createBill(CREATE), (error: unknown) => error instanceof BillApiResponseError && error.outcomeUnknown && error.madeBillId === null);
  // A quarter of an hour: a bill.
  const fine = recordingClient('http://service.invalid', {}, { http: createAnswering(String(inAQuarter())) });
  const bill = await fine.api.createBill(CREATE);
  assert.ok(Math.abs(bill.expiresLocalAt - bill.expiredOn) <= 1500);
});

test('a requery whose record is dated ahead tells the client\'s hook, with the bill; the record is answered as it is', async () => {
  const told: unknown[] = [];
  const record = (dateTime: number) => JSON.stringify({
    code: 0, message: 'OK',
    data: { billId: 'B-9', merchantReference: 'M1', billAmount: 12.5, currency: 'USD', status: 1, statusName: 'Pending', isFinal: false, dateTime },
  });
  let dateTime = Date.now() + SEVEN_HOURS;
  const http: HttpClient = async () => ({
    status: 200, headers: { get: (name: string) => (name.toLowerCase() === 'date' ? gmt(Date.now()) : null) }, text: async () => record(dateTime),
  });
  const { api } = recordingClient('http://service.invalid', {}, { http, onClockContradiction: (c) => told.push(c) });
  assert.equal((await api.requeryBill('B-9')).dateTime, dateTime);
  assert.equal(told.length, 1);
  assert.equal((told[0] as ClockContradiction).billId, 'B-9');
  assert.ok((told[0] as ClockContradiction).aheadMs > SEVEN_HOURS - 5_000);
  assert.ok(Math.abs(api.clock!.offsetMs()) <= 1500, 'the estimate did not move');
  dateTime = Date.now() - 1000;
  await api.requeryBill('B-9');
  assert.equal(told.length, 1, 'a record in the past is no contradiction');
});

test("an estimate that is off never withdraws a bill early, nor makes a payable bill look unpayable: the bill's own lifetime decides first", () => {
  const now = T0;
  // A quarter of an hour as judged at create, made 5 min ago.
  const bill = { expiredOn: now + 600_000, expiresLocalAt: now + 600_000 };
  const grace = 600_000;
  for (const estimateOffset of [SEVEN_HOURS, 900_000, -1_200_000, 0]) {
    const at = (local: number): ServiceTime => ({ now: () => local, serviceNow: () => local + estimateOffset });
    // Ten minutes to go: payable, whatever the estimate says; reused, never withdrawn and made again.
    assert.equal(payableFor(bill, at(now), 30_000), true, `estimate ${estimateOffset}`);
    // Not withdrawn before its own expiry plus the grace.
    assert.equal(overdue(bill, at(now + 600_000 + grace), grace), false, `estimate ${estimateOffset}`);
  }
  // Its own expiry and the estimate past, plus the grace: withdrawn.
  assert.equal(overdue(bill, { now: () => now + 600_000 + grace + 1, serviceNow: () => now + 600_000 + grace + 1 }, grace), true);
  // An estimate behind only lengthens its life.
  assert.equal(overdue(bill, { now: () => now + 600_000 + grace + 1, serviceNow: () => now + 600_000 + grace + 1 - 1_200_000 }, grace), false);
});
