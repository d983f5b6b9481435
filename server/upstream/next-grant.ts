// Which waiting request the budget grants next: the most urgent of those whose operation may go
// now (then the first come); the others (a paused operation, one at its own limit) step aside, and
// say when they may go.
import { moreUrgent, type Priority } from './priority.js';

export interface Waiting {
  priority: () => Priority;
}

/**
 * `readyAt(waiter)`: when the waiter's operation may go (at most `at` when now). Returns the index
 * of the waiter to grant (-1 when none may go now) and the earliest time a waiter stepping aside
 * may go (Infinity when none).
 */
export function nextGrant<W extends Waiting>(waiters: readonly W[], at: number, readyAt: (waiter: W) => number): { index: number; wakeAt: number } {
  let index = -1;
  let best: Priority | null = null;
  let wakeAt = Infinity;
  for (let i = 0; i < waiters.length; i++) {
    const waiter = waiters[i]!;
    const until = readyAt(waiter);
    if (until > at) {
      wakeAt = Math.min(wakeAt, until);
      continue;
    }
    const priority = waiter.priority();
    if (best === null || moreUrgent(priority, best)) {
      index = i;
      best = priority;
    }
  }
  return { index, wakeAt };
}
