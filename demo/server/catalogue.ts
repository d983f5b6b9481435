// The demo shop's order catalogue: the BFF asks it for an order's amount, so the price a customer
// pays never comes from the browser. An order id is `demo-<product>-<n>`, where <n> is a fresh
// random suffix (1..40 of [a-z0-9]) that the demo's server minted with the order's ticket, so every
// visitor pays an order of their own.

export interface DemoProduct {
  slug: string;
  name: string;
  blurb: string;
  /** Decimal text, the whole price of the order (shipping included). */
  price: string;
  currency: string;
}

export const DEMO_PRODUCTS: readonly DemoProduct[] = [
  { slug: 'mug', name: 'Enamel camp mug', blurb: 'Steel, white enamel, 350 ml.', price: '12.50', currency: 'USD' },
  { slug: 'tee', name: 'Organic cotton tee', blurb: 'Heavyweight, unisex, stone grey.', price: '24.00', currency: 'USD' },
  { slug: 'poster', name: 'Risograph poster', blurb: 'A3, two colours, signed.', price: '8.75', currency: 'USD' },
  { slug: 'beans', name: 'Single-origin beans', blurb: '250 g, washed, light roast.', price: '16.40', currency: 'USD' },
];

const ORDER_ID = /^demo-([a-z]+)-([a-z0-9]{1,40})$/;

export function demoProduct(orderId: string): DemoProduct | null {
  const m = ORDER_ID.exec(orderId);
  if (!m) return null;
  return DEMO_PRODUCTS.find((p) => p.slug === m[1]) ?? null;
}

export async function demoResolveOrder(orderId: string): Promise<{ amount: string; currency?: string } | null> {
  const product = demoProduct(orderId);
  return product ? { amount: product.price, currency: product.currency } : null;
}

