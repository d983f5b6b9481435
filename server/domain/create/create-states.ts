// The states of one create attempt (one stored bill row, one merchantReference) and their moves
// (DESIGN rule 3). Every attempt ends: made, surely not made, or orphaned (docs/server.md, "A create always
// ends").
//
//   asked ──answer──────────────────────────► made
//     │ ──4xx, 401, 429, 503, nothing sent──► not_made          (the key is free again)
//     │ ──reset, timeout, 5xx, unreadable───► unknown
//     │ ──an answer naming an unusable bill─► orphaned           (withdrawn)
//   unknown ──settling lists our reference──► orphaned (each bill found, withdrawn) + not_made
//           ──settling found nothing───────► not_made
//           ──settling failed past the bound► not_made, alert    (a late callback still finds it)
//   orphaned ──cancel accepted, or final────► ended at the service (paid: duplicatePayment, alert)
import type { StoredBill } from '../../store/types.js';

export type CreatePhase = 'asked' | 'made' | 'not_made' | 'unknown' | 'orphaned';

/** Where each phase may go next; `made`, `not_made` and `orphaned` are ends of the attempt. */
export const CREATE_MOVES: Readonly<Record<CreatePhase, readonly CreatePhase[]>> = {
  asked: ['made', 'not_made', 'unknown', 'orphaned'],
  unknown: ['orphaned', 'not_made'],
  made: [],
  not_made: ['orphaned'],
  orphaned: [],
};

/**
 * The phase of a stored attempt. `unknownAfterMs`: a create still `creating` this long after it was
 * asked can no longer be answered (two timeouts): its outcome is unknown, and it is settled.
 */
export function createPhase(
  bill: Pick<StoredBill, 'createState' | 'orphanedAt' | 'createdAt'>, now: number, unknownAfterMs: number,
): CreatePhase {
  if (bill.createState === 'created') return bill.orphanedAt === null ? 'made' : 'orphaned';
  if (bill.createState === 'failed') return 'not_made';
  return now - bill.createdAt >= unknownAfterMs ? 'unknown' : 'asked';
}

/**
 * Settling an unknown create stops after this long (then the attempt is released with an alert):
 * by then any bill the service made under it has expired there, so releasing the order cannot leave
 * it two payable bills. `longestLifetimeMs`: the longest bill lifetime seen, or null before any.
 */
export function settleLimitMs(longestLifetimeMs: number | null, graceMs: number, fallbackMs: number): number {
  return (longestLifetimeMs ?? fallbackMs) + graceMs;
}
