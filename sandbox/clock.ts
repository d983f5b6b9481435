// The sandbox's clock: the true time (options.now, or Date.now) plus an offset, so the sandbox can
// play a service whose clock runs ahead of or behind the BFF's. Everything the sandbox times reads
// `now` from here: expiredOn, dateTime, expiry, callback attempts, rate-limit windows and the
// `Date` header of every answer.
import { z } from 'zod';
import { Code, SandboxError } from './envelope.js';

/** ±10 years: enough for any skew worth playing, and a Date stays valid. */
export const MAX_CLOCK_OFFSET_MS = 10 * 366 * 86_400_000;

const offsetMs = z.number().int().min(-MAX_CLOCK_OFFSET_MS).max(MAX_CLOCK_OFFSET_MS);
const clockPatch = z.strictObject({ offsetMs });

function refuse(issue: z.ZodError['issues'][number], prefix: string): never {
  const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
  throw new SandboxError(Code.invalidRequest, `${path}: ${issue.message}`);
}

/** Validates an offset given in-process; throws 1003 when it is not a whole number of ms in range. */
export function parseClockOffset(input: unknown): number {
  const r = offsetMs.safeParse(input);
  if (!r.success) refuse(r.error.issues[0]!, 'clock.offsetMs');
  return r.data;
}

/** Validates the body of PUT /_control/clock, `{"offsetMs": n}`; throws 1003 when malformed. */
export function parseClockPatch(input: unknown): number {
  const r = clockPatch.safeParse(input);
  if (!r.success) refuse(r.error.issues[0]!, 'clock');
  return r.data.offsetMs;
}

export class SandboxClock {
  /** How far the sandbox's clock runs ahead of the true time (negative: behind), ms. */
  constructor(private readonly trueNow: () => number, public offsetMs: number) {}

  /** Unix milliseconds on the sandbox's clock. */
  readonly now = (): number => this.trueNow() + this.offsetMs;
}
