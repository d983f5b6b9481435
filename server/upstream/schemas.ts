// Shapes of the service's answers (spec 2.1–2.3). Lenient where the spec is loose (amounts as
// number or string, references absent/null/''), strict on what the BFF relies on. Unknown members
// are dropped.
import { z } from 'zod';
import { isDecimal, toDecimal } from '../decimal.js';
import type { CreatedBill, StatusRecord } from './types.js';

/** Exact decimal text from a JSON string or number (lossless-parsed text arrives as a string). */
export const amountSchema = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const text = typeof value === 'number' ? String(value) : value.trim();
  if (!Number.isFinite(Number(text)) || !isDecimal(text)) {
    ctx.addIssue({ code: 'custom', message: `expected a decimal amount, got ${JSON.stringify(value)}`, input: value });
    return z.NEVER;
  }
  return toDecimal(text);
});

/** A whole number, also when sent as digits in a string. */
const integerSchema = z.union(
  [z.number().int(), z.string().regex(/^-?\d+$/).transform(Number)],
  { error: 'expected a whole number' },
);

const referenceSchema = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((v) => (v === null || v === undefined || v === '' ? null : String(v)));

export const envelopeSchema = z.object({
  code: integerSchema,
  message: z.string().nullish().transform((m) => m ?? ''),
  data: z.unknown(),
});
export type Envelope = z.infer<typeof envelopeSchema>;

export const createdBillSchema = z.object({
  billId: z.string().min(1),
  billUrl: z.string().min(1),
  billAmount: amountSchema,
  requireGCAmount: amountSchema.nullish().transform((v) => v ?? null),
  currency: z.string(),
  merchantReference: z.string(),
  expiredOn: integerSchema,
}) satisfies z.ZodType<CreatedBill, unknown>;

export const statusRecordSchema = z.object({
  billId: z.string().min(1),
  merchantReference: z.string(),
  requestReference: referenceSchema,
  paymentReference: referenceSchema,
  billAmount: amountSchema,
  currency: z.string(),
  status: integerSchema,
  statusName: z.string(),
  isFinal: z.boolean(),
  dateTime: integerSchema,
}) satisfies z.ZodType<StatusRecord, unknown>;

export const listResultSchema = z.object({
  lists: z.array(statusRecordSchema),
  total: integerSchema,
});

/** `data.lists[2].billAmount` style path of a zod issue. */
export function issuePath(path: readonly PropertyKey[], root = 'data'): string {
  let out = root;
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
  return out;
}
