// serveBillCheckout: one running BFF as one call, for `npm start` and for a merchant's own process
// (Node, Bun or Deno): the configuration from an environment, the store, the upstream client, the
// checkout, the embedded sandbox when there is no service, the drop-in element (and the admin
// page), the caller's own routes and pages, a listening server, and a graceful close. What
// differs per runtime is its ServerRuntime (platform/runtime.ts). The demo is one such caller
// (demo/server/), never part of it.
import { Hono } from 'hono';
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { collectDefaultMetrics } from 'prom-client';
import { SANDBOX_DEMO_CREDENTIALS } from '../../sandbox/credentials.js';
import { createSandbox } from '../../sandbox/sandbox.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { createBillCheckout } from '../app.js';
import type { BillCheckout, BillCheckoutHooks } from '../app.js';
import { configSecrets, loadConfig, withoutUserinfo } from '../config.js';
import type { Config } from '../config.js';
import { clientAddress, clientKeyOf } from '../http/client-address.js';
import { errorAnswer, payloadTooLarge } from '../http/json-errors.js';
import { jsonErrors, notFound } from '../http/json-errors.js';
import { metricsHandler } from '../http/routes/metrics.js';
import { bodyLimit } from '../http/middleware/body-limit.js';
import { pageSecurityHeaders } from '../http/middleware/security-headers.js';
import { createLogger } from '../log.js';
import { heapCapacityWarning } from './heap-capacity.js';
import type { Logger } from '../log.js';
import { openStore } from '../store/open-store.js';
import { BillApiConfigError, createBillApi, loadSigner } from '../upstream/index.js';
import { batchedLines } from '../platform/node/log-lines.js';
import { serverRuntime } from '../platform/runtime.js';
import type { ListeningServer, RuntimeName } from '../platform/runtime.js';
import { packageRoot, staticFiles } from './static-files.js';
import type { Pages } from './static-files.js';

export interface ServeBillCheckoutOptions {
  /** The environment to read the configuration from (docs/server.md, "Configuration"). Default: `process.env`. */
  env?: Record<string, string | undefined>;
  /** The merchant's hooks (resolveOrder, onFinal). */
  hooks?: BillCheckoutHooks;
  /** Adds the merchant's own routes to the app before it serves (they take precedence over `pages`). */
  routes?: (app: BillCheckout) => void;
  /** A folder of built pages served at `/`, compressed and cached as the drop-in is; none by default. */
  pages?: Pages;
  /** Where the built element (`dist/`) is. Default: this package's folder. */
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
  /** The runtime serving it, and its HTTP server: node (node:http), bun (Bun.serve) or deno (Deno.serve). */
  runtime: RuntimeName;
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
  return import(/* webpackIgnore: true */ /* turbopackIgnore: true */ /* @vite-ignore */ isPath ? pathToFileURL(resolve(spec)).href : spec);
}

/** A promise that resolves after `ms` without holding the process open. */
const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms).unref());

/** Comment lines that keep an idle SSE stream open (createBillCheckout's default). */
const SSE_HEARTBEAT_MS = 15_000;

/** Throws ConfigError (from loadConfig) or BillApiConfigError (a signer, a base URL) before it listens. */
/** BILL_SIGNER_PRIVATE_KEY_FILE's text; a file that cannot be read stops the start with its name. */
async function readKeyFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new BillApiConfigError(`BILL_SIGNER_PRIVATE_KEY_FILE "${path}" cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
}

export async function serveBillCheckout(options: ServeBillCheckoutOptions = {}): Promise<RunningBillCheckout> {
  const env = options.env ?? process.env;
  // Unset, BILL_API_KEY and BILL_API_SECRET are the sandbox's demo pair: what the embedded one accepts.
  const config = loadConfig(env, SANDBOX_DEMO_CREDENTIALS);
  // Lines go to stdout one write per turn of the event loop; what is queued is written at exit.
  const lines = options.log ? null : batchedLines(process.stdout);
  if (lines) process.on('exit', lines.flush);
  const log = options.log ?? createLogger({
    secrets: configSecrets(config), level: env.LOG_LEVEL === 'debug' ? 'debug' : 'info', write: lines?.write,
  });
  const root = options.root ?? packageRoot();
  const drainMs = options.drainMs ?? 5_000;

  const runtime = await serverRuntime({ upstreamIdleMs: config.upstream.idleSocketMs });
  const { privateKeyFile } = config.upstream;
  const privateKeyPem = privateKeyFile ? await readKeyFile(privateKeyFile) : config.upstream.privateKeyPem;
  const { partnerId, channelId, tokenPath } = config.upstream;
  const signer = await loadSigner(config.upstream.signer, importSigner, runtime.hmac, { privateKeyPem, partnerId, channelId, tokenPath });
  const upstream = createBillApi(config.upstream, { signer, pageBase: config.pageBase, http: runtime.upstreamHttp });
  const store = await openStore(config.databaseUrl, { onError: (error) => log.warn('database connection error', { error }) });
  const sandbox: Sandbox | null = config.embeddedSandbox
    ? createSandbox({ publicUrl: `${config.publicUrl}/sandbox`, controls: !config.production })
    : null;
  const app = createBillCheckout({
    config, upstream, store, log,
    ...(options.hooks ? { hooks: options.hooks } : {}),
    notice: { leaseMs: config.noticeLeaseMs },
    clientKey: (c) => clientKeyOf(clientAddress(runtime.remoteAddress(c), c.req.header('x-forwarded-for'), config.trustedProxyHops)),
    sse: runtime.sse,
    sseHeartbeatMs: SSE_HEARTBEAT_MS,
    webhookHttp: runtime.webhookHttp,
  });
  await app.ready();
  if (app.orderTickets.policy === 'demo') {
    log.warn('ORDER_TICKET_SECRET is unset: order creates without a ticket are allowed, on the embedded sandbox only ' +
      '(tickets this process mints for its own pages are checked when given); set it before using a real service');
  }
  const heapWarning = heapCapacityWarning(runtime.heapLimitBytes, config.maxSseConnections);
  if (heapWarning) log.warn(heapWarning);
  if (config.metricsToken !== null || config.metricsPort !== null) {
    // The process's own figures (CPU, memory, event loop lag, GC), beside the checkout's.
    collectDefaultMetrics({ register: app.metrics.registry });
  }

  options.routes?.(app);
  if (sandbox) {
    app.use('/sandbox/*', pageSecurityHeaders());
    app.on(['POST', 'PUT', 'PATCH', 'DELETE'], '/sandbox/*', bodyLimit({
      maxBytes: config.bodyLimitBytes,
      onError: (c) => errorAnswer(c, payloadTooLarge(config.bodyLimitBytes)),
    }));
    app.route('/sandbox', sandbox.app);
  }
  await staticFiles(app, { root, config, pages: options.pages ?? null });

  const listenOptions = { host: config.host, keepAliveTimeoutMs: config.keepAliveTimeoutMs, longestSilenceMs: SSE_HEARTBEAT_MS };
  const server = await runtime.listen(app.fetch, { ...listenOptions, port: config.port });
  const { url, port } = server;
  // An operator's private port: GET /metrics without a token, nothing else.
  let metricsServer: ListeningServer | null = null;
  if (config.metricsPort !== null) {
    const metricsApp = new Hono();
    metricsApp.notFound(notFound());
    metricsApp.get('/metrics', jsonErrors(log)(metricsHandler(app.metrics)));
    try {
      metricsServer = await runtime.listen(metricsApp.fetch, { ...listenOptions, port: config.metricsPort });
    } catch (error) {
      await server.close();
      sandbox?.close();
      await app.stop();
      await store.close();
      throw error;
    }
  }
  log.info(`bill-checkout listening on ${withoutUserinfo(config.publicUrl)}`, {
    port,
    ...(metricsServer === null ? {} : { metricsPort: metricsServer.port }),
    host: config.host ?? 'all interfaces',
    upstream: config.embeddedSandbox ? 'embedded sandbox (not live: no real payments)' : withoutUserinfo(config.upstream.baseUrl),
    database: config.databaseUrl.startsWith('file:') ? config.databaseUrl : 'postgres',
    // Which SQLite the runtime gave (sqlite/driver.ts): its durability and speed differ.
    ...(store.driver === undefined ? {} : { databaseDriver: store.driver }),
    runtime: `${runtime.name} ${runtime.version}`,
    ...(runtime.heapLimitBytes === null ? {} : { heapLimitMib: Math.floor(runtime.heapLimitBytes / 2 ** 20) }),
  });
  app.start();

  let closing: Promise<void> | null = null;
  async function close(): Promise<void> {
    const started = Date.now();
    const closed = server.close();
    // Scrapes are short and retried: the metrics port closes at once.
    const metricsClosed = metricsServer ? metricsServer.close() : Promise.resolve();
    metricsServer?.closeAll();
    // Ends the SSE streams at once, then waits for the background work, within the drain time.
    await Promise.race([app.stop(), delay(drainMs)]);
    sandbox?.close();
    const left = Math.max(0, drainMs - (Date.now() - started));
    await Promise.race([closed, delay(left).then(() => server.closeAll())]);
    // A server that cannot cut its connections (Deno.serve) is let go after the drain time.
    await Promise.race([Promise.all([closed, metricsClosed]), delay(left)]);
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
    runtime: runtime.name,
    metricsUrl: metricsServer?.url ?? null,
    config,
    app,
    close: () => (closing ??= close()),
  };
}
