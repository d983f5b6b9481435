import type { Context } from 'hono';
import { z } from 'zod';
import { isServiceId } from '../../contract/ids.js';
import { constantTimeEqual } from './constant-time.js';
import { CheckoutError } from '../domain/errors.js';
import type { CachedBill } from '../domain/status/bill-cache.js';
import type { Services } from './services.js';

const noSuchBill = () => new CheckoutError('not_found', 'not_found', 'No such bill.');

/**
 * The path parameter of a bill's routes, as the OpenAPI description publishes it. Any text is taken:
 * an id no bill can have answers the same 404 as an unknown one. The `token` query parameter is the
 * description's `billToken` security scheme.
 */
export const billPath = z.object({ billId: z.string().describe("The service's bill id") });

/** The bill named in the path (cached or from the store), if the request carries its token; otherwise the same 404 as an unknown bill. */
export async function billForToken(c: Context, s: Services): Promise<CachedBill> {
  const billId = c.req.param('billId') ?? '';
  // An id no bill can have never reaches the store (a NUL byte is an error to PostgreSQL, not a miss).
  const found = isServiceId(billId) ? await s.refresher.lookup(billId) : null;
  if (!found || !constantTimeEqual(c.req.query('token') ?? '', found.bill.token)) throw noSuchBill();
  return found;
}

/**
 * The bill when it can be answered at once (cached: no store read), after the
 * token check; undefined when the store or a requery must be asked first.
 */
export function servableForToken(c: Context, s: Services): CachedBill | undefined {
  const hit = s.refresher.servable(c.req.param('billId') ?? '');
  if (hit && !constantTimeEqual(c.req.query('token') ?? '', hit.bill.token)) throw noSuchBill();
  return hit;
}

/** A JSON body; an empty one reads as `{}`. */
export async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CheckoutError('invalid', 'invalid_json', 'The body is not valid JSON.');
  }
}
