// `bill-checkout/server/render`: the checkout in the page's first HTML and order tickets, for a
// framework's server render (a Server Component, an Astro page, an edge function). The same
// functions as `bill-checkout/server`'s, without the rest of it: no store, no upstream client, no
// node:* module, nothing loaded at import (test/build/framework-bundles.test.ts holds it to that).
export { checkoutStyleHash, renderCheckout } from './http/render/checkout.js';
export type { RenderCheckoutOptions } from './http/render/checkout.js';
export { orderTicket } from './domain/orders/order-ticket.js';
