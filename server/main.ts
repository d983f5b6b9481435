// `npm start`: the BFF on PORT. The only file that reads process.env or uses node:* modules.
import { createAdaptorServer } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { serveStatic } from '@hono/node-server/serve-static';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createBillCheckout } from './app.js';
import { clientAddress } from './http/client-address.js';
import { ConfigError, configSecrets, loadConfig, withoutUserinfo } from './config.js';
import type { Config } from './config.js';
import { randomToken } from './domain/create/random.js';
import { demoResolveOrder } from './demo-orders/catalogue.js';
import { demoOrderRoutes, mintDemoOrder } from './demo-orders/routes.js';
import { createLogger } from './log.js';
import { bodyLimit } from './http/middleware/body-limit.js';
import { errorBody } from './http/errors.js';
import { pageSecurityHeaders, stampPageSecurity } from './http/middleware/security-headers.js';
import { nodeHmacSha256 } from './platform/node/hmac.js';
import { nodeHttpClient } from './platform/node/http-client.js';
import { nodeSse } from './platform/node/sse-socket.js';
import { createSandbox } from '../sandbox/sandbox.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { openStore } from './store/open-store.js';
import { createBillApi, loadSigner } from './upstream/index.js';

const NOT_BUILT_PAGE =
  '<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
  '<title>bill-checkout</title><h1>bill-checkout</h1><p>The BFF is running. The demo is not built yet ' +
  '(<code>npm run build</code>).</p><p>API: <code>/api/bills</code>, health: <a href="/healthz">/healthz</a>.</p></html>';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function importSigner(spec: string): Promise<unknown> {
  const isPath = spec.startsWith('.') || isAbsolute(spec);
  return import(isPath ? pathToFileURL(resolve(spec)).href : spec);
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Configuration error: ${error.message}`);
    process.exit(1);
  }
  if (config.embeddedSandbox && config.orderTicketSecret === null) {
    // The demo's own tickets: minted and checked, while pages without one still work on the sandbox.
    config = { ...config, orderTicketSecret: randomToken(32) };
  }
  const log = createLogger({
    secrets: configSecrets(config),
    level: process.env.LOG_LEVEL === 'debug' ? 'debug' : 'info',
  });
  if (!config.orderTicketsRequired && config.embeddedSandbox) {
    log.warn('ORDER_TICKET_SECRET is unset: order creates without a ticket are allowed, on the embedded sandbox only ' +
      '(the demo mints its tickets with a secret of this process); set it before using a real service');
  }

  const store = await openStore(config.databaseUrl, {
    onError: (error) => log.warn('database connection error', { error }),
  });
  let sandbox: Sandbox | null = null;
  if (config.embeddedSandbox) sandbox = createSandbox({ publicUrl: `${config.publicUrl}/sandbox`, controls: !config.production });
  // node:crypto's HMAC and node:http under the upstream client: the same calls at a fraction of the CPU.
  const signer = await loadSigner(config.upstream.signer, importSigner, nodeHmacSha256);
  const upstream = createBillApi(config.upstream, { signer, pageBase: config.pageBase, http: nodeHttpClient() });
  // The checkout is the root app; the rest is added to it (see app.ts on why not app.route()).
  const app = createBillCheckout({
    config, upstream, store, log,
    // Demo prices apply to the embedded sandbox only, never to a real service.
    hooks: config.embeddedSandbox && !config.orderLookupUrl ? { resolveOrder: demoResolveOrder } : {},
    notice: { leaseMs: config.noticeLeaseMs },
    clientKey: (c) => clientAddress(getConnInfo(c).remote.address, c.req.header('x-forwarded-for'), config.trustedProxyHops),
    sse: nodeSse,
  });
  await app.ready();
  const pages = pageSecurityHeaders();
  if (sandbox) {
    app.use('/sandbox/*', pages);
    app.on(['POST', 'PUT', 'PATCH', 'DELETE'], '/sandbox/*', bodyLimit({
      maxBytes: config.bodyLimitBytes,
      onError: (c) => c.json(errorBody('payload_too_large', `The body is larger than ${config.bodyLimitBytes} bytes.`), 413),
    }));
    app.route('/sandbox', sandbox.app);
  }
  const demoOrders = { ticketSecret: config.orderTicketSecret, now: Date.now };
  if (!config.production) app.route('/demo', demoOrderRoutes(demoOrders));

  // The drop-in element for pages that load it with a script tag (the CDN way).
  const bundle = fileURLToPath(new URL('../dist/bill-checkout.js', import.meta.url));
  app.get('/bill-checkout.js', pages, async (c) =>
    existsSync(bundle)
      ? c.body(await readFile(bundle), 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' })
      : c.json(errorBody('not_found', 'The element is not built yet: npm run build.'), 404));

  // The demo answers whatever no route took: as middleware on '*' it would match every API path too.
  const demo = fileURLToPath(new URL('../demo/dist', import.meta.url));
  const demoBuilt = existsSync(resolve(demo, 'index.html'));
  const serveDemo = serveStatic({ root: demo });
  // The script-tag page, as a merchant's server renders it: a fresh order and its ticket in the HTML.
  const scriptTagPage = resolve(demo, 'plain.html');
  if (demoBuilt && !config.production && existsSync(scriptTagPage)) {
    const template = await readFile(scriptTagPage, 'utf8');
    app.get('/plain.html', pages, async (c) => {
      const order = await mintDemoOrder('poster', demoOrders);
      c.header('Cache-Control', 'no-store');
      return c.html(template
        .replaceAll('__ORDER_ID__', escapeHtml(order.orderId))
        .replaceAll('__ORDER_TICKET__', escapeHtml(order.orderTicket ?? '')));
    });
  }
  app.notFound(async (c) => {
    stampPageSecurity(c);
    if (demoBuilt) {
      const page = await serveDemo(c, () => Promise.resolve());
      if (page) return page;
    } else if (c.req.path === '/') {
      return c.html(NOT_BUILT_PAGE);
    }
    return c.json(errorBody('not_found', 'No such resource.'), 404);
  });

  const server = createAdaptorServer({ fetch: app.fetch });
  // A deep accept queue: a burst of widgets reconnecting at once waits instead of retrying SYNs.
  server.listen({ port: config.port, backlog: 4096 }, () => {
    log.info(`bill-checkout listening on ${withoutUserinfo(config.publicUrl)}`, {
      port: config.port,
      upstream: config.embeddedSandbox ? 'embedded sandbox (not live: no real payments)' : withoutUserinfo(config.upstream.baseUrl),
      database: config.databaseUrl.startsWith('file:') ? config.databaseUrl : 'postgres',
    });
  });
  app.start();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping', { signal });
    await app.stop();
    sandbox?.close();
    await new Promise<void>((done) => server.close(() => done()));
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error('bill-checkout failed to start:', error instanceof Error ? error.message : String(error));
  process.exit(1);
});
