import { CheckoutError } from '../errors.js';

export interface OrderAmount {
  /** Decimal text or a JSON number, as the merchant's backend wrote it. */
  amount: string | number;
  currency?: string;
}

/** What a resolveOrder hook is given besides the order id. */
export interface ResolveOrderContext {
  /** The browser's create request: a hook may authorize from it (a session cookie, say) instead of order tickets. */
  request: Request;
}

/** The merchant's own answer for an order: its amount, or null when there is no such order. */
export type ResolveOrder = (orderId: string, context: ResolveOrderContext) => Promise<OrderAmount | null>;

export interface OrderLookupOptions {
  /** ORDER_LOOKUP_URL: `GET {url}/{orderId}` answers `{amount, currency?}`, 404 when unknown. */
  url: string;
  fetch: typeof fetch;
  timeoutMs?: number;
}

export function orderLookup({ url, fetch, timeoutMs = 5_000 }: OrderLookupOptions): ResolveOrder {
  return async function lookUpOrder(orderId) {
    let res: Response;
    try {
      // Encoded, and never `.` or `..` (refused on input): the id is one path segment under the URL.
      res = await fetch(`${url}/${encodeURIComponent(orderId)}`, {
        headers: { Accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      throw new CheckoutError('upstream', 'order_lookup_failed', 'The order could not be looked up.');
    }
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    const body: unknown = res.ok ? await res.json().catch(() => null) : null;
    if (!res.ok) await res.body?.cancel().catch(() => undefined);
    if (typeof body !== 'object' || body === null) {
      throw new CheckoutError('upstream', 'order_lookup_failed', 'The order could not be looked up.');
    }
    // Checked by the create like any resolveOrder answer (amount, currency).
    return body as OrderAmount;
  };
}
