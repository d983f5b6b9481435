// What the shop page remembers about the order in progress, in sessionStorage (this tab). The
// element itself keeps the bill's read token per order id, so showing the same order id again
// (after a reload, or back from the payment page) resumes the same bill instead of making another.

export interface Checkout {
  product: string;
  orderId: string;
  /** Known once the element has created the bill. */
  billId?: string;
}

const CHECKOUT_KEY = 'northwind:checkout';

/** `demo-<product>-<n>`: a new suffix for every order, as server/demo-orders.ts expects. */
export function freshOrderId(product: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  const random = Array.from(bytes, (b) => b.toString(36).padStart(2, '0')).join('');
  return `demo-${product}-${Date.now().toString(36)}${random}`;
}

export function currentCheckout(): Checkout | null {
  try {
    const c = JSON.parse(sessionStorage.getItem(CHECKOUT_KEY) ?? 'null') as Checkout | null;
    return c && typeof c.orderId === 'string' && typeof c.product === 'string' ? c : null;
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
