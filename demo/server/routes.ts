// The demo's own server part (never in production): it mints orders and their tickets as a
// merchant's server would, for the demo pages (demo/), which cannot hold a secret.
import { Hono } from 'hono';
import { DEMO_PRODUCTS } from './catalogue.js';

/** A new order of the demo shop, as the merchant's server hands it to a page: with its ticket. */
export interface DemoOrder {
  orderId: string;
  /** Null when no ticket secret is known (then the embedded sandbox takes orders without one). */
  orderTicket: string | null;
  product: string;
  amount: string;
  currency: string;
}

export interface DemoOrdersOptions {
  /** Mints the order's ticket (the checkout's own, `orderTickets.mint`): null when it takes orders without one. */
  mintTicket(orderId: string): Promise<string | null>;
  now: () => number;
}

/** `demo-<product>-<suffix>`: a suffix nobody can guess, so every visitor pays an order of their own. */
export function newDemoOrderId(slug: string, now: number): string {
  const random = Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(36).padStart(2, '0')).join('');
  return `demo-${slug}-${now.toString(36)}${random}`;
}

/** Mints a new demo order for `product` (a catalogue slug; unknown ones get the first product). */
export async function mintDemoOrder(product: string | undefined, options: DemoOrdersOptions): Promise<DemoOrder> {
  const p = DEMO_PRODUCTS.find((x) => x.slug === product) ?? DEMO_PRODUCTS[0]!;
  const now = options.now();
  const orderId = newDemoOrderId(p.slug, now);
  return { orderId, orderTicket: await options.mintTicket(orderId), product: p.slug, amount: p.price, currency: p.currency };
}

/**
 * `POST /demo/orders {"product":"mug"}`: what a merchant's server does when a customer checks out,
 * for the demo pages: a fresh order and its ticket. Harmless anywhere (it only mints new demo ids),
 * but mounted only outside production.
 */
export function demoOrderRoutes(options: DemoOrdersOptions): Hono {
  const app = new Hono();
  app.post('/orders', async (c) => {
    const body: unknown = await c.req.json().catch(() => ({}));
    const product = typeof body === 'object' && body !== null && 'product' in body && typeof body.product === 'string'
      ? body.product : undefined;
    c.header('Cache-Control', 'no-store');
    return c.json(await mintDemoOrder(product, options), 201);
  });
  return app;
}
