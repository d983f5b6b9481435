// The BFF (createBillCheckout) on loopback, configured as `npm start` would be, against a given
// service URL, on a temp SQLite file unless DATABASE_URL is set.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { listen } from './listen.mjs';
import { announceServerBuild, importServer } from './server-modules.mjs';

/**
 * options: upstreamUrl (the service), env (more configuration), log ('silent' | 'stdout'),
 * mount(app) (extra routes on the BFF's app), onRequest(req) (sees each request first).
 */
export async function startBff(options) {
  announceServerBuild();
  // internalsOf (what server/testing.ts gives tests) from the app's own module: a BENCH_APP swapped in answers for its apps.
  const [{ createBillCheckout, internalsOf }, { loadConfig }, { createLogger }, { openStore }, { createBillApi, loadSigner }, { nodeSse }, { nodeHttpClient }, { nodeHmacSha256 }, { batchedLines }, { SANDBOX_DEMO_CREDENTIALS }] =
    await Promise.all([process.env.BENCH_APP || 'server/app.ts', 'server/config.ts', 'server/log.ts', 'server/store/open-store.ts', 'server/upstream/index.ts', 'server/platform/node/sse-socket.ts', 'server/platform/node/http-client.ts', 'server/platform/node/hmac.ts', 'server/platform/node/log-lines.ts', 'sandbox/credentials.ts']
      .map(importServer));
  let handler = () => new globalThis.Response('starting', { status: 503 });
  const served = await listen((req, env) => handler(req, env));
  const dir = mkdtempSync(join(tmpdir(), 'bench-bff-'));
  const config = loadConfig({
    PORT: String(served.port),
    PUBLIC_URL: served.url,
    BILL_API_BASE_URL: options.upstreamUrl,
    DATABASE_URL: process.env.DATABASE_URL || `file:${join(dir, 'bff.sqlite')}`,
    CLIENT_AMOUNT_MIN: '1',
    CLIENT_AMOUNT_MAX: '500',
    CREATE_RATE_LIMIT_PER_MINUTE: '100000000',
    ALLOWED_ORIGINS: '*',
    ...options.env,
  }, SANDBOX_DEMO_CREDENTIALS);
  // As serveBillCheckout sets it: idle keep-alive connections outlive the clients' own idle timeout.
  served.server.keepAliveTimeout = config.keepAliveTimeoutMs;
  const store = await openStore(config.databaseUrl);
  // As main.ts builds it: node:crypto's HMAC and node:http under the upstream client.
  const signer = await loadSigner(config.upstream.signer, (p) => import(p), nodeHmacSha256);
  const upstream = createBillApi(config.upstream, { signer, pageBase: config.pageBase, http: nodeHttpClient() });
  const log = createLogger({
    secrets: [config.upstream.key, config.upstream.secret],
    write: options.log === 'stdout' ? batchedLines().write : () => undefined,
  });
  // As main.ts serves it: SSE written straight to the socket, webhooks POSTed by node:http.
  const app = createBillCheckout({
    config, upstream, store, log, sse: nodeSse, webhookHttp: nodeHttpClient({ maxBytes: 4 * 1024, overLimit: 'cut' }),
  });
  // Routes are added to the checkout itself: app.route() would wrap each handler in an async one.
  const root = app;
  // BENCH_BFF_DEFAULT_METRICS=1: the process's own figures on /metrics (event-loop lag, GC, memory),
  // as serveBillCheckout adds them when METRICS_TOKEN is set (bench/flash-sale.mjs reads the lag).
  if (process.env.BENCH_BFF_DEFAULT_METRICS === '1') {
    const { collectDefaultMetrics } = await import('prom-client');
    collectDefaultMetrics({ register: app.metrics.registry });
  }
  options.mount?.(root);
  const onRequest = options.onRequest;
  handler = onRequest ? (req, env) => (onRequest(req), root.fetch(req, env)) : (req, env) => root.fetch(req, env);
  app.start();
  return {
    url: served.url,
    server: served.server,
    app,
    internals: internalsOf(app),
    store,
    config,
    async close() {
      await app.stop();
      await served.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
