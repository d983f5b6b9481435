// The service's clock as seen from here (DESIGN rule 10: time belongs to the service, judged per
// bill). The spec gives no clock endpoint, but every HTTP answer has a Date header (RFC 9110: the
// origin's clock, whole seconds).
//
// A bill's lifetime is fixed at create from its OWN answer: the service's time when it answered lay
// in [Date, Date + 1 s), and the answer was made between our send and our receipt, so the service's
// clock minus ours was at least Date − receivedAt. Taking that lowest offset puts the bill's expiry
// on our clock (`expiresLocalAt`) at the latest time it can truly be: never early, and at most the
// round trip plus 1 s late. A Date header that makes the lifetime implausible (under a minute, over a
// year: local time labelled GMT, say) is the header's fault, not the bill's: then the local clock is
// used, else the service-wide estimate, and the disagreement is the caller's to raise.
//
// The service-wide estimate is the median of the recent answers' Date headers (the middle of the
// second each names against the middle of its request), kept below what recent bills allow (a bill
// just made is not past its expiry). Callers use it only to WIDEN a bill's life (expiry.ts), for
// answers about no bill in particular, and for bills stored before their own expiry was kept.
// Evidence ages out by time (default 10 min; the newest Date header stands while no other comes).
// A status record's dateTime is never an input: one dated after the estimate of the service's now
// contradicts it, and is reported (observeRecord, onContradiction) for an alert.

export interface ServiceClock {
  /** The service's time now, unix ms, as estimated (our clock until an answer has been seen). */
  now(): number;
  /** Service time minus our time, ms: the Date headers' estimate, unless the service's recent bills contradict it. */
  offsetMs(): number;
  /** What the recent Date headers alone say (0 until an answer has been seen), ms. */
  headerOffsetMs(): number;
  /** Our own time, unix ms: what `observe` is given its times on. */
  local(): number;
  /** Learns from one answer's Date header, given when its request was sent and its answer received (our clock). */
  observe(dateHeader: string | null, sentAt: number, receivedAt: number): void;
  /**
   * Checks a status record's dateTime (an update the service has had) against the estimate of the
   * service's time when its answer arrived. It never moves the estimate: a record dated after it by
   * more than the slack contradicts it, and is reported to the contradiction listeners too.
   */
  observeRecord(dateTime: number, receivedAt: number, billId?: string): RecordCheck;
  /** Tells `listener` of each record that contradicts the estimate (see observeRecord); returns its removal. */
  onContradiction(listener: (contradiction: ClockContradiction) => void): () => void;
  /**
   * Judges a bill the service has just made from its own create exchange (or, given only when its
   * answer arrived, from the local clock): its expiry on our clock, or why its expiredOn cannot be a
   * bill's (not a positive whole ms time, seconds-sized, under a minute after the service's time or
   * more than a year ahead by every clock). A valid bill's expiry bounds the estimate from then on.
   */
  judgeCreated(expiredOn: number, exchange: CreateExchange | number): CreatedTiming | InvalidExpiry;
}

/** The create's one exchange: its answer's Date header, and when the request left and the answer arrived (our clock). */
export interface CreateExchange {
  dateHeader: string | null;
  sentAt: number;
  receivedAt: number;
}

/**
 * Where a bill's lifetime came from: `header`, its own answer's Date header; `local`, our clock
 * (the header absent, unreadable, or making the lifetime implausible); `estimate`, the service-wide
 * estimate (neither of those gives a plausible lifetime).
 */
export type ExpirySource = 'header' | 'local' | 'estimate';

export interface CreatedTiming {
  valid: true;
  /** Our clock's time at which the bill expires, at the latest it can truly be by its source. */
  expiresLocalAt: number;
  /** expiresLocalAt minus the time the answer arrived, ms. */
  lifetimeMs: number;
  source: ExpirySource;
  /** The answer's own Date header was read but made the lifetime implausible: another source was used. */
  disagreed: boolean;
}

export interface InvalidExpiry {
  valid: false;
  /** What is wrong with expiredOn, for the error message. */
  reason: string;
}

export interface RecordCheck {
  /** The record is dated after the estimate of the service's time by more than the slack. */
  contradicts: boolean;
  /** dateTime minus the estimate of the service's time when the answer arrived, ms (negative: in its past, as it should be). */
  aheadMs: number;
}

export interface ClockContradiction {
  /** The record's dateTime, unix ms (the service's clock, by its own word). */
  dateTime: number;
  /** Our clock when its answer arrived. */
  receivedAt: number;
  /** How far dateTime is after the estimate of the service's time then, ms. */
  aheadMs: number;
  /** The bill the record is about, when the caller said. */
  billId?: string;
}

export interface ServiceClockOptions {
  now?: () => number;
  /** The most answers the median is taken over, and bills the bounds are kept over (default 15). */
  samples?: number;
  /** Evidence (Date headers, bills' bounds) older than this is dropped, ms (default 10 min). */
  maxAgeMs?: number;
  /** Offsets larger than this are taken as a broken header, not a clock, ms (default one day). */
  maxOffsetMs?: number;
  /**
   * The shortest lifetime a bill may have, ms (default MIN_BILL_LIFETIME_MS, a minute): an expiredOn
   * less than this after the service's time is no bill to hand a customer. Lower only for a sandbox
   * whose bills live seconds (demonstrations, browser tests).
   */
  minLifetimeMs?: number;
  /** A record may be dated this far after the estimate of the service's time before it contradicts it, ms (default 5 s). */
  recordSlackMs?: number;
  /** Told of each record that contradicts the estimate (as `onContradiction`). */
  onContradiction?: (contradiction: ClockContradiction) => void;
}

/** A bill's shortest plausible lifetime: one whose expiredOn is less than this ahead is no bill to hand a customer. */
export const MIN_BILL_LIFETIME_MS = 60_000;
/** A bill's longest plausible lifetime. */
export const MAX_BILL_LIFETIME_MS = 366 * 86_400_000;
/** Before 1973-03-03 in ms, but in seconds a time near 5138: a unix time in seconds, not ms. */
export const SECONDS_SIZED_MS = 100_000_000_000;

interface HeaderSample {
  /** Our clock when the answer arrived. */
  at: number;
  /** Date + 0.5 s − the middle of the request: the offset's middle estimate. */
  mid: number;
  /** How far the truth may be below `mid`: 0.5 s plus half the round trip. */
  halfWidth: number;
}

interface Bound {
  at: number;
  /** The offset is below this. */
  value: number;
}

interface Candidate {
  source: ExpirySource;
  expiresLocalAt: number;
  /** The longest lifetime the bill can have had when the service answered, by this source, ms. */
  longest: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/** The Date header as unix ms (whole seconds), or null when absent or unreadable. */
function readDate(header: string | null): number | null {
  if (!header) return null;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : date;
}

export function createServiceClock(options: ServiceClockOptions = {}): ServiceClock {
  const now = options.now ?? Date.now;
  const size = Math.max(1, options.samples ?? 15);
  const maxAgeMs = options.maxAgeMs ?? 600_000;
  const maxOffsetMs = options.maxOffsetMs ?? 86_400_000;
  const slackMs = options.recordSlackMs ?? 5_000;
  const minLifetimeMs = options.minLifetimeMs ?? MIN_BILL_LIFETIME_MS;
  const listeners = new Set<(contradiction: ClockContradiction) => void>();
  if (options.onContradiction) listeners.add(options.onContradiction);
  let headers: HeaderSample[] = [];
  /** expiredOn − the send of recent valid bills: the offset is below each. */
  let ceilings: Bound[] = [];
  let header = 0;
  let halfWidth = 0;
  let offset = 0;
  /** Our clock's time at which some evidence gets too old. */
  let staleAt = Infinity;

  const keep = <T>(list: T[], value: T) => {
    list.push(value);
    if (list.length > size) list.shift();
  };

  /** The header's estimate where the bills allow it; else the local clock, or the highest offset they allow. */
  function decide(): void {
    header = headers.length ? Math.round(median(headers.map((s) => s.mid))) : 0;
    halfWidth = headers.length ? median(headers.map((s) => s.halfWidth)) : 0;
    const ceiling = ceilings.length ? Math.min(...ceilings.map((b) => b.value)) : Infinity;
    offset = header < ceiling ? header : 0 < ceiling ? 0 : ceiling - 1;
    // The newest header stands alone while no other comes: it never makes anything stale.
    const dated = [...(headers.length > 1 ? headers : []), ...ceilings];
    staleAt = dated.length ? Math.min(...dated.map((d) => d.at)) + maxAgeMs : Infinity;
  }

  /** Drops what is older than maxAgeMs at `at` (our clock). */
  function age(at: number): void {
    if (at < staleAt) return;
    const cutoff = at - maxAgeMs;
    const fresh = headers.filter((s) => s.at >= cutoff);
    headers = fresh.length ? fresh : headers.slice(-1);
    ceilings = ceilings.filter((b) => b.at >= cutoff);
    decide();
  }

  const current = () => {
    const at = now();
    age(at);
    return at;
  };

  return {
    now: () => current() + offset,
    offsetMs() {
      current();
      return offset;
    },
    headerOffsetMs() {
      current();
      return header;
    },
    local: now,
    observe(dateHeader, sentAt, receivedAt) {
      const date = readDate(dateHeader);
      if (date === null) return;
      const mid = date + 500 - (sentAt + receivedAt) / 2;
      if (!Number.isFinite(mid) || Math.abs(mid) > maxOffsetMs) return;
      age(Math.max(receivedAt, now()));
      keep(headers, { at: receivedAt, mid, halfWidth: 500 + Math.max(0, receivedAt - sentAt) / 2 });
      decide();
    },
    observeRecord(dateTime, receivedAt, billId) {
      age(now());
      const aheadMs = dateTime - (receivedAt + offset);
      const contradicts = Number.isFinite(aheadMs) && aheadMs > slackMs;
      if (contradicts) {
        const contradiction: ClockContradiction = { dateTime, receivedAt, aheadMs, ...(billId !== undefined ? { billId } : {}) };
        for (const listener of listeners) {
          try {
            listener(contradiction);
          } catch {
            // A listener's failure is its own: the requery it was told of stands.
          }
        }
      }
      return { contradicts, aheadMs };
    },
    onContradiction(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    judgeCreated(expiredOn, exchange) {
      const { dateHeader, sentAt, receivedAt } = typeof exchange === 'number'
        ? { dateHeader: null, sentAt: exchange, receivedAt: exchange }
        : exchange;
      if (typeof expiredOn !== 'number' || !Number.isSafeInteger(expiredOn) || expiredOn <= 0) {
        return { valid: false, reason: `expiredOn ${String(expiredOn)} is not a positive whole unix time in milliseconds` };
      }
      if (expiredOn < SECONDS_SIZED_MS) {
        return { valid: false, reason: `expiredOn ${expiredOn} is a unix time in seconds, not milliseconds` };
      }
      age(Math.max(receivedAt, now()));
      const date = readDate(dateHeader);
      const headerRead = date !== null && Math.abs(date - receivedAt) <= maxOffsetMs;
      const candidates: Candidate[] = [];
      // Its own answer: the service's time then was at least Date, so the lifetime at most expiredOn − Date.
      if (headerRead) candidates.push({ source: 'header', expiresLocalAt: receivedAt + (expiredOn - date), longest: expiredOn - date });
      // Our clock taken as the service's: the answer was made at the send at the earliest.
      candidates.push({ source: 'local', expiresLocalAt: expiredOn, longest: expiredOn - sentAt });
      // The recent answers' estimate, at its lowest.
      const low = offset - halfWidth;
      candidates.push({ source: 'estimate', expiresLocalAt: Math.round(expiredOn - low), longest: expiredOn - sentAt - low });
      const chosen = candidates.find((c) => c.longest >= minLifetimeMs && c.longest <= MAX_BILL_LIFETIME_MS);
      if (!chosen) {
        // By the bill's own exchange: its Date header when read, else our clock.
        const { longest } = candidates[0]!;
        const reason = longest <= 0
          ? `expiredOn ${expiredOn} is at or before the service's time when it answered`
          : longest < minLifetimeMs
            ? `expiredOn ${expiredOn} is less than ${minLifetimeMs / 1000} s after the service's time when it answered`
            : `expiredOn ${expiredOn} is more than a year ahead`;
        return { valid: false, reason };
      }
      // The bill's own consistent exchange says where the clock is now: older bounds below it are of a clock since moved.
      if (chosen.source === 'header') ceilings = ceilings.filter((b) => b.value > date! - receivedAt);
      keep(ceilings, { at: receivedAt, value: expiredOn - sentAt });
      decide();
      return {
        valid: true,
        expiresLocalAt: chosen.expiresLocalAt,
        lifetimeMs: chosen.expiresLocalAt - receivedAt,
        source: chosen.source,
        disagreed: headerRead && chosen.source !== 'header',
      };
    },
  };
}
