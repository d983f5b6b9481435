// POST /v1/bill/create: the request body, read without floats.
import { compareDecimal, decimalPlaces, toDecimal } from '../contract/decimal.js';
import type { NewBill } from './bills.js';
import { Code, SandboxError } from './envelope.js';
import { NumberText, parseExactJson } from './wire.js';

export const MAX_AMOUNT = '1000000000000';

function invalid(message: string): never {
  throw new SandboxError(Code.invalidRequest, message);
}

function httpUrl(v: unknown, name: string): string {
  if (typeof v !== 'string') invalid(`${name} must be an http(s) URL`);
  try {
    const u = new URL(v);
    if (u.protocol === 'http:' || u.protocol === 'https:') return v;
  } catch {
    // falls through
  }
  invalid(`${name} must be an http(s) URL`);
}

/** Canonical decimal text of `amount`, a JSON number or a quoted decimal. */
function amount(v: unknown): string {
  let text: string;
  if (v instanceof NumberText) text = v.text;
  else if (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v)) text = v;
  else invalid('amount must be a number');
  const exp = /[eE]([+-]?\d+)$/.exec(text);
  if (text.length > 40 || (exp && Math.abs(Number(exp[1])) > 30)) invalid('amount is out of range');
  const a = toDecimal(text);
  if (compareDecimal(a, '0') <= 0) invalid('amount must be greater than 0');
  if (decimalPlaces(a) > 2) invalid('amount has more than 2 decimal places');
  if (compareDecimal(a, MAX_AMOUNT) > 0) invalid(`amount must be at most ${MAX_AMOUNT}`);
  return a;
}

export function parseCreateBody(text: string): NewBill {
  let body: unknown;
  try {
    body = parseExactJson(text);
  } catch {
    invalid('Body is not valid JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body) || body instanceof NumberText) {
    invalid('Body must be a JSON object');
  }
  const b = body as Record<string, unknown>;
  const ref = b.merchantReference;
  if (ref !== undefined && ref !== null && typeof ref !== 'string') invalid('merchantReference must be a string');
  if (typeof ref === 'string' && ref.length > 256) invalid('merchantReference is longer than 256 characters');
  return {
    amount: amount(b.amount),
    merchantReference: typeof ref === 'string' && ref !== '' ? ref : null,
    callbackUrl: httpUrl(b.callbackUrl, 'callbackUrl'),
    redirectUrl: httpUrl(b.redirectUrl, 'redirectUrl'),
  };
}
