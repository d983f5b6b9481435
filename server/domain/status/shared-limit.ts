// BILL_API_SHARED_MAX_RPS: the service's whole limit, divided among the instances alive on one
// PostgreSQL. Every `intervalMs` this instance marks itself alive in the store and counts the
// instances marked within `aliveMs` (itself included, in one statement: StoreEvents.instanceBeat),
// then sets its budget to the limit divided by that count. A clean stop unmarks it, so the others
// take its share at their next beat; so do they when an instance dies and its LISTEN session ends
// with it (postgres/events.ts); one whose connections linger is counted out after `aliveMs`. The
// beat is short so that a survivor takes a killed instance's share before news queues behind it;
// the window is long so that a live instance's stall (a pause, a slow database) never counts it out.
// Before the first count answers, the budget holds what the client was built with (half the limit:
// upstream/client.ts, startingShare); the app awaits the first count before it serves.

export interface SharedLimitOptions {
  /** The service's whole limit, requests per second. */
  limit: number;
  /** How often this instance marks itself alive and counts the others, ms (default 0.5 s). */
  intervalMs?: number;
  /** An instance marked within this long counts as alive, ms (default 6 s; three beats when `intervalMs` is given). */
  aliveMs?: number;
  /** Marks this instance alive and answers how many were marked within `withinMs` (StoreEvents.instanceBeat). */
  beat(withinMs: number): Promise<number>;
  /** Unmarks this instance (StoreEvents.instanceLeave). */
  leave(): Promise<void>;
  /** Gives the budget its share (Budget.setMaxRps). */
  setMaxRps(rps: number): void;
  /** A beat failed: the last share is kept. Called once per run of failures. */
  onError?(error: unknown): void;
  setInterval?: (callback: () => void, ms: number) => unknown;
  clearInterval?: (timer: unknown) => void;
}

export interface SharedLimit {
  /** The first beat (never rejects: a failure keeps the starting share). */
  first(): Promise<void>;
  /** Beats every intervalMs until stop(). */
  start(): void;
  /** Stops beating and unmarks this instance. */
  stop(): Promise<void>;
  /** The instances alive at the last beat (this one included); null before one answered. */
  live(): number | null;
}

/** With a beat given: how many it may miss before it is counted out. */
export const BEATS_ALIVE = 3;
export const DEFAULT_BEAT_MS = 500;
export const DEFAULT_ALIVE_MS = 6_000;

export function createSharedLimit(options: SharedLimitOptions): SharedLimit {
  const intervalMs = options.intervalMs ?? DEFAULT_BEAT_MS;
  const aliveMs = options.aliveMs ?? (options.intervalMs !== undefined ? BEATS_ALIVE * options.intervalMs : DEFAULT_ALIVE_MS);
  const setTimer = options.setInterval ?? ((callback: () => void, ms: number) => {
    const timer = setInterval(callback, ms);
    // The beat never keeps a process alive on its own.
    (timer as { unref?: () => void }).unref?.();
    return timer;
  });
  const clearTimer = options.clearInterval ?? ((timer: unknown) => clearInterval(timer as ReturnType<typeof setInterval>));
  let live: number | null = null;
  let failing = false;
  let stopped = false;
  let timer: unknown = null;
  let inFlight: Promise<void> | null = null;

  async function beatOnce(): Promise<void> {
    try {
      const count = Math.max(1, await options.beat(aliveMs));
      failing = false;
      if (stopped) return;
      live = count;
      options.setMaxRps(options.limit / count);
    } catch (error) {
      if (!failing) options.onError?.(error);
      failing = true;
    }
  }

  /** One beat at a time: a slow database skips beats rather than piling them up. */
  function beat(): Promise<void> {
    if (stopped) return Promise.resolve();
    inFlight ??= beatOnce().finally(() => {
      inFlight = null;
    });
    return inFlight;
  }

  return {
    first: () => (live === null ? beat() : Promise.resolve()),
    start() {
      if (stopped || timer !== null) return;
      if (live === null) void beat();
      timer = setTimer(() => void beat(), intervalMs);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer !== null) clearTimer(timer);
      timer = null;
      await inFlight;
      await options.leave().catch((error: unknown) => options.onError?.(error));
    },
    live: () => live,
  };
}
