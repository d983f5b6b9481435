import { z } from 'zod';
import { CheckoutError } from '../errors.js';
import { issueMessage } from '../issue-message.js';

/** Never only dots: `.` and `..` are path segments, not names (ORDER_LOOKUP_URL/.. is another resource). */
const ORDER_ID = /^(?!\.+$)[A-Za-z0-9._:-]{1,128}$/;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export const createBillBody = z.object({
  orderId: z.string()
    .regex(ORDER_ID, '1 to 128 of A-Z a-z 0-9 . _ : -, not only dots')
    .optional(),
  orderTicket: z.string().max(256).describe("`<expiresAtMs>.<sig>` from the merchant's server (docs/server.md, \"Order tickets\")").optional(),
  amount: z.union([z.number(), z.string().max(40)]).optional(),
});

export interface CreateRequest {
  orderId: string | null;
  /** The ticket the merchant's server gave the page for `orderId`. */
  orderTicket: string | null;
  /** The browser's amount, as sent (validated later, only if browser amounts are allowed). */
  amount: number | string | null;
  idempotencyKey: string | null;
  /** The create request itself, for a resolveOrder hook that authorizes from it (a session cookie, say). */
  request: Request;
}

export function parseCreateRequest(body: unknown, idempotencyKey: string | undefined, request: Request): CreateRequest {
  const parsed = createBillBody.safeParse(body ?? {});
  if (!parsed.success) throw new CheckoutError('invalid', 'invalid_request', issueMessage(parsed.error));
  if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
    throw new CheckoutError('invalid', 'invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 visible ASCII characters.');
  }
  return {
    orderId: parsed.data.orderId ?? null,
    orderTicket: parsed.data.orderTicket ?? null,
    amount: parsed.data.amount ?? null,
    idempotencyKey: idempotencyKey ?? null,
    request,
  };
}
