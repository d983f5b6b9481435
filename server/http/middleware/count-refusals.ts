import type { MiddlewareHandler } from 'hono';
import { errorCode } from '../json-errors.js';

/**
 * Tells `refused` the code of each error answer of the handlers after it (bill_checkout_creates_total).
 * Each handler answers its own errors (json-errors.ts), which leaves the error on `c.error`: read
 * here once the rest has run.
 */
export function countRefusals(refused: (code: string) => void): MiddlewareHandler {
  return async function countRefused(c, next) {
    await next();
    if (c.error !== undefined) refused(errorCode(c.error));
  };
}
