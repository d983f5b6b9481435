// Shapes of the service's answers (spec 2.1–2.3). Lenient where the spec is loose (amounts as
// number or string, references absent/null/''), strict on what the BFF relies on. Unknown members
// are dropped.
import { z } from 'zod';
import { compareDecimal, toDecimal } from '../../contract/decimal.js';
import { MAX_ID_LENGTH, SERVICE_ID } from '../../contract/ids.js';
import type { CreatedBillRecord, StatusRecord } from './types.js';

/** Digits with an optional fraction, no sign, no exponent, at most 30 digits each side. */
const PLAIN_DECIMAL = /^\d{1,30}(?:\.\d{1,30})?$/;
const SHOWN = 40;

function shown(value: string | number): string {
  const text = JSON.stringify(value);
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}… (${text.length} characters)` : text;
}

/**
 * Exact decimal text from a JSON string or number (lossless-parsed text arrives as a string): a
 * plain decimal, positive (or zero, with `allowZero`). Anything else is an issue of the answer,
 * never an exception: an exponent or a 200,000-digit fraction is refused before any arithmetic.
 */
function amountOf({ allowZero }: { allowZero: boolean }) {
  return z.union([z.string(), z.number()]).transform((value, ctx) => {
    const text = typeof value === 'number' ? String(value) : value.trim();
    if (!PLAIN_DECIMAL.test(text)) {
      ctx.addIssue({ code: 'custom', message: `expected a plain decimal amount, got ${shown(value)}`, input: value });
      return z.NEVER;
    }
    const amount = toDecimal(text);
    if (compareDecimal(amount, '0') < (allowZero ? 0 : 1)) {
      ctx.addIssue({ code: 'custom', message: `expected a ${allowZero ? 'non-negative' : 'positive'} amount, got ${shown(value)}`, input: value });
      return z.NEVER;
    }
    return amount;
  });
}

/** A bill's amount: a positive plain decimal. */
export const amountSchema = amountOf({ allowZero: false });
/** requireGCAmount: a plain decimal, zero allowed. */
export const gcAmountSchema = amountOf({ allowZero: true });

/** A whole number, also when sent as digits in a string. */
const integerSchema = z.union(
  [z.number().int(), z.string().regex(/^-?\d+$/).transform(Number)],
  { error: 'expected a whole number' },
);

/** Most characters of a service's id we keep: the BFF's routes take no longer one (contract/ids.ts). */
const idSchema = z.string().regex(SERVICE_ID, `expected 1 to ${MAX_ID_LENGTH} printable characters`);
/** A currency code: letters or digits, at most 16 (ISO 4217's three, or a token's ticker). */
const currencySchema = z.string().regex(/^[A-Za-z0-9]{1,16}$/, 'expected a currency code of 1 to 16 letters or digits');
/**
 * What the customer is sent to: a URL of at most 2,048 characters, a bound on what is stored and
 * sent to browsers. Whether it fits in a QR code is judged apart, on the bytes the QR encoder writes
 * (the URL percent-encoded, as UTF-8: up to 9 bytes a character, against a QR code's 2,331 at level
 * M; server/http/render/qr-images.ts, qrFits): a longer one is still taken, and the bill is paid
 * through its link (checkout.html shows the pay link, qr.svg and qr.png answer 404 qr_too_long).
 */
const billUrlSchema = z.string().min(1).max(2048, 'expected at most 2048 characters');
const statusNameSchema = z.string().max(100, 'expected at most 100 characters');

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

/** Before 1973-03-03 in ms, but in seconds a time near 5138: a unix time in seconds, not ms. */
const SECONDS_SIZED_MS = 100_000_000_000;

/**
 * What is wrong with a create answer's expiredOn as such (before any clock is asked), or null: it
 * must be a JSON number, whole, positive and in milliseconds. A string is refused even when it
 * holds digits: an answer that quotes it is not the spec's, and guessing its unit is not ours.
 */
export function expiredOnProblem(value: unknown): string | null {
  if (typeof value === 'string') return `expected a number of unix milliseconds, got a string ${shown(value)}`;
  if (typeof value !== 'number') return `expected a number of unix milliseconds, got ${value === null ? 'null' : typeof value}`;
  if (!Number.isFinite(value) || !Number.isInteger(value)) return `expected whole unix milliseconds, got ${shown(value)}`;
  if (!Number.isSafeInteger(value)) return `expected unix milliseconds, got ${shown(value)}`;
  if (value <= 0) return `expected a positive unix time in milliseconds, got ${shown(value)}`;
  if (value < SECONDS_SIZED_MS) return `expected unix milliseconds, got ${shown(value)} (a unix time in seconds)`;
  return null;
}

/**
 * A create answer's expiredOn as a shape: a whole JSON number (never a string, even of digits, nor
 * a fraction). Whether it can be a bill's expiry (positive, in ms, a plausible lifetime ahead) is
 * judged apart: expiredOnProblem, then ServiceClock.judgeCreated.
 */
export const expiredOnSchema = z.number({ error: 'expected a whole number of unix milliseconds' })
  .int({ error: 'expected a whole number of unix milliseconds' });

const createdBillMembers = {
  billId: idSchema,
  billUrl: billUrlSchema,
  billAmount: amountSchema,
  requireGCAmount: gcAmountSchema.nullish().transform((v) => v ?? null),
  currency: currencySchema,
  merchantReference: z.string(),
};

export const createdBillSchema = z.object({
  ...createdBillMembers,
  expiredOn: expiredOnSchema,
}) satisfies z.ZodType<CreatedBillRecord, unknown>;

/**
 * A create answer with its expiredOn as it came: the client judges it apart (expiredOnProblem,
 * ServiceClock.judgeCreated), since the bill it names exists at the service whatever its expiry.
 */
export const createdAnswerSchema = z.object({ ...createdBillMembers, expiredOn: z.unknown() });

export const statusRecordSchema = z.object({
  billId: idSchema,
  merchantReference: z.string(),
  requestReference: referenceSchema,
  paymentReference: referenceSchema,
  billAmount: amountSchema,
  currency: currencySchema,
  status: integerSchema,
  statusName: statusNameSchema,
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
