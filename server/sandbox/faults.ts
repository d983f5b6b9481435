// Injected faults: what they are, how they merge, and the dice.
import { z } from 'zod';
import { Code, SandboxError } from './envelope.js';
import type { Faults, Op } from './types.js';

export function noFaults(): Faults {
  return {
    latencyMs: 0,
    errorRate: {},
    timeoutRate: {},
    hangMs: 30_000,
    malformedRate: {},
    createLostResponseRate: 0,
    callbackDropRate: 0,
    callbackDuplicateRate: 0,
    callbackDelayMs: [0, 0],
    callbackReorderWindowMs: 0,
  };
}

const rate = z.number().min(0).max(1);
const ms = z.number().int().min(0).max(600_000);
const perOp = z.strictObject({
  create: rate.optional(), list: rate.optional(), requery: rate.optional(), cancel: rate.optional(), bind: rate.optional(),
});
const faultsPatch = z.strictObject({
  latencyMs: ms.optional(),
  errorRate: perOp.optional(),
  timeoutRate: perOp.optional(),
  hangMs: ms.optional(),
  malformedRate: perOp.optional(),
  createLostResponseRate: rate.optional(),
  callbackDropRate: rate.optional(),
  callbackDuplicateRate: rate.optional(),
  callbackDelayMs: z.tuple([ms, ms]).refine(([a, b]) => a <= b, 'callbackDelayMs must be [min, max]').optional(),
  callbackReorderWindowMs: ms.optional(),
});

/** Validates a patch from outside (PUT /_control/faults, options); throws 1003 when malformed. */
export function parseFaults(input: unknown): Partial<Faults> {
  const r = faultsPatch.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new SandboxError(Code.invalidRequest, `faults.${issue.path.join('.')}: ${issue.message}`);
  }
  return r.data as Partial<Faults>;
}

/** The per-operation maps merge too, so switches can be added one at a time. */
export function mergeFaults(base: Faults, patch: Partial<Faults>): Faults {
  return {
    ...base,
    ...patch,
    errorRate: { ...base.errorRate, ...patch.errorRate },
    timeoutRate: { ...base.timeoutRate, ...patch.timeoutRate },
    malformedRate: { ...base.malformedRate, ...patch.malformedRate },
  };
}

export function roll(random: () => number, rate: number | undefined): boolean {
  return rate !== undefined && rate > 0 && random() < rate;
}

export function rollFor(random: () => number, rates: Partial<Record<Op, number>>, op: Op): boolean {
  return roll(random, rates[op]);
}
