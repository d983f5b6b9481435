// The arithmetic of the budget's adaptive rate (budget.ts): additive increase after a window
// without refusals (by half while in slow start), multiplicative decrease on a refusal for load,
// and the bursts a rate allows. Pure: the budget keeps the state and the clock.

/** The window of the rate's changes and of the send count, ms. */
export const WINDOW_MS = 1000;

/** The tokens a rate lets go at once: `share` of a second's worth, at least 1; unlimited for an unlimited rate. */
export function burstOf(rate: number, share: number): number {
  return Number.isFinite(rate) ? Math.max(1, rate * share) : Infinity;
}

/** Tokens after `elapsedMs` at `rate`, up to `burst`. */
export function refilled(tokens: number, elapsedMs: number, rate: number, burst: number): number {
  return Math.min(burst, tokens + (elapsedMs / 1000) * rate);
}

/** How long until `tokens` reach one whole token at `rate`, ms. */
export function untilToken(tokens: number, rate: number): number {
  return Math.ceil(((1 - tokens) / rate) * 1000);
}

/** The rate after a window in which requests waited and none was refused: by half in slow start, else by a twentieth (at least 1), never past `maxRps`. */
export function raisedRate(rps: number, maxRps: number, slowStart: boolean): number {
  return Math.min(maxRps, slowStart ? rps * 1.5 : rps + Math.max(1, rps / 20));
}

/**
 * The rate after a refusal for load, from what was really sent in the last window (`sentInWindow`;
 * an unlimited budget has no rate of its own to halve): halved, or cut by a tenth when the limit
 * was set (it is known to be about right); never below `minRps`.
 */
export function loweredRate(rps: number, sentInWindow: number, minRps: number, limitSet: boolean): number {
  return Math.max(minRps, Math.min(rps, Math.max(sentInWindow, 1)) * (limitSet ? 0.9 : 0.5));
}
