// Injected faults: what they are, how they merge, and the dice.
import { z } from 'zod';
import { MAX_CLOCK_OFFSET_MS } from './clock.js';
import { STATUS_KEYS, isFinalStatus, type Dialect } from './dialect.js';
import { Code, SandboxError } from './envelope.js';
import { FIELDS } from './list-query.js';
import type { Faults, Lie, Op, StatusRecordWire } from './types.js';
import { NumberText } from './wire.js';

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
    lies: {},
    cancelNoOpRate: 0,
    rateLimit: {},
    retryAfterS: 1,
    replicaLagMs: 0,
    payOnCreate: false,
    createAnswerAfterCallback: false,
    callbackRetryDelayMs: null,
    maxPageSize: null,
    dateHeaderOffsetMs: 0,
    expiredOnUnit: 'ms',
    createResetAfterMade: 0,
    refusals: {},
    listRefusedFilters: [],
    recordDateTimeOffsetMs: 0,
    compress: null,
    processingStep: false,
  };
}

const rate = z.number().min(0).max(1);
const ms = z.number().int().min(0).max(600_000);
const perOp = z.strictObject({
  create: rate.optional(), list: rate.optional(), requery: rate.optional(), cancel: rate.optional(), bind: rate.optional(),
});
// Requests per second; 0 lifts an operation's limit (a merge cannot delete a member).
const perSecond = z.number().int().min(0).max(1_000_000);
const perOpLimit = z.strictObject({
  create: perSecond.optional(), list: perSecond.optional(), requery: perSecond.optional(),
  cancel: perSecond.optional(), bind: perSecond.optional(),
});
// Linear (no nested quantifiers), so a 200,000-digit amount is checked at once. It is a JSON
// number's text because create writes it raw.
const JSON_DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;
const lieText = z.string().min(1).max(200);
const lieMembers = {
  billId: lieText.optional(),
  merchantReference: lieText.optional(),
  billAmount: z.string().min(1).max(300_000).regex(JSON_DECIMAL, 'must be digits with an optional fraction, e.g. 12.50').optional(),
  currency: lieText.optional(),
};
const lies = z.strictObject({
  // A create answer has no status and a status record no expiredOn: refused rather than ignored.
  create: z.strictObject({ ...lieMembers, expiredOn: z.number().int().min(0).optional() }).optional(),
  requery: z.strictObject({ ...lieMembers, status: z.enum(STATUS_KEYS).optional() }).optional(),
});

const refusal = z.strictObject({
  status: z.number().int().min(400).max(599),
  retryAfterS: z.number().int().min(0).max(3600).optional(),
  html: z.boolean().optional(),
  code: z.number().int().optional(),
}).refine((r) => !(r.html === true && r.code !== undefined), 'an HTML page has no envelope, so no code');
const refusalQueue = z.array(refusal).max(1000);
const perOpRefusals = z.strictObject({
  create: refusalQueue.optional(), list: refusalQueue.optional(), requery: refusalQueue.optional(),
  cancel: refusalQueue.optional(), bind: refusalQueue.optional(),
});
const recordField = z.string().refine((name) => (FIELDS as readonly string[]).includes(name), `must be one of ${FIELDS.join(', ')}`);

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
  lies: lies.optional(),
  cancelNoOpRate: rate.optional(),
  rateLimit: perOpLimit.optional(),
  retryAfterS: z.number().int().min(0).max(3600).optional(),
  replicaLagMs: ms.optional(),
  payOnCreate: z.boolean().optional(),
  createAnswerAfterCallback: z.boolean().optional(),
  // null goes back to the default (a merge cannot delete a member, and 0 means something here).
  callbackRetryDelayMs: ms.nullable().optional(),
  maxPageSize: z.number().int().min(1).max(1000).nullable().optional(),
  dateHeaderOffsetMs: z.number().int().min(-MAX_CLOCK_OFFSET_MS).max(MAX_CLOCK_OFFSET_MS).optional(),
  expiredOnUnit: z.enum(['ms', 's']).optional(),
  createResetAfterMade: z.number().int().min(0).max(1000).optional(),
  refusals: perOpRefusals.optional(),
  listRefusedFilters: z.array(recordField).max(100).optional(),
  recordDateTimeOffsetMs: z.number().int().min(-MAX_CLOCK_OFFSET_MS).max(MAX_CLOCK_OFFSET_MS).optional(),
  // null goes back to the default (a merge cannot delete a member).
  compress: z.enum(['gzip', 'deflate', 'br']).nullable().optional(),
  processingStep: z.boolean().optional(),
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
    lies: { ...base.lies, ...patch.lies },
    rateLimit: { ...base.rateLimit, ...patch.rateLimit },
    refusals: { ...base.refusals, ...patch.refusals },
  };
}

/** The record as a service whose stored `dateTime` is `offsetMs` off states it. */
export function shiftDateTime(record: StatusRecordWire, offsetMs: number): StatusRecordWire {
  return offsetMs === 0 ? record : { ...record, dateTime: record.dateTime + offsetMs };
}

export function roll(random: () => number, rate: number | undefined): boolean {
  return rate !== undefined && rate > 0 && random() < rate;
}

export function rollFor(random: () => number, rates: Partial<Record<Op, number>>, op: Op): boolean {
  return roll(random, rates[op]);
}

/** The create answer's members that a lie can replace. */
interface CreatedAnswer {
  billId: string;
  merchantReference: string;
  billAmount: NumberText;
  currency: string;
  expiredOn: number;
}

/** The create answer with `lie`'s members in place of the bill's; billAmount stays a raw JSON number. */
export function lieInCreated<T extends CreatedAnswer>(answer: T, lie: Lie | undefined): T {
  if (!lie) return answer;
  const out = { ...answer };
  if (lie.billId !== undefined) out.billId = lie.billId;
  if (lie.merchantReference !== undefined) out.merchantReference = lie.merchantReference;
  if (lie.billAmount !== undefined) out.billAmount = new NumberText(lie.billAmount);
  if (lie.currency !== undefined) out.currency = lie.currency;
  if (lie.expiredOn !== undefined) out.expiredOn = lie.expiredOn;
  return out;
}

/** The status record with `lie`'s members in place of the bill's; a lied status brings its name and isFinal. */
export function lieInRecord(
  record: StatusRecordWire, lie: Lie | undefined, dialect: Pick<Dialect, 'statuses' | 'statusNames'>,
): StatusRecordWire {
  if (!lie) return record;
  const out = { ...record };
  if (lie.billId !== undefined) out.billId = lie.billId;
  if (lie.merchantReference !== undefined) out.merchantReference = lie.merchantReference;
  if (lie.billAmount !== undefined) out.billAmount = lie.billAmount;
  if (lie.currency !== undefined) out.currency = lie.currency;
  if (lie.status !== undefined) {
    out.status = dialect.statuses[lie.status];
    out.statusName = dialect.statusNames[lie.status];
    out.isFinal = isFinalStatus(lie.status);
  }
  return out;
}
