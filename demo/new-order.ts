// A new order from the shop's server, as a merchant's checkout gets one: the server mints the order
// id and its ticket (POST /demo/orders, demo/server/routes.ts), a page never makes them up. The
// element is then given both: order-id and order-ticket.
import type { DemoStrings } from './server/demo-strings.js';

export interface NewOrder {
  orderId: string;
  /** Null when the server has no ticket secret (the embedded sandbox then takes orders without one). */
  orderTicket: string | null;
  product: string;
  amount: string;
  currency: string;
}

/** The shop's server could not give an order: unreachable (status 0), or its answer's HTTP status. */
export class NewOrderError extends Error {
  constructor(readonly status: number) {
    super(status === 0 ? "The shop's server could not be reached." : `The shop's server answered HTTP ${status}.`);
  }
}

function isNewOrder(x: unknown): x is NewOrder {
  if (typeof x !== 'object' || x === null) return false;
  const o = x as Record<string, unknown>;
  return typeof o.orderId === 'string' && o.orderId !== '' && (typeof o.orderTicket === 'string' || o.orderTicket === null) &&
    typeof o.product === 'string' && typeof o.amount === 'string' && typeof o.currency === 'string';
}

export async function newOrder(product: string, signal?: AbortSignal): Promise<NewOrder> {
  let res: Response;
  try {
    res = await fetch('/demo/orders', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ product }),
      cache: 'no-store',
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new NewOrderError(0);
  }
  const answer: unknown = await res.json().catch(() => null);
  if (res.status !== 201 || !isNewOrder(answer)) {
    throw new NewOrderError(res.status);
  }
  return answer;
}

/** The element's attributes for `order`: no order-ticket attribute when there is no ticket. */
export function orderAttributes(order: Pick<NewOrder, 'orderId' | 'orderTicket'>): Record<string, string> {
  return order.orderTicket === null
    ? { 'order-id': order.orderId }
    : { 'order-id': order.orderId, 'order-ticket': order.orderTicket };
}

/** What the customer is told when no order came, in the page's language. */
export function problemText(error: unknown, t: Pick<DemoStrings, 'orderUnreachable' | 'orderRefused' | 'orderFailed'>): string {
  if (!(error instanceof NewOrderError)) return t.orderFailed;
  return error.status === 0 ? t.orderUnreachable : t.orderRefused(error.status);
}
