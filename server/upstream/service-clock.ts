// The service's clock as seen from here, one notion for everything that judges its time (expiry,
// the countdown's X-Service-Time). The spec gives no clock endpoint, but every HTTP answer has a
// Date header (RFC 9110: the origin's clock, whole seconds). Each answer gives the offset
// (Date + 0.5 s, the middle of the second it names) − (the midpoint of our request), within
// ±(0.5 s + half the round trip); the estimate is the median of the last answers, so one slow
// answer or one odd proxy does not move it.
//
// A Date header can be wrong while the service's bills are right (local time labelled GMT), so the
// estimate is checked against what the service's own data says of its clock: a bill it has just
// made is not past its expiry (the offset is below expiredOn − the time its answer arrived), and
// a status record's dateTime is in its past (the offset is above dateTime − the time it arrived).
// Where the header falls outside those bounds, the bills win: the local clock (or the nearest
// offset within the bounds) is used instead, and the disagreement is the caller's to raise.

export interface ServiceClock {
  /** The service's time now, unix ms, as estimated (our clock until an answer has been seen). */
  now(): number;
  /** Service time minus our time, ms: the Date headers' estimate, unless the service's bills contradict it. */
  offsetMs(): number;
  /** What the Date headers alone say (0 until an answer has been seen), ms. */
  headerOffsetMs(): number;
  /** Our own time, unix ms: what `observe` is given its times on. */
  local(): number;
  /** Learns from one answer's Date header, given when its request was sent and its answer received (our clock). */
  observe(dateHeader: string | null, sentAt: number, receivedAt: number): void;
  /** Learns from a status record's dateTime: the service's time of an update that has happened. */
  observeRecord(dateTime: number, receivedAt: number): void;
  /**
   * Judges a bill the service has just made: its expiry on our clock, or why its expiredOn cannot
   * be a bill's (not a positive ms time, seconds-sized, already past on every estimate, or more
   * than a year ahead). A valid bill's expiry bounds the estimate from then on.
   */
  judgeCreated(expiredOn: number, receivedAt: number): CreatedTiming | InvalidExpiry;
}

export interface CreatedTiming {
  valid: true;
  /** Our clock's time at which the bill expires: the time its answer arrived plus its lifetime. */
  expiresLocalAt: number;
  /** expiredOn minus the service's time when the answer arrived, ms. */
  lifetimeMs: number;
  /** The Date headers put the service's time at or past this bill's expiry: they were not used. */
  disagreed: boolean;
}

export interface InvalidExpiry {
  valid: false;
  /** What is wrong with expiredOn, for the error message. */
  reason: string;
}

export interface ServiceClockOptions {
  now?: () => number;
  /** Answers the median is taken over, and bills and records the bounds are kept over (default 15). */
  samples?: number;
  /** Offsets larger than this are taken as a broken header, not a clock, ms (default one day). */
  maxOffsetMs?: number;
}

/** A Date header is whole seconds, read across a round trip: it may be this far below a record's dateTime. */
const HEADER_SLACK_MS = 2000;
/** Before 1973-03-03 in ms, but in seconds a time near 5138: a unix time in seconds, not ms. */
const SECONDS_SIZED = 100_000_000_000;
const YEAR_MS = 366 * 86_400_000;

export function createServiceClock(options: ServiceClockOptions = {}): ServiceClock {
  const now = options.now ?? Date.now;
  const size = options.samples ?? 15;
  const maxOffsetMs = options.maxOffsetMs ?? 86_400_000;
  const headers: number[] = [];
  /** expiredOn − arrival of recent valid bills: the offset is below each. */
  const ceilings: number[] = [];
  /** dateTime − arrival of recent records: the offset is at or above each. */
  const floors: number[] = [];
  let header = 0;
  let offset = 0;

  const keep = (list: number[], value: number) => {
    list.push(value);
    if (list.length > size) list.shift();
  };

  /** The header's estimate where the bounds allow it; else the local clock, or the nearest offset they allow. */
  function decide(): void {
    const ceiling = ceilings.length ? Math.min(...ceilings) : Infinity;
    const floor = floors.length ? Math.max(...floors) - HEADER_SLACK_MS : -Infinity;
    const fits = (value: number) => value >= floor && value < ceiling;
    if (fits(header)) offset = header;
    else if (fits(0)) offset = 0;
    // The bounds themselves disagree (a record's dateTime after a fresh bill's expiry): the bills win.
    else offset = Math.min(Math.max(0, floor), ceiling - 1);
  }

  return {
    now: () => now() + offset,
    offsetMs: () => offset,
    headerOffsetMs: () => header,
    local: now,
    observe(dateHeader, sentAt, receivedAt) {
      if (!dateHeader) return;
      const date = Date.parse(dateHeader);
      if (Number.isNaN(date)) return;
      const sample = date + 500 - (sentAt + receivedAt) / 2;
      if (Math.abs(sample) > maxOffsetMs) return;
      keep(headers, sample);
      const sorted = [...headers].sort((a, b) => a - b);
      header = Math.round(sorted[sorted.length >> 1]!);
      decide();
    },
    observeRecord(dateTime, receivedAt) {
      const sample = dateTime - receivedAt;
      if (!Number.isFinite(sample) || Math.abs(sample) > maxOffsetMs) return;
      keep(floors, sample);
      decide();
    },
    judgeCreated(expiredOn, receivedAt) {
      if (!Number.isSafeInteger(expiredOn) || expiredOn <= 0) {
        return { valid: false, reason: `expiredOn ${expiredOn} is not a positive unix time in milliseconds` };
      }
      if (expiredOn < SECONDS_SIZED) {
        return { valid: false, reason: `expiredOn ${expiredOn} is a unix time in seconds, not milliseconds` };
      }
      const left = expiredOn - receivedAt;
      // Past on every estimate (the headers', the bounded one, ours): no clock makes this a bill just made.
      if (left - Math.min(header, offset, 0) <= 0) {
        return { valid: false, reason: `expiredOn ${expiredOn} is at or before the service's time` };
      }
      if (left - Math.max(header, offset, 0) > YEAR_MS) {
        return { valid: false, reason: `expiredOn ${expiredOn} is more than a year ahead` };
      }
      keep(ceilings, left);
      decide();
      const lifetimeMs = left - offset;
      return { valid: true, expiresLocalAt: receivedAt + lifetimeMs, lifetimeMs, disagreed: headers.length > 0 && left - header <= 0 };
    },
  };
}
