// The demo (demo/*.html), built to demo/dist and served by the BFF at `/` (`npm start`), or run by
// `npm run dev` with /api, /sandbox, /healthz and /demo proxied to a BFF on BFF_URL (default :8787).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { renderScriptTagPage } from './demo/server/script-tag-page.js';

const root = fileURLToPath(new URL('./demo', import.meta.url));
const bff = process.env.BFF_URL ?? 'http://localhost:8787';
const pages = ['index', 'variants', 'plain', 'react'];

/**
 * The script-tag page carries its order in the HTML (`__ORDER_ID__`, `__ORDER_TICKET__`), filled
 * by the page's server: the demo's server part (demo/server/index.ts) for the built demo; under `npm run dev`, this plugin, with
 * a fresh order from the BFF's POST /demo/orders for every load. The build keeps the placeholders.
 */
function scriptTagOrder(): Plugin {
  return {
    name: 'bill-checkout-demo:script-tag-order',
    apply: 'serve',
    async transformIndexHtml(html, ctx) {
      if (!html.includes('__ORDER_ID__')) return html;
      let order: { orderId?: unknown; orderTicket?: unknown };
      try {
        const res = await fetch(`${bff}/demo/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ product: 'poster' }),
        });
        if (res.status !== 201) throw new Error(`HTTP ${res.status}`);
        order = (await res.json()) as typeof order;
        if (typeof order.orderId !== 'string') throw new Error('no orderId in the answer');
      } catch (error) {
        throw new Error(`No order for the script-tag page from the BFF's POST ${bff}/demo/orders ` +
          `(${error instanceof Error ? error.message : String(error)}): start it with \`npm start\`, or set BFF_URL.`);
      }
      // Under `npm run dev` the language comes from ?locale= only (the dev server does not hand the request's headers here).
      const page = new Request(new URL(ctx.originalUrl ?? '/plain.html', 'http://localhost'));
      return renderScriptTagPage(html, { orderId: order.orderId as string, orderTicket: typeof order.orderTicket === 'string' ? order.orderTicket : null }, page).html;
    },
  };
}

export default defineConfig({
  root,
  plugins: [scriptTagOrder()],
  // Lit's decorators as TypeScript's experimentalDecorators + useDefineForClassFields: false.
  oxc: {
    decorator: { legacy: true },
    typescript: { removeClassFieldsWithoutInitializer: true },
    assumptions: { setPublicClassFields: true },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No data: URLs, so the pages keep working under `default-src 'self'`.
    assetsInlineLimit: 0,
    rollupOptions: {
      input: Object.fromEntries(pages.map((p) => [p, resolve(root, `${p}.html`)])),
    },
  },
  server: {
    proxy: Object.fromEntries(
      // The dev server stands in for the BFF's own origin, so the BFF's origin check sees PUBLIC_URL.
      // /demo/: the demo's order minting (demo/server/routes.ts).
      ['/api', '/sandbox', '/healthz', '/bill-checkout.js', '/demo/'].map((p) => [p, { target: bff, headers: { origin: new URL(bff).origin } }]),
    ),
  },
});
