// The sandbox and the BFF on loopback ports over real HTTP, the BFF on a temp SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import type { Context } from 'hono';
import { createBillCheckout } from '../../../server/app.js';
import { nodeHmacSha256 } from '../../../server/platform/node/hmac.js';
import { nodeHttpClient } from '../../../server/platform/node/http-client.js';
import { nodeSse } from '../../../server/platform/node/sse-socket.js';
import { webSse } from '../../../server/http/sse/sse-transport.js';
import type { BillCheckout, BillCheckoutHooks } from '../../../server/app.js';
import { internalsOf } from '../../../server/testing.js';
import type { BillCheckoutInternals } from '../../../server/testing.js';
import { configSecrets, loadConfig } from '../../../server/config.js';
import type { Config } from '../../../server/config.js';
import { createLogger } from '../../../server/log.js';
import { orderTicket } from '../../../server/domain/orders/order-ticket.js';
import { STARTED_COOKIE } from '../../../server/http/started-here.js';
import { returnToken } from '../../../server/domain/create/hook-urls.js';
import { createSandbox } from '../../../sandbox/sandbox.js';
import type { Sandbox, SandboxOptions } from '../../../sandbox/sandbox.js';
import { openStore } from '../../../server/store/open-store.js';
import type { Store } from '../../../server/store/types.js';
import { createBillApi, createServiceClock, loadSigner } from '../../../server/upstream/index.js';
import type { BillApi, HttpClient } from '../../../server/upstream/index.js';
import type { Budget } from '../../../server/upstream/budget.js';
import type { CreatedBillView } from '../../../contract/bill-view.js';
import { serveOn } from './servers.js';

export const TEST_KEY = 'test-key-5b7e0c1d';
export const TEST_SECRET = 'test-secret-9f2a44e1c3';
/** ORDER_TICKET_SECRET and ADMIN_TOKEN values long enough for the BFF (32 characters at least). */
export const TEST_TICKET_SECRET = 'test-order-ticket-secret-5d1e9a0b7c';
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
/** What the browser that created a bill sends to its return URL (the create's cookie). */
export const STARTED_HERE = { Cookie: `${STARTED_COOKIE}=1` };

/** A clock shared by the sandbox and the BFF; it stands still until `advance` moves both. */
export interface Clock {
  now(): number;
  advance(ms: number): void;
}

export function createClock(): Clock {
  let t = Date.now();
  return { now: () => t, advance: (ms) => void (t += ms) };
}

export interface HarnessOptions {
  /** Extra environment for loadConfig. */
  env?: Record<string, string>;
  hooks?: BillCheckoutHooks;
  /** The sandbox's options; its clock is the BFF's unless `now` is given (a service whose clock differs). */
  sandbox?: Omit<SandboxOptions, 'publicUrl' | 'key' | 'secret'>;
  /** The signing secret of both sides (default TEST_SECRET). */
  secret?: string;
  /**
   * Mount the sandbox at /sandbox of the BFF's own server and leave BILL_API_BASE_URL unset, as
   * `npm start` does: the BFF then knows it is on its embedded sandbox (livemode false).
   */
  embedded?: boolean;
  /** Wraps the HTTP client the BFF uses to reach the service (to lose a response, say). */
  upstreamHttp?: (real: HttpClient) => HttpClient;
  /** Wraps the store the BFF uses (to make it fail, say); `Harness.store` stays the real one. */
  wrapStore?: (store: Store) => Store;
  sseHeartbeatMs?: number;
  /** The `retry:` the BFF gives event-stream clients (default the BFF's, 3000 ms). */
  sseRetryMs?: number;
  /** How SSE reaches the client: written to Node's socket as `npm start` does (default), or a web stream. */
  sse?: 'node' | 'web';
  /** Start the reconciler and notice worker timers (default false: tests call runOnce). */
  start?: boolean;
  /** Tells clients apart, as main.ts does by address (default: none, as createBillCheckout's). */
  clientKey?: (c: Context) => string;
  /** The real clock for the BFF and the sandbox (a load over real seconds); `clock.advance` then throws. */
  realClock?: boolean;
  /** Answers' Date headers farther from the BFF's clock than this are ignored, ms (0: the BFF goes by its own clock). */
  serviceClockMaxOffsetMs?: number;
  /**
   * A second instance of the BFF beside `shareWith`: the same sandbox and clock (its options are
   * ignored here); give both one PostgreSQL DATABASE_URL to share a store. The first one closes the sandbox.
   */
  shareWith?: Harness;
  /** The budget toward the service (default: the BFF's own, from its configuration). */
  budget?: Budget;
}

export interface Harness {
  url: string;
  sandboxUrl: string;
  sandbox: Sandbox;
  app: BillCheckout;
  /** The app's parts inside (server/testing.ts): its reconciler, notice worker, hub, alerts… */
  internals: BillCheckoutInternals;
  /** A client of the sandbox with the BFF's own settings (to act behind the BFF's back). */
  upstream: BillApi;
  store: Store;
  config: Config;
  clock: Clock;
  logs: string[];
  /** Every response body the harness read, for the secrets test. */
  bodies: string[];
  request(path: string, init?: RequestInit): Promise<Response>;
  /** POST /api/bills, expecting 201. */
  create(body?: Record<string, unknown>, headers?: Record<string, string>): Promise<CreatedBillView>;
  /** Requeries the sandbox has answered for this bill. */
  requeries(billId: string): number;
  /** Resolves once the requeries started behind answers (and any other) have finished. */
  refreshed(): Promise<void>;
  /** A ticket for `orderId` minted with ORDER_TICKET_SECRET, valid `ttlMs` from the BFF's clock. */
  ticket(orderId: string, ttlMs?: number): Promise<string>;
}

export async function startHarness(t: TestContext, options: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'bff-test-'));
  const shared = options.shareWith;
  const clock: Clock = shared?.clock ?? (options.realClock
    ? { now: Date.now, advance: () => { throw new Error('this harness runs on the real clock'); } }
    : createClock());
  const logs: string[] = [];
  const bodies: string[] = [];

  const secret = options.secret ?? TEST_SECRET;
  let handler: (req: Request, env: HttpBindings) => Response | Promise<Response> = () => new Response('starting', { status: 503 });
  const bff = await serveOn((req, env) => handler(req, env));
  const sandboxServer = options.embedded || shared ? null : await serveOn((req) => sandbox.app.fetch(req));
  const sandboxUrl = shared?.sandboxUrl ?? sandboxServer?.url ?? `${bff.url}/sandbox`;
  const sandbox: Sandbox = shared?.sandbox ?? createSandbox({
    key: TEST_KEY,
    secret,
    now: clock.now,
    publicUrl: sandboxUrl,
    callbackRetryDelayMs: 50,
    sweepIntervalMs: 0,
    ...options.sandbox,
  });

  let config: Config;
  try {
    config = loadConfig({
      PORT: String(bff.port),
      PUBLIC_URL: bff.url,
      ...(options.embedded ? {} : { BILL_API_BASE_URL: sandboxUrl }),
      BILL_API_KEY: TEST_KEY,
      BILL_API_SECRET: secret,
      BILL_API_TIMEOUT_MS: '2000',
      BILL_API_RETRIES: '1',
      DATABASE_URL: `file:${join(dir, 'bff.sqlite')}`,
      CLIENT_AMOUNT_MIN: '1',
      CLIENT_AMOUNT_MAX: '500',
      ...options.env,
    });
  } catch (error) {
    // A configuration the BFF refuses: nothing was started on its behalf, so nothing may stay open.
    if (!shared) sandbox.close();
    await Promise.all([bff.close(), sandboxServer?.close()]);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const store = await openStore(config.databaseUrl);
  // Built as main.ts builds it: node:crypto's HMAC and node:http under the upstream client.
  const { privateKeyPem = null, partnerId = null, channelId = null, tokenPath = null } = config.upstream;
  const signer = await loadSigner(config.upstream.signer, (p) => import(p), nodeHmacSha256, { privateKeyPem, partnerId, channelId, tokenPath });
  const realHttp = nodeHttpClient();
  const upstream = createBillApi(config.upstream, {
    signer,
    pageBase: config.pageBase,
    http: options.upstreamHttp ? options.upstreamHttp(realHttp) : realHttp,
    sleep: async () => undefined,
    ...(options.budget ? { budget: options.budget } : {}),
    // The service's clock against the harness's (the budget keeps real time: its pauses are real waits).
    clock: createServiceClock({
      now: clock.now, minLifetimeMs: config.upstream.minLifetimeMs,
      ...(options.serviceClockMaxOffsetMs !== undefined ? { maxOffsetMs: options.serviceClockMaxOffsetMs } : {}),
    }),
  });
  const log = createLogger({
    write: (line) => logs.push(line),
    secrets: configSecrets(config),
    level: 'debug',
    now: clock.now,
  });
  // Every hook token the BFF makes, for the scan of its log lines when the test ends.
  const hookTokens: string[] = [];
  const served = options.wrapStore ? options.wrapStore(store) : store;
  const recording: Store = new Proxy(served, {
    get(target, prop, receiver) {
      if (prop === 'insertBill') {
        return (bill: Parameters<Store['insertBill']>[0]) => {
          hookTokens.push(bill.hookToken);
          return target.insertBill(bill);
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const app = createBillCheckout({ config, upstream, store: recording, hooks: options.hooks, log, now: clock.now,
    sseHeartbeatMs: options.sseHeartbeatMs,
    sseRetryMs: options.sseRetryMs,
    sse: options.sse === 'web' ? webSse : nodeSse,
    ...(options.clientKey ? { clientKey: options.clientKey } : {}),
  });
  if (options.embedded) {
    const mounted = new Hono();
    mounted.route('/sandbox', sandbox.app);
    handler = (req, env) => (new URL(req.url).pathname.startsWith('/sandbox/') ? mounted.fetch(req) : app.fetch(req, env));
  } else {
    handler = (req, env) => app.fetch(req, env);
  }
  if (options.start) app.start();

  t.after(async () => {
    await app.stop();
    if (!shared) sandbox.close();
    await Promise.all([bff.close(), sandboxServer?.close()]);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    // No line the BFF wrote may carry a secret, a URL's userinfo, or a bill's hook or return token.
    const never = [...configSecrets(config), ...hookTokens, ...(await Promise.all(hookTokens.map((token) => returnToken(token))))];
    for (const line of logs) {
      const found = never.find((secret) => line.includes(secret));
      if (found !== undefined) throw new Error(`a log line carries a secret or a token (${found.slice(0, 6)}…): ${line.slice(0, 300)}`);
      if (/[a-z][a-z0-9+.-]*:\/\/[^\s/@"]+@/i.test(line)) throw new Error(`a log line carries a URL's userinfo: ${line.slice(0, 300)}`);
    }
  });

  const request = async (path: string, init?: RequestInit) => {
    const res = await fetch(`${bff.url}${path}`, { redirect: 'manual', ...init });
    const isStream = res.headers.get('content-type')?.startsWith('text/event-stream');
    if (isStream) return res;
    const text = await res.text();
    bodies.push(text + JSON.stringify([...res.headers]));
    // A null-body status (204, 304) takes no body, not even an empty one.
    return new Response(res.status === 204 || res.status === 304 ? null : text, { status: res.status, headers: res.headers });
  };

  return {
    url: bff.url,
    sandboxUrl,
    sandbox,
    app,
    internals: internalsOf(app),
    upstream,
    store,
    config,
    clock,
    logs,
    bodies,
    request,
    async create(body = { amount: '12.50' }, headers = {}) {
      const res = await request('/api/bills', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as CreatedBillView;
    },
    requeries: (billId) => sandbox.stats().requeryByBill[billId] ?? 0,
    refreshed: () => internalsOf(app).refresher.idle(),
    ticket(orderId, ttlMs = 600_000) {
      if (config.orderTicketSecret === null) throw new Error('ticket(): the harness has no ORDER_TICKET_SECRET');
      return orderTicket(orderId, config.orderTicketSecret, ttlMs, clock.now());
    },
  };
}

/** Resolves with the next callback attempt for `billId` whose outcome matches. */
export function nextCallback(sandbox: Sandbox, billId: string, outcome = 'ok'): Promise<void> {
  return new Promise((resolve) => {
    const listener = (event: Event) => {
      const detail = (event as CustomEvent<{ billId: string; outcome: string }>).detail;
      if (detail.billId === billId && detail.outcome === outcome) {
        sandbox.events.removeEventListener('callback', listener);
        resolve();
      }
    };
    sandbox.events.addEventListener('callback', listener);
  });
}
