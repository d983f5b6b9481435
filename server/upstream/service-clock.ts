// The service's clock as seen from here. The spec gives no clock endpoint, but every HTTP answer
// has a Date header (RFC 9110: the origin's clock, whole seconds). Each answer gives the offset
// (Date + 0.5 s, the middle of the second it names) − (the midpoint of our request), within
// ±(0.5 s + half the round trip); the estimate is the median of the last answers, so one slow
// answer or one odd proxy does not move it.

export interface ServiceClock {
  /** The service's time now, unix ms, as estimated (our clock until an answer has been seen). */
  now(): number;
  /** Service time minus our time, ms (0 until an answer has been seen). */
  offsetMs(): number;
  /** Our own time, unix ms: what `observe` is given its times on. */
  local(): number;
  /** Learns from one answer's Date header, given when its request was sent and its answer received (our clock). */
  observe(dateHeader: string | null, sentAt: number, receivedAt: number): void;
}

export interface ServiceClockOptions {
  now?: () => number;
  /** Answers the median is taken over (default 15). */
  samples?: number;
  /** Offsets larger than this are taken as a broken header, not a clock, ms (default one day). */
  maxOffsetMs?: number;
}

export function createServiceClock(options: ServiceClockOptions = {}): ServiceClock {
  const now = options.now ?? Date.now;
  const size = options.samples ?? 15;
  const maxOffsetMs = options.maxOffsetMs ?? 86_400_000;
  const recent: number[] = [];
  let offset = 0;
  return {
    now: () => now() + offset,
    offsetMs: () => offset,
    local: now,
    observe(dateHeader, sentAt, receivedAt) {
      if (!dateHeader) return;
      const date = Date.parse(dateHeader);
      if (Number.isNaN(date)) return;
      const sample = date + 500 - (sentAt + receivedAt) / 2;
      if (Math.abs(sample) > maxOffsetMs) return;
      recent.push(sample);
      if (recent.length > size) recent.shift();
      const sorted = [...recent].sort((a, b) => a - b);
      offset = Math.round(sorted[sorted.length >> 1]!);
    },
  };
}
