// The demo (demo/*.html), built to demo/dist and served by the BFF at `/` (`npm start`), or run by
// `npm run dev` with /api, /sandbox and /healthz proxied to a BFF on BFF_URL (default :8787).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('./demo', import.meta.url));
const bff = process.env.BFF_URL ?? 'http://localhost:8787';
const pages = ['index', 'variants', 'plain', 'admin', 'react'];

export default defineConfig({
  root,
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
      ['/api', '/sandbox', '/healthz', '/bill-checkout.js'].map((p) => [p, { target: bff, headers: { origin: new URL(bff).origin } }]),
    ),
  },
});
