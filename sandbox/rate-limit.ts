// The `rateLimit` fault's counter. Fixed windows, not a sliding one: each whole second of the
// sandbox's clock (Math.floor(now / 1000)) is a window, and an operation's count starts again at
// 0 in the next one. Every request received counts, refused ones included, as a real service's
// gateway counts them; with fixed windows a refusal uses up nothing beyond its own second.
// Counting goes on while no limit is set, so a limit set mid-second sees that second's requests.
import type { Op } from './types.js';

interface Window {
  second: number;
  count: number;
}

export class RateLimiter {
  readonly #windows = new Map<Op, Window>();

  constructor(private readonly now: () => number) {}

  /** Counts one request of `op`; true when it is beyond `limit` (0 or undefined: no limit) in this second. */
  refuse(op: Op, limit: number | undefined): boolean {
    const second = Math.floor(this.now() / 1000);
    let w = this.#windows.get(op);
    if (!w || w.second !== second) {
      w = { second, count: 0 };
      this.#windows.set(op, w);
    }
    w.count++;
    return limit !== undefined && limit > 0 && w.count > limit;
  }

  clear(): void {
    this.#windows.clear();
  }
}
