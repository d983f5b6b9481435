// The demo's server part, plugged into serveBillCheckout as any merchant's own code would be: its
// pages (demo/dist) at `/`, the order and ticket a page asks for (POST /demo/orders, routes.ts),
// the script-tag page rendered per visit with an order of its own, and the demo catalogue's prices
// on the embedded sandbox. The package never ships it; server/main.ts plugs it in when it lies
// beside the entry (a clone of the repository), never with NODE_ENV=production.
import { join } from 'node:path';
import type { ServeBillCheckoutOptions } from '../../server/index.js';
import { demoResolveOrder } from './catalogue.js';
import { demoOrderRoutes, mintDemoOrder, type DemoOrdersOptions } from './routes.js';
import { renderScriptTagPage } from './script-tag-page.js';

export interface DemoInput {
  env: Record<string, string | undefined>;
  /** The repository's folder: the built pages are `demo/dist` under it. */
  root: string;
}

/** What the demo adds to serveBillCheckout; null where it has no place (production). */
export function demoServer({ env, root }: DemoInput): Pick<ServeBillCheckoutOptions, 'hooks' | 'routes' | 'pages'> | null {
  if (env.NODE_ENV === 'production') return null;
  let orders: DemoOrdersOptions | null = null;
  const ordersOf = (): DemoOrdersOptions => {
    if (!orders) throw new Error('the demo orders are minted only once its routes are added');
    return orders;
  };
  // Demo prices apply to the embedded sandbox only, never to a real service or a merchant's lookup.
  const embedded = !env.BILL_API_BASE_URL?.trim() && !env.ORDER_LOOKUP_URL?.trim();
  return {
    ...(embedded ? { hooks: { resolveOrder: demoResolveOrder } } : {}),
    routes(app) {
      orders = { mintTicket: (orderId) => app.orderTickets.mint(orderId), now: Date.now };
      app.route('/demo', demoOrderRoutes(orders));
    },
    pages: {
      folder: join(root, 'demo', 'dist'),
      render: {
        // As a merchant's server renders it: a fresh order and its ticket in the HTML, in the
        // visitor's language (?locale=, else Accept-Language).
        '/plain.html': async (template, request) => {
          const page = renderScriptTagPage(template, await mintDemoOrder('poster', ordersOf()), request);
          return { html: page.html, headers: { 'Content-Language': page.lang, Vary: 'Accept-Language' } };
        },
      },
    },
  };
}
