// serveBillCheckout: what `npm start` does, as one call for a merchant's own Node process: the
// configuration from an environment, the store, the upstream client on node:http, the checkout,
// the embedded sandbox when there is no service, the drop-in element and the demo, a listening
// server, and a graceful close.
import { createAdaptorServer } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono } from 'hono';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { collectDefaultMetrics } from 'prom-client';
import { createSandbox } from '../../../sandbox/sandbox.js';
import type { Sandbox } from '../../../sandbox/sandbox.js';
import { createBillCheckout } from '../../app.js';
import type { BillCheckout, BillCheckoutHooks } from '../../app.js';
import { configSecrets, loadConfig, withoutUserinfo } from '../../config.js';
import type { Config } from '../../config.js';
import { randomToken } from '../../domain/create/random.js';
import { demoResolveOrder } from '../../demo-orders/catalogue.js';
import { demoOrderRoutes } from '../../demo-orders/routes.js';
import { clientAddress, clientKeyOf } from '../../http/client-address.js';
import { errorBody } from '../../http/errors.js';
import { jsonErrors, notFound } from '../../http/json-errors.js';
import { metricsHandler } from '../../http/routes/metrics.js';
import { bodyLimit } from '../../http/middleware/body-limit.js';
import { pageSecurityHeaders } from '../../http/middleware/security-headers.js';
import { createLogger } from '../../log.js';
import type { Logger } from '../../log.js';
import { openStore } from '../../store/open-store.js';
import { createBillApi, loadSigner } from '../../upstream/index.js';
import { nodeHmacSha256 } from './hmac.js';
import { nodeHttpClient } from './http-client.js';
import { batchedLines } from './log-lines.js';
import { packageRoot, staticFiles } from './static-files.js';
import { nodeSse } from './sse-socket.js';

export interface ServeBillCheckoutOptions {
  /** The environment to read the configuration from (README, "Configuration"). Default: `process.env`. */
  env?: Record<string, string | undefined>;
  /** The merchant's hooks (resolveOrder, onFinal). */
  hooks?: BillCheckoutHooks;
  /** Adds the merchant's own routes to the app before it serves (they take precedence over the demo). */
  routes?: (app: BillCheckout) => void;
  /** Where the built element (`dist/`) and demo (`demo/dist/`) are. Default: this package's folder. */
  root?: string;
  /** Default: JSON lines on stdout, secrets masked, at LOG_LEVEL. */
  log?: Logger;
  /** How long a close waits for requests in flight before it cuts their connections, ms (default 5000). */
  drainMs?: number;
}

export interface RunningBillCheckout {
  /** Where it listens, e.g. `http://127.0.0.1:8787` (PORT=0 picks a free port). */
  url: string;
  port: number;
  /** Where METRICS_PORT serves GET /metrics without a token, e.g. `http://127.0.0.1:9464`; null without METRICS_PORT. */
  metricsUrl: string | null;
  config: Config;
  app: BillCheckout;
  /**
   * Stops taking requests, ends every SSE stream (widgets reconnect, to another instance behind a
   * balancer), stops the background work and waits for requests in flight, at most `drainMs`.
   */
  close(): Promise<void>;
}

function importSigner(spec: string): Promise<unknown> {
  const isPath = spec.startsWith('.') || isAbsolute(spec);
  return import(isPath ? pathToFileURL(resolve(spec)).href : spec);
}

/** A promise that resolves after `ms` without holding the process open. */
const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms).unref());

function listen(server: Server, port: number, host: string | null): Promise<void> {
  return new Promise<void>((listening, failed) => {
    server.once('error', failed);
    // A deep accept queue: a burst of widgets reconnecting at once waits instead of retrying SYNs.
    server.listen({ port, backlog: 4096, ...(host ? { host } : {}) }, () => {
      server.off('error', failed);
      listening();
    });
  });
}

function urlOf(server: Server): { url: string; port: number } {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { url: `http://${host === '[::]' || host === '0.0.0.0' ? 'localhost' : host}:${address.port}`, port: address.port };
}

const closeServer = (server: Server) => new Promise<void>((done) => server.close(() => done()));

/** Throws ConfigError (from loadConfig) or BillApiConfigError (a signer, a base URL) before it listens. */
export async function serveBillCheckout(options: ServeBillCheckoutOptions = {}): Promise<RunningBillCheckout> {
  const env = options.env ?? process.env;
  let config = loadConfig(env);
  if (config.embeddedSandbox && config.orderTicketSecret === null) {
    // The demo's own tickets: minted and checked, while pages without one still work on the sandbox.
    config = { ...config, orderTicketSecret: randomToken(32) };
  }
  // Lines go to stdout one write per turn of the event loop; what is queued is written at exit.
  const lines = options.log ? null : batchedLines(process.stdout);
  if (lines) process.on('exit', lines.flush);
  const log = options.log ?? createLogger({
    secrets: configSecrets(config), level: env.LOG_LEVEL === 'debug' ? 'debug' : 'info', write: lines?.write,
  });
  if (!config.orderTicketsRequired && config.embeddedSandbox) {
    log.warn('ORDER_TICKET_SECRET is unset: order creates without a ticket are allowed, on the embedded sandbox only ' +
      '(the demo mints its tickets with a secret of this process); set it before using a real service');
  }
  const root = options.root ?? packageRoot();
  const drainMs = options.drainMs ?? 5_000;

  // node:crypto's HMAC and node:http under the upstream client: the same calls at a fraction of the CPU.
  const signer = await loadSigner(config.upstream.signer, importSigner, nodeHmacSha256);
  const upstream = createBillApi(config.upstream, { signer, pageBase: config.pageBase, http: nodeHttpClient() });
  const store = await openStore(config.databaseUrl, { onError: (error) => log.warn('database connection error', { error }) });
  const sandbox: Sandbox | null = config.embeddedSandbox
    ? createSandbox({ publicUrl: `${config.publicUrl}/sandbox`, controls: !config.production })
    : null;
  // Demo prices apply to the embedded sandbox only, never to a real service.
  const demoHooks: BillCheckoutHooks = config.embeddedSandbox && !config.orderLookupUrl ? { resolveOrder: demoResolveOrder } : {};
  const app = createBillCheckout({
    config, upstream, store, log,
    hooks: { ...demoHooks, ...options.hooks },
    notice: { leaseMs: config.noticeLeaseMs },
    clientKey: (c) => clientKeyOf(clientAddress(getConnInfo(c).remote.address, c.req.header('x-forwarded-for'), config.trustedProxyHops)),
    sse: nodeSse,
    // The delivery log keeps an excerpt of each answer: the rest of a long one is not read.
    webhookHttp: nodeHttpClient({ maxBytes: 4 * 1024, overLimit: 'cut' }),
  });
  await app.ready();
  if (config.metricsToken !== null || config.metricsPort !== null) {
    // The process's own figures (CPU, memory, event loop lag, GC), beside the checkout's.
    collectDefaultMetrics({ register: app.metrics.registry });
  }

  options.routes?.(app);
  if (sandbox) {
    app.use('/sandbox/*', pageSecurityHeaders());
    app.on(['POST', 'PUT', 'PATCH', 'DELETE'], '/sandbox/*', bodyLimit({
      maxBytes: config.bodyLimitBytes,
      onError: (c) => c.json(errorBody('payload_too_large', `The body is larger than ${config.bodyLimitBytes} bytes.`), 413),
    }));
    app.route('/sandbox', sandbox.app);
  }
  const demoOrders = { ticketSecret: config.orderTicketSecret, now: Date.now };
  if (!config.production) app.route('/demo', demoOrderRoutes(demoOrders));
  await staticFiles(app, { root, config, demoOrders: config.production ? null : demoOrders });

  // createAdaptorServer makes a node:http server unless told to make another kind.
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  // An idle connection outlives its client's idle timeout (KEEP_ALIVE_TIMEOUT_MS, 65 s): with
  // Node's 5 s a balancer that pools connections for 60 s sends polls on connections the BFF is
  // closing, and answers them 502. Only the idle time between requests: Node's headersTimeout
  // (60 s) and requestTimeout (300 s) count from a request's first byte, so they stay as they are.
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  await listen(server, config.port, config.host);
  const { url, port } = urlOf(server);
  // An operator's private port: GET /metrics without a token, nothing else.
  let metricsServer: Server | null = null;
  let metricsAt: { url: string; port: number } | null = null;
  if (config.metricsPort !== null) {
    const metricsApp = new Hono();
    metricsApp.notFound(notFound());
    metricsApp.get('/metrics', jsonErrors(log)(metricsHandler(app.metrics)));
    metricsServer = createAdaptorServer({ fetch: metricsApp.fetch }) as Server;
    try {
      await listen(metricsServer, config.metricsPort, config.host);
    } catch (error) {
      await closeServer(server);
      sandbox?.close();
      await app.stop();
      await store.close();
      throw error;
    }
    metricsAt = urlOf(metricsServer);
  }
  log.info(`bill-checkout listening on ${withoutUserinfo(config.publicUrl)}`, {
    port,
    ...(metricsAt === null ? {} : { metricsPort: metricsAt.port }),
    host: config.host ?? 'all interfaces',
    upstream: config.embeddedSandbox ? 'embedded sandbox (not live: no real payments)' : withoutUserinfo(config.upstream.baseUrl),
    database: config.databaseUrl.startsWith('file:') ? config.databaseUrl : 'postgres',
  });
  app.start();

  let closing: Promise<void> | null = null;
  async function close(): Promise<void> {
    const started = Date.now();
    const closed = closeServer(server);
    server.closeIdleConnections();
    // Scrapes are short and retried: the metrics port closes at once.
    const metricsClosed = metricsServer ? closeServer(metricsServer) : Promise.resolve();
    metricsServer?.closeAllConnections();
    // Ends the SSE streams at once, then waits for the background work, within the drain time.
    await Promise.race([app.stop(), delay(drainMs)]);
    sandbox?.close();
    const left = Math.max(0, drainMs - (Date.now() - started));
    await Promise.race([closed, delay(left).then(() => server.closeAllConnections())]);
    await Promise.all([closed, metricsClosed]);
    await store.close();
    log.info('stopped', { ms: Date.now() - started });
    if (lines) {
      lines.flush();
      process.off('exit', lines.flush);
    }
  }

  return {
    url,
    port,
    metricsUrl: metricsAt?.url ?? null,
    config,
    app,
    close: () => (closing ??= close()),
  };
}
