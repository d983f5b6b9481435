// The admin page (admin/index.html and its modules), built to dist/admin: the package ships it and
// serveBillCheckout serves it at /admin when ADMIN_TOKEN is set (server/process/static-files.ts).
// `npm run dev:admin` runs it under Vite at /admin/ with /api proxied to a BFF on BFF_URL
// (default :8787).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const bff = process.env.BFF_URL ?? 'http://localhost:8787';

export default defineConfig({
  root,
  // Served at /admin (the page) and /admin/assets/… (its hashed files), whatever the page's own URL.
  base: '/admin/',
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL('../dist/admin', import.meta.url)),
    emptyOutDir: true,
    // No data: URLs, so the page keeps working under `default-src 'self'`.
    assetsInlineLimit: 0,
    // Nothing but the page's own script and stylesheet: no module preload polyfill inlined.
    modulePreload: { polyfill: false },
    // dist/admin/index.html, its files named for the page: assets/admin-<hash>.js, .css.
    rollupOptions: { input: { admin: fileURLToPath(new URL('index.html', import.meta.url)) } },
  },
  server: {
    // The dev server stands in for the BFF's own origin, so the BFF's origin check sees PUBLIC_URL.
    proxy: { '/api': { target: bff, headers: { origin: new URL(bff).origin } } },
  },
});
