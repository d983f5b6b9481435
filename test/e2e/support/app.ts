// Starts the whole thing the way a merchant does: `tsx server/main.ts` (BFF + embedded sandbox +
// built demo) on a free port, with its own SQLite file and an admin token, and waits for /healthz.
import { spawn, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { serve } from '@hono/node-server';
import { demoResolveOrder } from '../../../demo/server/catalogue.js';
import { orderTicket } from '../../../server/domain/orders/order-ticket.js';
import { createSandbox, type SandboxOptions } from '../../../sandbox/sandbox.js';
import { freePort } from '../../support/ports.mjs';
import { startNetProxy, type NetProxy } from './net-proxy.js';

export const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';
/**
 * The merchant's order ticket secret (at least 32 characters): the demo pages get their orders and
 * tickets from the BFF's POST /demo/orders, and createBill mints its own, as a merchant's server would.
 */
export const ORDER_TICKET_SECRET = 'e2e-order-ticket-secret-0123456789abcdef';
const ROOT = resolve(import.meta.dirname, '../../..');

export interface StartOptions {
  /** Extra environment for server/main.ts. */
  env?: Record<string, string>;
  /**
   * Run the sandbox here, with these options, as a service the BFF reaches through
   * BILL_API_BASE_URL (for timings main.ts does not expose, e.g. a short bill lifetime).
   * Without it, main.ts mounts its embedded sandbox at /sandbox.
   */
  sandbox?: Omit<SandboxOptions, 'publicUrl'>;
  /** Put a relay the test can cut between the outside (browser, callbacks) and the BFF. */
  cuttableNetwork?: boolean;
}

export interface App {
  /** e.g. http://127.0.0.1:41234, no trailing slash. */
  url: string;
  /** Where the sandbox is: `${url}/sandbox`, or its own port with StartOptions.sandbox. */
  sandboxUrl: string;
  /** With StartOptions.cuttableNetwork: cut and restore the network in front of the BFF. */
  network: Pick<NetProxy, 'drop' | 'restore'> | null;
  /** Everything the process printed, for a failing test's message. */
  output(): string;
  /** A control route of the sandbox: pay, decline or expire a bill without its page; confirm a processing one's payment. */
  control(billId: string, action: 'pay' | 'confirm' | 'decline' | 'expire'): Promise<void>;
  /** Sets faults of the sandbox (PUT /_control/faults), e.g. `{processingStep: true}`. */
  faults(faults: Record<string, unknown>): Promise<void>;
  /**
   * POST /api/bills from outside a browser, with a ticket for the order minted here; answers the
   * bill with its token (a new one, or the one that already paid the order).
   */
  createBill(orderId: string): Promise<{ billId: string; token: string; outcome: string }>;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((ok) => {
    if (child.exitCode !== null || child.signalCode !== null) ok();
    else child.once('exit', () => ok());
  });
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void exited(child).then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`server/main.ts exited before it was healthy:\n${output()}`);
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server/main.ts not healthy after ${timeoutMs} ms:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The demo catalogue as a merchant backend's order lookup (ORDER_LOOKUP_URL). A BFF whose main.ts
 * passes demoResolveOrder as hooks.resolveOrder never calls it: the hook comes first.
 */
async function orderLookup(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createHttpServer((req, res) => {
    const id = decodeURIComponent((req.url ?? '').replace(/^\/orders\//, ''));
    void demoResolveOrder(id).then((order) => {
      res.writeHead(order ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(order ?? { error: { code: 'order_not_found', message: 'No such order.' } }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/orders`,
    close: () => new Promise((ok) => { server.closeAllConnections(); server.close(() => ok()); }),
  };
}

let built: Promise<void> | undefined;

/** The demo as `npm start` serves it, built from the current widget and demo sources. */
function buildDemo(): Promise<void> {
  built ??= (async () => {
    if (process.env.E2E_SKIP_BUILD === '1') return;
    // The whole `npm run build`: the drop-in element too, which the script-tag page loads.
    const { build } = (await import(pathToFileURL(join(ROOT, 'scripts/build.mjs')).href)) as { build: () => Promise<void> };
    await build();
  })();
  return built;
}

async function outsideSandbox(options: Omit<SandboxOptions, 'publicUrl'>): Promise<{ url: string; close(): Promise<void> }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const sandbox = createSandbox({ ...options, publicUrl: url });
  const server = serve({ fetch: sandbox.app.fetch, port, hostname: '127.0.0.1' });
  await new Promise<void>((ok) => (server.listening ? ok() : server.once('listening', () => ok())));
  return {
    url,
    close: () => new Promise((ok) => {
      sandbox.close();
      if ('closeAllConnections' in server) server.closeAllConnections();
      server.close(() => ok());
    }),
  };
}

export async function startApp(options: StartOptions = {}): Promise<App> {
  await buildDemo();
  const lookup = await orderLookup();
  const outside = options.sandbox ? await outsideSandbox(options.sandbox) : null;
  const port = await freePort();
  const proxy = options.cuttableNetwork ? await startNetProxy(port) : null;
  const dir = await mkdtemp(join(tmpdir(), 'bill-checkout-e2e-'));
  const url = proxy?.url ?? `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: String(port),
      PUBLIC_URL: url,
      DATABASE_URL: `file:${join(dir, 'bills.sqlite')}`,
      ADMIN_TOKEN,
      ORDER_TICKET_SECRET,
      ORDER_LOOKUP_URL: lookup.url,
      RECONCILE_INTERVAL_MS: '1000',
      REFRESH_WINDOW_MS: '250',
      // Bills that pass expiredOn are settled by the sandbox's own expiry, so no long grace is needed.
      BILL_EXPIRY_GRACE_MS: '5000',
      CREATE_RATE_LIMIT_PER_MINUTE: '1000',
      // A sandbox whose bills live seconds: the BFF takes such lifetimes (below its one-minute floor).
      ...((options.sandbox?.billLifetimeMs ?? Infinity) < 60_000 ? { BILL_MIN_LIFETIME_MS: '1000' } : {}),
      ...(outside ? { BILL_API_BASE_URL: outside.url } : {}),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const output = () => log;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited(child);
      clearTimeout(killer);
    }
    await lookup.close();
    await outside?.close();
    await proxy?.close();
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await waitForHealth(url, child, output, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }

  const ticketSecret = options.env?.ORDER_TICKET_SECRET ?? ORDER_TICKET_SECRET;
  const sandboxUrl = outside?.url ?? `${url}/sandbox`;
  // Controls bypass the cuttable relay: the test pays while the browser's network is down.
  const controlUrl = outside?.url ?? `http://127.0.0.1:${port}/sandbox`;
  return {
    url,
    sandboxUrl,
    network: proxy,
    output,
    async control(billId, action) {
      const res = await fetch(`${controlUrl}/_control/bills/${encodeURIComponent(billId)}/${action}`, { method: 'POST' });
      if (!res.ok) throw new Error(`sandbox ${action} ${billId}: HTTP ${res.status} ${await res.text()}`);
    },
    async faults(faults) {
      const res = await fetch(`${controlUrl}/_control/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
      if (!res.ok) throw new Error(`sandbox faults: HTTP ${res.status} ${await res.text()}`);
    },
    async createBill(orderId) {
      const res = await fetch(`${url}/api/bills`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url },
        body: JSON.stringify({ orderId, orderTicket: await orderTicket(orderId, ticketSecret, 3_600_000) }),
      });
      // 200: the order was already paid, and that bill is the answer.
      if (res.status !== 201 && res.status !== 200) throw new Error(`create ${orderId}: HTTP ${res.status} ${await res.text()}`);
      return (await res.json()) as { billId: string; token: string; outcome: string };
    },
    stop,
  };
}
