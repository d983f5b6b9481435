// Requests sent in the last window, counted in tenths of it: the rate a decrease starts from.
import { WINDOW_MS } from './rate-rules.js';

export interface SendWindow {
  /** One request sent at `at`. */
  count(at: number): void;
  /** Requests sent in the window ending at `at`. */
  sent(at: number): number;
}

export function createSendWindow(start: number): SendWindow {
  const slots = new Float64Array(10);
  const slotMs = WINDOW_MS / slots.length;
  let slotEpoch = Math.floor(start / slotMs);

  /** Empties the slots that fell out of the window by `at` (time never runs back here). */
  function advance(at: number): void {
    const epoch = Math.floor(at / slotMs);
    if (epoch - slotEpoch >= slots.length) slots.fill(0);
    else for (let e = slotEpoch + 1; e <= epoch; e++) slots[e % slots.length] = 0;
    if (epoch > slotEpoch) slotEpoch = epoch;
  }

  return {
    count(at) {
      advance(at);
      slots[slotEpoch % slots.length]! += 1;
    },
    sent(at) {
      advance(at);
      return slots.reduce((sum, n) => sum + n, 0);
    },
  };
}
