// serveBillCheckout (what `npm start` runs): the drop-in for other origins, compressed and cached
// static files, page headers, HOST, and a graceful close that ends SSE streams and drains.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { brotliDecompressSync } from 'node:zlib';
import type { ServeBillCheckoutOptions } from '../../../server/process/serve.js';
import { dropInRelease } from '../../../server/process/static-files.js';
import type { CreatedBillView } from '../../../contract/bill-view.js';
import { temporaryFolder } from '../support/cleanup.js';
import { serveCheckoutIn } from '../support/servers.js';

const DROP_IN = `export const element = ${JSON.stringify('x'.repeat(4000))};\n`;

/** A package folder with a built drop-in and a built demo, as `npm run build` leaves them. */
async function builtRoot(t: TestContext): Promise<string> {
  const root = await temporaryFolder(t, 'bill-checkout-root-');
  await mkdir(join(root, 'dist'), { recursive: true });
  await mkdir(join(root, 'demo/dist/assets'), { recursive: true });
  await writeFile(join(root, 'dist/bill-checkout.js'), DROP_IN);
  await writeFile(join(root, 'demo/dist/index.html'), `<!doctype html><title>shop</title>${'<p>shop</p>'.repeat(100)}`);
  await writeFile(join(root, 'demo/dist/plain.html'), `<!doctype html><title>one script tag</title>${'<p>poster</p>'.repeat(40)}<bill-checkout order-id="__ORDER_ID__" order-ticket="__ORDER_TICKET__"></bill-checkout>`);
  await writeFile(join(root, 'demo/dist/assets/shop-D4c9xZ1a.js'), `console.log(${JSON.stringify('y'.repeat(3000))});`);
  return root;
}

async function serve(t: TestContext, env: Record<string, string> = {}, options: Partial<ServeBillCheckoutOptions> = {}) {
  return serveCheckoutIn(t, await builtRoot(t), env, options);
}

test('the drop-in: CORS and CORP for allowed origins, a versioned immutable URL with its SRI hash, brotli and gzip', async (t) => {
  const running = await serve(t, { ALLOWED_ORIGINS: 'https://shop.example' });
  const base = running.url;
  const release = dropInRelease(Buffer.from(DROP_IN));

  const latest = await fetch(`${base}/bill-checkout.js`, { headers: { Origin: 'https://shop.example', 'Accept-Encoding': 'br' } });
  assert.equal(latest.status, 200);
  assert.equal(latest.headers.get('access-control-allow-origin'), 'https://shop.example');
  assert.equal(latest.headers.get('cross-origin-resource-policy'), 'cross-origin');
  assert.match(latest.headers.get('cache-control') ?? '', /max-age=300/);
  assert.equal(latest.headers.get('content-encoding'), 'br');
  const raw = Buffer.from(await latest.arrayBuffer());
  // fetch decodes the body it was sent compressed: the same bytes as the file.
  assert.equal(raw.toString(), DROP_IN);
  assert.match(latest.headers.get('vary') ?? '', /Origin/);
  assert.match(latest.headers.get('vary') ?? '', /Accept-Encoding/);

  const foreign = await fetch(`${base}/bill-checkout.js`, { headers: { Origin: 'https://evil.example' } });
  assert.equal(foreign.headers.get('access-control-allow-origin'), null);
  await foreign.body?.cancel();

  const pinned = await fetch(`${base}/${release.versionedName}`, { headers: { Origin: 'https://shop.example', 'Accept-Encoding': 'gzip' } });
  assert.equal(pinned.status, 200);
  assert.equal(pinned.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.equal(pinned.headers.get('content-encoding'), 'gzip');
  assert.equal(pinned.headers.get('access-control-allow-origin'), 'https://shop.example');
  assert.equal(Buffer.from(await pinned.arrayBuffer()).toString(), DROP_IN);
  assert.match(release.integrity, /^sha384-[A-Za-z0-9+/]{64}$/);

  // Revalidation: the same ETag answers 304 with no body.
  const etag = pinned.headers.get('etag')!;
  const again = await fetch(`${base}/${release.versionedName}`, { headers: { 'If-None-Match': etag } });
  assert.equal(again.status, 304);
  assert.equal((await fetch(`${base}/bill-checkout.0000000000000000.js`)).status, 404);
});

test('static files: compressed as asked, hashed assets cached for a year, pages revalidated with CSP and Permissions-Policy', async (t) => {
  const running = await serve(t);
  const base = running.url;
  const asset = await fetch(`${base}/assets/shop-D4c9xZ1a.js`, { headers: { 'Accept-Encoding': 'gzip, br;q=0' } });
  assert.equal(asset.headers.get('content-encoding'), 'gzip');
  assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  await asset.body?.cancel();

  // Raw bytes on the wire, decoded here: what the browser gets is what the build wrote.
  const { request } = await import('node:http');
  const wire = await new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = request(`${base}/`, { headers: { 'Accept-Encoding': 'br, gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(wire.headers['content-encoding'], 'br');
  assert.match(brotliDecompressSync(wire.body).toString(), /^<!doctype html><title>shop<\/title>/);
  assert.equal(wire.headers['cache-control'], 'no-cache');
  assert.match(String(wire.headers['content-security-policy']), /default-src 'self'/);
  assert.match(String(wire.headers['content-security-policy']), /frame-ancestors 'self'/);
  assert.match(String(wire.headers['permissions-policy']), /camera=\(\)/);
  assert.ok(Number(wire.headers['content-length']) < 2600 / 4, `the page went out compressed (${wire.headers['content-length']} bytes)`);

  const identity = await fetch(`${base}/index.html`, { headers: { 'Accept-Encoding': 'identity' } });
  assert.equal(identity.headers.get('content-encoding'), null);
  await identity.body?.cancel();

  // The script-tag page: a fresh order and ticket in each answer, never cached.
  const one = await fetch(`${base}/plain.html`, { headers: { 'Accept-Encoding': 'gzip' } });
  const two = await (await fetch(`${base}/plain.html`)).text();
  assert.equal(one.headers.get('cache-control'), 'no-store');
  assert.match(one.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  const first = await one.text();
  assert.match(first, /order-id="demo-poster-[a-z0-9]+" order-ticket="\d+\.[A-Za-z0-9_-]{43}"/);
  assert.notEqual(first, two);
  assert.equal(one.headers.get('content-encoding'), 'gzip');

  // The API keeps its own headers; an unknown path is the JSON 404.
  const missing = await fetch(`${base}/nothing-here`);
  assert.equal(missing.status, 404);
  assert.deepEqual(await missing.json(), { error: { code: 'not_found', message: 'No such resource.' } });
});

test('/favicon.ico: no icon, no 404 (a console error on every page), cached a week; a page folder\'s own icon wins', async (t) => {
  const running = await serve(t);
  for (const method of ['GET', 'HEAD']) {
    const icon = await fetch(`${running.url}/favicon.ico`, { method });
    assert.deepEqual([icon.status, icon.headers.get('cache-control'), await icon.text()], [204, 'public, max-age=604800', ''], method);
  }
  assert.equal((await fetch(`${running.url}/favicon.ico`, { method: 'POST' })).status, 404);

  const root = await builtRoot(t);
  await writeFile(join(root, 'demo/dist/favicon.ico'), 'icon');
  const own = await fetch(`${(await serveCheckoutIn(t, root)).url}/favicon.ico`);
  assert.deepEqual([own.status, own.headers.get('content-type'), await own.text()], [200, 'image/x-icon', 'icon']);
});

test('HOST binds the listen address', async (t) => {
  const running = await serve(t, { HOST: '127.0.0.1' });
  assert.match(running.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal((await fetch(`${running.url}/healthz`)).status, 200);
});

test('close: SSE streams end at once so widgets reconnect elsewhere; a request still running after the drain time is cut', async (t) => {
  // A merchant route that never answers: without the drain limit, close() would never resolve.
  const running = await serve(t, {}, { drainMs: 300, routes: (app) => app.get('/stuck', () => new Promise<Response>(() => undefined)) });
  const base = running.url;
  const created = await fetch(`${base}/api/bills`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"orderId":"demo-tee-1"}' });
  const bill = (await created.json()) as CreatedBillView;
  const stream = await fetch(`${base}/api/bills/${bill.billId}/events?token=${bill.token}`);
  assert.equal(stream.status, 200);
  const reader = stream.body!.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /event: status/);
  const stuck = fetch(`${base}/stuck`).then(() => 'answered', () => 'cut');

  const closed = running.close();
  // The stream ends: its client sees the end and reconnects (to another instance behind a balancer).
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) { /* the last frames */ }
  await closed;
  assert.equal(await stuck, 'cut');
  await assert.rejects(fetch(`${base}/healthz`), 'no longer listening');
  assert.equal(await running.close(), undefined, 'closing twice is harmless');
});
