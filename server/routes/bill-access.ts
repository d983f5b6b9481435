import type { Context } from 'hono';
import { constantTimeEqual } from '../middleware/constant-time.js';
import { ApiError } from '../middleware/errors.js';
import type { StoredBill } from '../store/types.js';
import type { Services } from './services.js';

/** The bill named in the path, if the request carries its token; otherwise the same 404 as an unknown bill. */
export async function billForToken(c: Context, s: Services): Promise<StoredBill & { billId: string }> {
  const billId = c.req.param('billId') ?? '';
  const token = c.req.query('token') ?? '';
  const bill = billId ? await s.store.getByBillId(billId) : null;
  if (!bill || bill.billId === null || !constantTimeEqual(token, bill.token)) {
    throw new ApiError(404, 'not_found', 'No such bill.');
  }
  return bill as StoredBill & { billId: string };
}

/** A JSON body; an empty one reads as `{}`. */
export async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(400, 'invalid_json', 'The body is not valid JSON.');
  }
}
