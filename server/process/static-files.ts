// The files the BFF serves besides its API: the drop-in element (at /bill-checkout.js and at a
// versioned, immutable URL that a page can pin with its SRI hash), the merchant's admin page (at
// /admin, from dist/admin, when ADMIN_TOKEN is set), and the caller's built pages when it has some
// (the demo's). Each file is read and compressed (brotli, gzip) once at start; an
// answer is the encoding the browser asks for, with an ETag and a cache lifetime that fits the
// file: a year for names that carry their content's hash, revalidation for the rest.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Context, Hono } from 'hono';
import type { Config } from '../config.js';
import { CheckoutError } from '../domain/errors.js';
import { errorAnswer } from '../http/json-errors.js';
import { stampPageSecurity } from '../http/middleware/security-headers.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.svg', '.txt', '.map']);
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** No icon, for a week: long enough to stop the asking, short enough for pages that add one later. */
export const FAVICON_CACHE = 'public, max-age=604800';
/** Vite's hashed build output: `assets/name-<hash>.ext`. */
const HASHED_ASSET = /^\/assets\/.+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

/** `/` of a BFF that serves no pages: what runs here, for whoever opens its address. */
export const PRODUCT_PAGE =
  '<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
  '<title>bill-checkout</title><h1>bill-checkout</h1><p>A checkout\'s backend runs here. Pages embed its ' +
  '<code>&lt;bill-checkout&gt;</code> element from <a href="/bill-checkout.js">/bill-checkout.js</a>; its API is under ' +
  '<code>/api</code>, described at <a href="/api/openapi.json">/api/openapi.json</a>; health: <a href="/healthz">/healthz</a>.</p></html>';

/** A folder of built pages served at `/` (serveBillCheckout's `pages`). */
export interface Pages {
  /** The folder: `index.html` answers `/`; Vite's hashed `assets/` are cached for a year. */
  folder: string;
  /**
   * Pages made anew for each request from their built file (the template), by URL path: the
   * answer is `html`, with `headers` besides the page's own (security headers, no-store).
   */
  render?: Record<string, (template: string, request: Request) => Promise<{ html: string; headers?: Record<string, string> }>>;
}

/** The folder of this package (its package.json), from the sources or from the compiled dist/server. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'bill-checkout') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('bill-checkout: its package.json was not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
}

/** The drop-in's release names: what `npm run build` writes and this server answers. */
export interface DropIn {
  /** `bill-checkout.<first 16 hex of its SHA-256>.js` */
  versionedName: string;
  /** `sha384-<base64>`, for `<script integrity=…>`. */
  integrity: string;
}

export function dropInRelease(code: Buffer): DropIn {
  return {
    versionedName: `bill-checkout.${createHash('sha256').update(code).digest('hex').slice(0, 16)}.js`,
    integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`,
  };
}

interface Entry {
  type: string;
  raw: Buffer;
  gzip: Buffer | null;
  br: Buffer | null;
  etag: string;
  cacheControl: string;
}

/** A file as it is served; `made: 'per request'` compresses quickly (gzip only) instead of as small as it can. */
function entry(path: string, raw: Buffer, cacheControl: string, made: 'at start' | 'per request' = 'at start'): Entry {
  const ext = extname(path);
  const compress = COMPRESSIBLE.has(ext) && raw.length > 256;
  const atStart = made === 'at start';
  return {
    type: TYPES[ext] ?? 'application/octet-stream',
    raw,
    gzip: compress ? gzipSync(raw, { level: atStart ? 9 : 6 }) : null,
    br: compress && atStart
      ? brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
      : null,
    etag: `"${createHash('sha256').update(raw).digest('base64url').slice(0, 22)}"`,
    cacheControl,
  };
}

/** `br`, `gzip` or null, by the browser's Accept-Encoding (a `q=0` refuses). */
function encodingFor(c: Context): 'br' | 'gzip' | null {
  const accepted = new Map<string, number>();
  for (const part of (c.req.header('accept-encoding') ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    if (name) accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const wants = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (wants('br')) return 'br';
  if (wants('gzip')) return 'gzip';
  return null;
}

function pick(file: Entry, encoding: 'br' | 'gzip' | null): ['br' | 'gzip' | null, Buffer] {
  if (encoding === 'br' && file.br) return ['br', file.br];
  if (encoding !== null && file.gzip) return ['gzip', file.gzip];
  return [null, file.raw];
}

function answer(c: Context, file: Entry, extra: Record<string, string> = {}): Response {
  const headers: Record<string, string> = {
    'Content-Type': file.type,
    'Cache-Control': file.cacheControl,
    ETag: file.etag,
    ...extra,
  };
  if (file.gzip) headers.Vary = headers.Vary ? `${headers.Vary}, Accept-Encoding` : 'Accept-Encoding';
  const match = c.req.header('if-none-match');
  if (match !== undefined && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag)) {
    return c.body(null, 304, headers);
  }
  const [encoding, body] = pick(file, file.gzip ? encodingFor(c) : null);
  if (encoding) headers['Content-Encoding'] = encoding;
  headers['Content-Length'] = String(body.length);
  if (c.req.method === 'HEAD') return c.body(null, 200, headers);
  return c.body(new Uint8Array(body), 200, headers);
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

export interface StaticFilesOptions {
  /** The package folder: `dist/bill-checkout.js` and `dist/admin/` are looked for under it. */
  root: string;
  config: Pick<Config, 'allowedOrigins' | 'adminToken'>;
  /** The caller's pages, or null: `/` then says what runs here. */
  pages: Pages | null;
}

/**
 * The admin page (built from admin/ into dist/admin): `/admin` (and `/admin/`) answers its
 * index.html, revalidated; `/admin/assets/…` its hashed files, cached for a year. Every answer
 * carries the pages' security headers (CSP `default-src 'self'`). The page holds no secret: the
 * merchant types ADMIN_TOKEN into it, and it calls /api/admin/* with it.
 */
function adminPage(app: Hono, folder: string): void {
  const index = join(folder, 'index.html');
  if (!existsSync(index)) {
    app.get('/admin', (c) => {
      stampPageSecurity(c);
      return errorAnswer(c, new CheckoutError('not_found', 'not_found', 'The admin page is not built yet: npm run build.'));
    });
    return;
  }
  const page = entry(index, readFileSync(index), 'no-cache');
  const servePage = (c: Context) => {
    stampPageSecurity(c);
    return answer(c, page);
  };
  app.get('/admin', servePage);
  app.get('/admin/', servePage);
  for (const path of walk(folder)) {
    if (path === index) continue;
    const url = `/${relative(folder, path).split(sep).join('/')}`;
    const file = entry(path, readFileSync(path), HASHED_ASSET.test(url) ? IMMUTABLE : 'no-cache');
    app.get(`/admin${url}`, (c) => {
      stampPageSecurity(c);
      return answer(c, file);
    });
  }
}

/**
 * Adds the drop-in's routes, the admin page's where the admin API is on, and answers, from the app's not-found handler, the pages' files: a
 * middleware on '*' would match every API path too, and take the status poll off its fast path.
 */
export async function staticFiles(app: Hono, { root, config, pages }: StaticFilesOptions): Promise<void> {
  const bundlePath = join(root, 'dist', 'bill-checkout.js');
  const anyOrigin = config.allowedOrigins.includes('*');
  const origins = new Set(config.allowedOrigins);
  // A module script from another origin is fetched with CORS, and its SRI check needs it too.
  const crossOrigin = (c: Context): Record<string, string> => {
    const origin = c.req.header('origin');
    const allow = anyOrigin ? '*' : origin !== undefined && origins.has(origin) ? origin : null;
    return {
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'X-Content-Type-Options': 'nosniff',
      ...(allow ? { 'Access-Control-Allow-Origin': allow } : {}),
      ...(anyOrigin ? {} : { Vary: 'Origin' }),
    };
  };
  if (existsSync(bundlePath)) {
    const code = readFileSync(bundlePath);
    const release = dropInRelease(code);
    // Short-lived where the name stays the same; a year where the name is the content's hash.
    const latest = entry(bundlePath, code, 'public, max-age=300, must-revalidate');
    const pinned = { ...latest, cacheControl: IMMUTABLE };
    app.get('/bill-checkout.js', (c) => answer(c, latest, crossOrigin(c)));
    app.get(`/${release.versionedName}`, (c) => answer(c, pinned, crossOrigin(c)));
    // What the element imports on demand (its languages, the native bridge), beside it: names that
    // carry their content's hash, with the element's CORS.
    const onDemand = join(root, 'dist', 'on-demand');
    if (existsSync(onDemand)) {
      for (const name of readdirSync(onDemand).filter((file) => file.endsWith('.js'))) {
        const module = entry(join(onDemand, name), readFileSync(join(onDemand, name)), IMMUTABLE);
        app.get(`/on-demand/${name}`, (c) => answer(c, module, crossOrigin(c)));
      }
    }
  } else {
    app.get('/bill-checkout.js', (c) => errorAnswer(c, new CheckoutError('not_found', 'not_found', 'The element is not built yet: npm run build.')));
  }

  // Only where the admin API is on: without ADMIN_TOKEN, /admin is the JSON 404 of any unknown path.
  if (config.adminToken !== null) adminPage(app, join(root, 'dist', 'admin'));

  const files = new Map<string, Entry>();
  if (pages && existsSync(pages.folder)) {
    const render = pages.render ?? {};
    for (const path of walk(pages.folder)) {
      const url = `/${relative(pages.folder, path).split(sep).join('/')}`;
      const make = render[url];
      if (make) {
        const template = readFileSync(path, 'utf8');
        app.get(url, async (c) => {
          stampPageSecurity(c);
          const page = await make(template, c.req.raw);
          return answer(c, entry(url, Buffer.from(page.html), 'no-store', 'per request'), page.headers);
        });
        continue;
      }
      files.set(url, entry(path, readFileSync(path), HASHED_ASSET.test(url) ? IMMUTABLE : 'no-cache'));
    }
    const index = files.get('/index.html');
    if (index) files.set('/', index);
  }

  app.notFound((c) => {
    stampPageSecurity(c);
    const method = c.req.method;
    const file = method === 'GET' || method === 'HEAD' ? files.get(c.req.path) : undefined;
    if (file) return answer(c, file);
    if (c.req.path === '/' && !files.has('/')) return c.html(PRODUCT_PAGE);
    // Browsers ask for it on every origin they show a page of; a 404 is an error in each console.
    if (c.req.path === '/favicon.ico' && (method === 'GET' || method === 'HEAD')) return c.body(null, 204, { 'Cache-Control': FAVICON_CACHE });
    return errorAnswer(c, new CheckoutError('not_found', 'not_found', 'No such resource.'));
  });
}
