// What the shop page remembers about the order in progress, in sessionStorage (this tab). The
// element itself keeps the bill's read token per order id, so showing the same order id again
// (after a reload, or back from the payment page) resumes the same bill instead of making another.

export interface Checkout {
  product: string;
  /** Minted by the shop's server (POST /demo/orders), never by this page. */
  orderId: string;
  /** The order's ticket from the same answer; null when the server gives none. */
  orderTicket: string | null;
  /** Known once the element has created the bill. */
  billId?: string;
}

const CHECKOUT_KEY = 'northwind:checkout';

export function currentCheckout(): Checkout | null {
  try {
    const c = JSON.parse(sessionStorage.getItem(CHECKOUT_KEY) ?? 'null') as Partial<Checkout> | null;
    if (!c || typeof c.orderId !== 'string' || typeof c.product !== 'string') return null;
    return {
      product: c.product,
      orderId: c.orderId,
      orderTicket: typeof c.orderTicket === 'string' ? c.orderTicket : null,
      ...(typeof c.billId === 'string' ? { billId: c.billId } : {}),
    };
  } catch {
    return null;
  }
}

export function saveCheckout(c: Checkout): void {
  sessionStorage.setItem(CHECKOUT_KEY, JSON.stringify(c));
}

export function clearCheckout(): void {
  sessionStorage.removeItem(CHECKOUT_KEY);
}
