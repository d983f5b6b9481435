// The other embeddable checkouts, as a merchant ships them: each bundled from its npm package with
// esbuild (minified, production, code splitting so that what a package loads lazily stays lazy) and
// served, with its page from bench/pages/pages.mjs, by a local HTTP server that compresses as the
// BFF serves <bill-checkout> (server/process/static-files.ts: brotli 11 when the browser
// accepts it, else gzip -9; images as they are). It also answers the network a peer insists on (Adyen's).
import { Buffer } from 'node:buffer';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import esbuild from 'esbuild';
import QRCode from 'qrcode';
import { listen } from './listen.mjs';
import { pages } from '../pages/pages.mjs';

const { Response } = globalThis;

const root = new URL('../../', import.meta.url).pathname;
const pageDir = join(root, 'bench/pages');

/** Each peer (its page in bench/pages/pages.mjs has its name): the browser entry points bundled for it. */
export const peerBuilds = {
  adyen: { entries: { 'adyen': join(pageDir, 'adyen.js') } },
  'bitcoin-connect': { entries: { 'bitcoin-connect': join(pageDir, 'bitcoin-connect.js') } },
  // bitcoin-qr 1.5.0 ships only Stencil's browser build (its `./loader` export is missing from the
  // package), so its own lazy-loading entry is what a merchant can bundle; it is a development
  // build (Stencil's isDev), which minification does not change.
  'bitcoin-qr': { entries: { 'bitcoin-qr': join(root, 'bench/node_modules/bitcoin-qr/dist/bitcoin-qr/bitcoin-qr.esm.js') } },
};

/** Bundles every peer; resolves to a Map of URL path (`/peers/<name>/<file>`) to its bytes. */
export async function bundlePeers() {
  const files = new Map();
  for (const [name, { entries }] of Object.entries(peerBuilds)) {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: entries,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      define: { 'process.env.NODE_ENV': '"production"' },
      // @getalby/lightning-tools imports node's crypto on a code path browsers never take; Vite
      // would replace it by an empty module, esbuild leaves it as an import that is never run.
      external: ['crypto'],
      legalComments: 'none',
      outdir: `/peers/${name}`,
      write: false,
      logLevel: 'error',
    });
    for (const file of result.outputFiles) files.set(file.path, Buffer.from(file.contents));
  }
  return files;
}

const types = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.html': 'text/html; charset=utf-8', '.png': 'image/png', '.svg': 'image/svg+xml', '.json': 'application/json' };
const typeOf = (path) => types[path.slice(path.lastIndexOf('.'))] ?? 'application/octet-stream';

/** Levels for a file compressed once (as the BFF does its static files) and for a page compressed per answer. */
const ONCE = { brotli: 11, gzip: 9 };
// What a web server's dynamic compression uses: brotli 11 took 12 ms of the page server's CPU for the
// server-rendered page's 5 KB (0.3 ms at 5, for 173 B more), before its first byte and on the cores
// the browser measures with.
const PER_ANSWER = { brotli: 5, gzip: 6 };

/**
 * An answer as the BFF answers the element: compressed at `levels`, as the browser asks. Pages too,
 * as a merchant's web server sends its HTML and as bench/phone.mjs sends the pages of
 * <bill-checkout> (pageAnswer): the server-rendered page's markup is bytes on the phone's link.
 */
function compressed(bytes, type, levels = ONCE) {
  const compressible = /javascript|css|svg|json|html/.test(type) && bytes.length > 256;
  return {
    type,
    raw: bytes,
    br: compressible ? brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: levels.brotli, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }) : null,
    gzip: compressible ? gzipSync(bytes, { level: levels.gzip }) : null,
  };
}

function answer(req, file) {
  const accepts = (req.headers.get('accept-encoding') ?? '').toLowerCase();
  const [encoding, body] = file.br && /\bbr\b/.test(accepts) ? ['br', file.br]
    : file.gzip && /\bgzip\b/.test(accepts) ? ['gzip', file.gzip] : [null, file.raw];
  const headers = { 'content-type': file.type, 'cache-control': 'no-cache', vary: 'Accept-Encoding' };
  if (encoding) headers['content-encoding'] = encoding;
  return new Response(body, { headers });
}

/** A page rendered per visit (bench/phone.mjs), compressed for this answer as the request asks. */
export function pageAnswer(req, html) {
  return answer(req, compressed(Buffer.from(html), types['.html'], PER_ANSWER));
}

const adyenPrefix = '/checkoutshopper-test/';

/**
 * Adyen's QR code component shows an image its server draws (`<api>/utility/v1/barcode.png`), a
 * logo from its CDN, and polls its payment status: the page points the checkout's environment at
 * `/checkoutshopper-test/` here (`_environmentUrls`; Adyen refuses a test client key unless the
 * URL says `test`), which answers each as Adyen would (the QR as a PNG drawn
 * here, a small logo, a pending status). Bytes that would come from Adyen's servers are counted.
 */
async function adyenStub(url) {
  const path = url.pathname.slice(adyenPrefix.length);
  if (path === 'utility/v1/barcode.png') {
    return new Response(await QRCode.toBuffer(url.searchParams.get('data') ?? '', { type: 'png', margin: 2, scale: 4 }), { headers: { 'content-type': 'image/png' } });
  }
  if (path === 'services/PaymentInitiation/v1/status') return Response.json({ payload: '', resultCode: 'pending', type: 'pending' });
  // Analytics answer the id of the checkout attempt (asked even with `analytics: {enabled: false}`).
  if (path === 'v3/analytics') return Response.json({ checkoutAttemptId: 'bench-attempt-0001' });
  // The risk module's device-fingerprint frame: Adyen's own page runs a script; this one is empty.
  if (/^assets\/html\/[^/]+\/dfp\.[\d.]+\.html$/.test(path)) return new Response('<!doctype html><title>dfp</title>', { headers: { 'content-type': 'text/html' } });
  if (path.endsWith('.svg')) {
    return new Response('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 26"><rect width="40" height="26" rx="3" fill="#7c1a78"/></svg>', { headers: { 'content-type': 'image/svg+xml' } });
  }
  return null;
}

/**
 * Serves the peers' pages and the page without a checkout (`/<name>.html`), the peers' bundles (`/peers/…`) and the stubs on 127.0.0.1.
 * `onUnknown(url)` hears of every request it had no answer for (a peer reaching for the network).
 */
export async function startPeerServer(bundles, onUnknown) {
  const files = new Map();
  for (const [path, bytes] of bundles) files.set(path, compressed(bytes, typeOf(path)));
  for (const page of ['page-alone', ...Object.keys(peerBuilds)]) {
    files.set(`/${page}.html`, compressed(Buffer.from(pages[page]()), typeOf('.html')));
  }
  return listen(async (req) => {
    const url = new URL(req.url);
    const file = files.get(url.pathname);
    if (file) return answer(req, file);
    const stubbed = url.pathname.startsWith(adyenPrefix) ? await adyenStub(url) : null;
    if (stubbed) return stubbed;
    // The browser asks for a favicon on its own: no checkout's request.
    if (url.pathname !== '/favicon.ico') onUnknown(`${req.method} ${url.pathname}`);
    return new Response('not found', { status: 404 });
  });
}
