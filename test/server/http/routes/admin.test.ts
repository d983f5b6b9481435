// The admin page as the product serves it: serveBillCheckout (no demo plugged in) answers /admin
// and its hashed assets from dist/admin, with the pages' security headers, only when ADMIN_TOKEN is
// set; without it /admin is the JSON 404 of any unknown path. Over real HTTP, from a package
// folder laid out as `npm run build` leaves it.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { silentLogger } from '../../../../server/log.js';
import { serveBillCheckout } from '../../../../server/process/serve.js';
import { defer, temporaryFolder } from '../../support/cleanup.js';
import { freePort } from '../../support/servers.js';

const ADMIN_TOKEN = 'admin-page-test-token-0123456789abcdef';
const SCRIPT = '/admin/assets/admin-B6COIvcL.js';
const STYLES = '/admin/assets/admin-fK4w_qyC.css';
const PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bill-checkout: Admin</title>' +
  `<script type="module" crossorigin src="${SCRIPT}"></script><link rel="stylesheet" crossorigin href="${STYLES}"></head>` +
  `<body><main class="admin"><h1>Bills</h1>${'<p>admin</p>'.repeat(50)}</main></body></html>`;

/** A package folder with the drop-in and, unless `built` is false, the admin page's build. */
async function packageFolder(t: TestContext, built = true): Promise<string> {
  const root = await temporaryFolder(t, 'bill-checkout-admin-');
  await mkdir(join(root, 'dist/admin/assets'), { recursive: true });
  await writeFile(join(root, 'dist/bill-checkout.js'), 'export {};\n');
  if (built) {
    await writeFile(join(root, 'dist/admin/index.html'), PAGE);
    await writeFile(join(root, `dist${SCRIPT}`), `console.log(${JSON.stringify('admin '.repeat(200))});\n`);
    await writeFile(join(root, `dist${STYLES}`), `main{color:red}${'.x{margin:0}'.repeat(40)}\n`);
  }
  return root;
}

async function serve(t: TestContext, env: Record<string, string>, built = true): Promise<string> {
  const root = await packageFolder(t, built);
  const port = await freePort();
  const running = await serveBillCheckout({
    root,
    log: silentLogger,
    env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}`, DATABASE_URL: `file:${join(root, 'data.sqlite')}`, ...env },
  });
  defer(t, () => running.close());
  return running.url;
}

/** The headers every page the BFF serves carries (server/http/middleware/security-headers.ts). */
function assertPageHeaders(res: Response, what: string): void {
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'self'/, `${what}: CSP`);
  assert.match(csp, /object-src 'none'/, `${what}: CSP`);
  assert.match(csp, /frame-ancestors 'self'/, `${what}: CSP`);
  assert.match(res.headers.get('permissions-policy') ?? '', /camera=\(\)/, `${what}: Permissions-Policy`);
  assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN', `${what}: X-Frame-Options`);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer', `${what}: Referrer-Policy`);
  assert.equal(res.headers.get('cross-origin-opener-policy'), 'same-origin', `${what}: COOP`);
}

async function assertNotFound(base: string, path: string): Promise<void> {
  const res = await fetch(`${base}${path}`);
  assert.equal(res.status, 404, path);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, path);
  assert.deepEqual(await res.json(), { error: { code: 'not_found', message: 'No such resource.' } }, path);
}

test('with ADMIN_TOKEN, /admin answers the page with the pages\' CSP and headers, and its assets load', async (t) => {
  const base = await serve(t, { ADMIN_TOKEN });

  const page = await fetch(`${base}/admin`);
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(page.headers.get('cache-control'), 'no-cache');
  assertPageHeaders(page, '/admin');
  const html = await page.text();
  assert.equal(html, PAGE);

  // Every file the page names, at the URL it names: 200, its content type, cached for a year.
  const assets = [...html.matchAll(/(?:src|href)="(\/admin\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  assert.deepEqual(assets, [SCRIPT, STYLES]);
  for (const [path, type] of [[SCRIPT, 'text/javascript; charset=utf-8'], [STYLES, 'text/css; charset=utf-8']] as const) {
    const res = await fetch(`${base}${path}`, { headers: { 'Accept-Encoding': 'br' } });
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get('content-type'), type, path);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable', path);
    assert.equal(res.headers.get('content-encoding'), 'br', path);
    assertPageHeaders(res, path);
    await res.body?.cancel();
  }

  // The same page with a trailing slash, and HEAD; revalidation by ETag.
  const slash = await fetch(`${base}/admin/`);
  assert.equal(slash.status, 200);
  assert.equal(await slash.text(), PAGE);
  const head = await fetch(`${base}/admin`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-type'), 'text/html; charset=utf-8');
  const again = await fetch(`${base}/admin`, { headers: { 'If-None-Match': page.headers.get('etag')! } });
  assert.equal(again.status, 304);

  // Nothing else under /admin, and the demo's old address is no page of the product.
  for (const path of ['/admin/assets/admin-00000000.js', '/admin/index.html', '/admin.html']) await assertNotFound(base, path);
  // The admin API beside it answers as it always has.
  assert.equal((await fetch(`${base}/api/admin/customers`)).status, 401);
  assert.equal((await fetch(`${base}/api/admin/customers`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).status, 200);
});

test('in production too: the admin page is the product\'s, not the demo\'s', async (t) => {
  const base = await serve(t, {
    ADMIN_TOKEN, NODE_ENV: 'production', BILL_API_BASE_URL: 'http://127.0.0.1:9/bill-api', BILL_API_KEY: 'k-prod', BILL_API_SECRET: 's-prod',
    RETURN_URL: 'https://shop.example/thanks',
  });
  const page = await fetch(`${base}/admin`);
  assert.equal(page.status, 200);
  assertPageHeaders(page, '/admin in production');
  assert.equal(await page.text(), PAGE);
  assert.equal((await fetch(`${base}${SCRIPT}`)).status, 200);
});

test('without ADMIN_TOKEN, /admin and its assets are the JSON 404 of an unknown path', async (t) => {
  const base = await serve(t, {});
  for (const path of ['/admin', '/admin/', SCRIPT, STYLES]) await assertNotFound(base, path);
  assert.equal((await fetch(`${base}/api/admin/customers`)).status, 404);
});

test('with ADMIN_TOKEN but no dist/admin, /admin says to build it', async (t) => {
  const base = await serve(t, { ADMIN_TOKEN }, false);
  const res = await fetch(`${base}/admin`);
  assert.equal(res.status, 404);
  assert.deepEqual(await res.json(), { error: { code: 'not_found', message: 'The admin page is not built yet: npm run build.' } });
});
