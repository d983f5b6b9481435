// A bill's lifetime, judged from its own create exchange (DESIGN rule 10), over random behaviours of
// a service: its true clock offset, Date headers consistent, off, unreadable or missing, records
// dated anywhere (7 h ahead, say), round trips, lifetimes from a minute to a day. What a customer
// would notice: a bill withdrawn before its time, or a countdown that is not the bill's.
//
// One exchange cannot tell a Date header ahead by less than the bill's lifetime from a service clock
// that really is ahead (both give the same answer), so "the local clock is right, the header broken"
// covers headers that are absent, unreadable, behind by any amount, or ahead by enough to make the
// lifetime implausible (the bill would have expired within a minute of being made).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { overdue, payableFor, type ServiceTime } from '../../../../server/domain/status/expiry.js';
import type { ServiceClock } from '../../../../server/upstream/service-clock.js';
import type { CreatedBill, HttpClient } from '../../../../server/upstream/types.js';
import { recordingClient } from '../../support/upstream-client.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const GRACE = 600_000;
const MARGIN = 30_000;
const START = Date.parse('2026-11-23T12:00:00.000Z');

/** How a Date header relates to the service's clock. */
type HeaderMode = { kind: 'consistent' } | { kind: 'missing' } | { kind: 'garbage'; text: string } | { kind: 'offset'; ms: number };

const garbage = fc.constantFrom('', 'soon', 'Mon, 99 Foo 2026 25:61:61 GMT', '1700000000', 'null');
const anyHeader: fc.Arbitrary<HeaderMode> = fc.oneof(
  fc.constant<HeaderMode>({ kind: 'consistent' }),
  fc.constant<HeaderMode>({ kind: 'missing' }),
  garbage.map((text): HeaderMode => ({ kind: 'garbage', text })),
  fc.integer({ min: -400 * DAY, max: 400 * DAY }).map((ms): HeaderMode => ({ kind: 'offset', ms })),
  // Local time labelled GMT: whole hours off.
  fc.integer({ min: -14, max: 14 }).map((h): HeaderMode => ({ kind: 'offset', ms: h * HOUR })),
);

function dateHeader(mode: HeaderMode, serviceTime: number): string | null {
  switch (mode.kind) {
    case 'consistent': return new Date(serviceTime).toUTCString();
    case 'missing': return null;
    case 'garbage': return mode.text;
    case 'offset': {
      const shown = serviceTime + mode.ms;
      return Math.abs(shown) < 8.64e15 ? new Date(shown).toUTCString() : 'out of range';
    }
  }
}

/** Before the create: requeries of other bills, each answer with its Date header and its record's dateTime, our clock moving on. */
interface Requery {
  header: HeaderMode;
  rttMs: number;
  gapMs: number;
  /** The record's dateTime minus the service's time when it answered. */
  recordAheadMs: number;
}

const requery: fc.Arbitrary<Requery> = fc.record({
  header: anyHeader,
  rttMs: fc.integer({ min: 0, max: 5000 }),
  gapMs: fc.integer({ min: 0, max: 20 * 60_000 }),
  // Anywhere: in the service's past, 7 h ahead (local time labelled UTC), days off.
  recordAheadMs: fc.oneof(fc.integer({ min: -DAY, max: 2 * DAY }), fc.constant(7 * HOUR)),
});

interface World {
  /** The service's clock minus ours, ms. */
  offsetMs: number;
  history: Requery[];
  lifetimeMs: number;
  rttMs: number;
  /** Where in the round trip the service made its answer, 0 (as the request left) to 1 (as the answer arrived). */
  at: number;
  header: HeaderMode;
}

interface Planned {
  header: HeaderMode;
  rttMs: number;
  at: number;
  data: (serviceNow: number) => unknown;
}

const CREATE = { amount: '12.50', merchantReference: 'M1', callbackUrl: 'https://m.example/cb', redirectUrl: 'https://m.example/r' };

/**
 * Plays `world` through the BFF's own client of the service (its transport reads each Date header,
 * its requery checks each record, its create judges the bill), on a fresh clock. `records: false`
 * dates every record in the service's past instead. The create's bill (or why it was refused) and
 * the truth on our clock.
 */
async function play(world: World, options: { records?: boolean } = {}) {
  let local = START;
  let plan: Planned | null = null;
  const http: HttpClient = async () => {
    const p = plan!;
    const made = Math.round(p.at * p.rttMs);
    local += made;
    const serviceNow = local + world.offsetMs;
    const text = JSON.stringify({ code: 0, message: 'OK', data: p.data(serviceNow) });
    local += p.rttMs - made;
    return { status: 200, headers: { get: (name: string) => (name.toLowerCase() === 'date' ? dateHeader(p.header, serviceNow) : null) }, text: async () => text };
  };
  const contradictions: number[] = [];
  const { api } = recordingClient('http://service.invalid', { BILL_API_MAX_RPS: '1000000' }, {
    http, now: () => local, onClockContradiction: (c) => void contradictions.push(c.aheadMs),
  });
  for (const e of world.history) {
    local += e.gapMs;
    const ahead = options.records === false ? -1000 : e.recordAheadMs;
    plan = {
      header: e.header, rttMs: e.rttMs, at: 0.5,
      data: (serviceNow) => ({ billId: 'B-0', merchantReference: 'M0', billAmount: 12.5, currency: 'USD', status: 1, statusName: 'Pending', isFinal: false, dateTime: serviceNow + ahead }),
    };
    await api.requeryBill('B-0');
  }
  let expiredOn = 0;
  plan = {
    header: world.header, rttMs: world.rttMs, at: world.at,
    data: (serviceNow) => {
      expiredOn = serviceNow + world.lifetimeMs;
      return { billId: 'B-1', billUrl: 'https://pay.example/B-1', billAmount: 12.5, currency: 'USD', merchantReference: 'M1', expiredOn };
    },
  };
  let bill: CreatedBill | null = null;
  let refused: unknown = null;
  try {
    bill = await api.createBill(CREATE);
  } catch (error) {
    refused = error;
  }
  // Our clock's time at which the service's reaches expiredOn.
  const truth = expiredOn - world.offsetMs;
  return { clock: api.clock!, bill, refused, truth, receivedAt: local, contradictions };
}

function judged(played: Awaited<ReturnType<typeof play>>): CreatedBill {
  assert.ok(played.bill, `refused: ${String(played.refused)}`);
  return played.bill;
}

const worldOf = (offset: fc.Arbitrary<number>, header: fc.Arbitrary<HeaderMode>) => fc.record({
  offsetMs: offset,
  history: fc.array(requery, { maxLength: 20 }),
  lifetimeMs: fc.integer({ min: 60_000, max: DAY }),
  rttMs: fc.integer({ min: 0, max: 5000 }),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  header,
});

/** Neither withdrawn before its own expiry plus the grace, nor unpayable while its own lifetime has the margin, whatever the estimate. */
function checkDecisions(bill: { expiredOn: number; expiresLocalAt: number }, truth: number, receivedAt: number, clock: ServiceClock, poison: number) {
  const estimate = clock.offsetMs();
  for (const offset of [estimate, poison]) {
    const at = (local: number): ServiceTime => ({ now: () => local, serviceNow: () => local + offset });
    for (const local of [receivedAt, Math.round((receivedAt + truth) / 2), truth, truth + GRACE]) {
      assert.equal(overdue(bill, at(local), GRACE), false, `withdrawn ${truth + GRACE - local} ms before its expiry plus the grace (estimate ${offset})`);
    }
    if (truth - MARGIN > receivedAt) assert.equal(payableFor(bill, at(truth - MARGIN - 1), MARGIN), true, `not handed out again with ${MARGIN} ms to go (estimate ${offset})`);
  }
}

test("its own Date header consistent: never judged to expire before the truth, at most the round trip plus 1 s after; no estimate withdraws it early", async () => {
  await fc.assert(fc.asyncProperty(
    worldOf(fc.integer({ min: -12 * HOUR, max: 12 * HOUR }), fc.constant<HeaderMode>({ kind: 'consistent' })),
    fc.integer({ min: -2 * DAY, max: 2 * DAY }),
    async (world, poison) => {
      const played = await play(world);
      const bill = judged(played);
      const { clock, truth, receivedAt } = played;
      assert.equal(bill.clockDisagreed, false);
      const late = bill.expiresLocalAt - truth;
      assert.ok(late >= 0, `judged ${-late} ms before the truth: withdrawn early`);
      assert.ok(late <= world.rttMs + 1000, `judged ${late} ms after the truth (round trip ${world.rttMs} ms)`);
      // The countdown the widget shows from this bill's X-Service-Time (our clock + expiredOn − expiresLocalAt):
      // its own lifetime left, within the round trip plus 1 s of the truth.
      const countdown = bill.expiredOn - (receivedAt + (bill.expiredOn - bill.expiresLocalAt));
      assert.ok(countdown - (truth - receivedAt) === late);
      checkDecisions(bill, truth, receivedAt, clock, poison);
    },
  ), { numRuns: 500 });
});

const brokenHeader = (lifetime: number): fc.Arbitrary<HeaderMode> => fc.oneof(
  fc.constant<HeaderMode>({ kind: 'missing' }),
  garbage.map((text): HeaderMode => ({ kind: 'garbage', text })),
  // Behind, by any amount (the bill then looks longer, never shorter).
  fc.integer({ min: -400 * DAY, max: 0 }).map((ms): HeaderMode => ({ kind: 'offset', ms })),
  fc.integer({ min: -14, max: -1 }).map((h): HeaderMode => ({ kind: 'offset', ms: h * HOUR })),
  // Ahead by enough that the bill would have expired within a minute of being made (local time labelled GMT).
  fc.integer({ min: 1000, max: 2 * DAY }).map((extra): HeaderMode => ({ kind: 'offset', ms: lifetime - 59_000 + extra })),
);

test('the local clock right, its Date header broken (missing, unreadable, behind, or ahead past the bill\'s life): never judged to expire before the truth', async () => {
  await fc.assert(fc.asyncProperty(
    fc.integer({ min: 60_000, max: DAY }).chain((lifetimeMs) => worldOf(fc.constant(0), brokenHeader(lifetimeMs)).map((w) => ({ ...w, lifetimeMs }))),
    fc.integer({ min: -2 * DAY, max: 2 * DAY }),
    async (world, poison) => {
      const played = await play(world);
      const bill = judged(played);
      const { clock, truth, receivedAt } = played;
      const late = bill.expiresLocalAt - truth;
      assert.ok(late >= 0, `judged ${-late} ms before the truth: withdrawn early`);
      // A header it cannot use (absent, unreadable, ahead past the bill's life): our clock's, the truth here.
      const behind = world.header.kind === 'offset' && world.header.ms <= 0;
      if (!behind) assert.ok(late <= world.rttMs + 1000, `judged ${late} ms after the truth`);
      // A header that disagreed with the bill is said so (the create raises service_clock_disagrees);
      // one more than a day off is no clock at all, ignored as for the estimate.
      if (world.header.kind === 'offset' && world.header.ms > 0 && world.header.ms < DAY) assert.equal(bill.clockDisagreed, true);
      checkDecisions(bill, truth, receivedAt, clock, poison);
    },
  ), { numRuns: 500 });
});

test("records' dateTime are never inputs: with or without records dated ahead, the same estimate and the same judgement of every bill", async () => {
  await fc.assert(fc.asyncProperty(
    worldOf(fc.integer({ min: -12 * HOUR, max: 12 * HOUR }), anyHeader),
    async (world) => {
      const withRecords = await play(world);
      const without = await play(world, { records: false });
      assert.equal(withRecords.clock.offsetMs(), without.clock.offsetMs());
      assert.deepEqual([withRecords.bill, String(withRecords.refused)], [without.bill, String(without.refused)]);
    },
  ), { numRuns: 200 });
});

test("with consistent Date headers, a record in the service's past is never reported as a contradiction; one 7 h ahead always is", async () => {
  await fc.assert(fc.asyncProperty(
    worldOf(fc.integer({ min: -12 * HOUR, max: 12 * HOUR }), fc.constant<HeaderMode>({ kind: 'consistent' })),
    fc.integer({ min: 0, max: DAY }),
    async (world, ageMs) => {
      const past = await play({ ...world, history: world.history.map((e) => ({ ...e, header: { kind: 'consistent' }, recordAheadMs: -ageMs })) });
      assert.deepEqual(past.contradictions, []);
      const ahead = await play({ ...world, history: world.history.map((e) => ({ ...e, header: { kind: 'consistent' }, recordAheadMs: 7 * HOUR })) });
      assert.equal(ahead.contradictions.length, world.history.length);
    },
  ), { numRuns: 200 });
});
