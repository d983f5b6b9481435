// Several BFF processes (server/main.ts) on one throwaway PostgreSQL, behind a round-robin
// balancer that skips dead instances, with the sandbox and a merchant webhook receiver served
// here. Shared by test/server/multi-*.test.ts and bench/pg-*.mjs.
import { createSandbox } from '../../../sandbox/sandbox.js';
import type { Sandbox, SandboxOptions } from '../../../sandbox/sandbox.js';
import { startMain } from './child.js';
import type { Child } from './child.js';
import { startPg } from './pg.js';
import type { PgCluster } from './pg.js';
import { freePort, serveOn } from './servers.js';
import type { Served } from './servers.js';

export const FLEET_KEY = 'fleet-key-3e9a';
export const FLEET_SECRET = 'fleet-secret-51d0c7';
export const FLEET_WEBHOOK_SECRET = 'whsec_' + Buffer.from('fleet-webhook-secret-32-bytes!!!').toString('base64');

export interface Delivery {
  webhookId: string;
  billId: string;
  at: number;
}

export interface Instance {
  url: string;
  child: Child;
}

export interface Fleet {
  pg: PgCluster;
  databaseUrl: string;
  sandbox: Sandbox;
  /** The balancer: PUBLIC_URL of every instance, so callbacks and returns reach any live one. */
  url: string;
  instances: Instance[];
  /** Webhook POSTs the merchant received, in order. */
  deliveries: Delivery[];
  /** Resolves once `predicate` holds for the deliveries (checked on each new one). */
  deliveriesUntil(predicate: (d: Delivery[]) => boolean): Promise<void>;
  stop(): Promise<void>;
}

export interface FleetOptions {
  instances?: number;
  env?: Record<string, string>;
  sandbox?: Omit<SandboxOptions, 'key' | 'secret'>;
  /** An already running cluster (not stopped by the fleet). */
  pg?: PgCluster;
}

export async function startFleet(options: FleetOptions = {}): Promise<Fleet> {
  const ownPg = !options.pg;
  const pg = options.pg ?? await startPg();
  const databaseUrl = await pg.createDatabase();
  const sandbox = createSandbox({ key: FLEET_KEY, secret: FLEET_SECRET, sweepIntervalMs: 0, callbackRetryDelayMs: 100, ...options.sandbox });
  const servers: Served[] = [];
  servers.push(await serveOn((req) => sandbox.app.fetch(req)));
  const sandboxUrl = servers[0]!.url;

  const deliveries: Delivery[] = [];
  const waiters = new Set<() => void>();
  servers.push(await serveOn(async (req) => {
    const body = (await req.json()) as { data?: { billId?: string } };
    deliveries.push({ webhookId: req.headers.get('webhook-id') ?? '', billId: body.data?.billId ?? '?', at: performance.now() });
    for (const w of [...waiters]) w();
    return new Response(null, { status: 204 });
  }));
  const merchantUrl = servers[1]!.url;

  const instances: Instance[] = [];
  let next = 0;
  const balancer = await serveOn(async (req) => {
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.arrayBuffer();
    const { pathname, search } = new URL(req.url);
    for (let tried = 0; tried < instances.length; tried++) {
      const target = instances[next++ % instances.length]!;
      if (target.child.process.exitCode !== null || target.child.process.signalCode !== null) continue;
      try {
        return await fetch(target.url + pathname + search, { method: req.method, headers: req.headers, body, redirect: 'manual' });
      } catch {
        // Connection refused or reset: the next instance.
      }
    }
    return new Response('no instance', { status: 502 });
  });
  servers.push(balancer);

  const count = options.instances ?? 2;
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const child = startMain({
      PORT: String(port),
      PUBLIC_URL: balancer.url,
      BILL_API_BASE_URL: sandboxUrl,
      BILL_API_KEY: FLEET_KEY,
      BILL_API_SECRET: FLEET_SECRET,
      BILL_API_TIMEOUT_MS: '2000',
      DATABASE_URL: databaseUrl,
      CLIENT_AMOUNT_MIN: '1',
      CLIENT_AMOUNT_MAX: '1000',
      MERCHANT_WEBHOOK_URL: `${merchantUrl}/hook`,
      MERCHANT_WEBHOOK_SECRET: FLEET_WEBHOOK_SECRET,
      NOTICE_LEASE_MS: '1000',
      CREATE_RATE_LIMIT_PER_MINUTE: '100000',
      ...options.env,
    });
    instances.push({ url: `http://127.0.0.1:${port}`, child });
  }

  const stop = async () => {
    await Promise.all(instances.map((i) => i.child.kill('SIGKILL')));
    sandbox.close();
    await Promise.all(servers.map((s) => s.close()));
    if (ownPg) await pg.stop();
  };
  try {
    // Started together: their migrations race on the empty database.
    await Promise.all(instances.map((i) => i.child.ready));
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    pg, databaseUrl, sandbox, url: balancer.url, instances, deliveries,
    deliveriesUntil: (predicate) => new Promise<void>((resolve) => {
      const check = () => {
        if (!predicate(deliveries)) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    }),
    stop,
  };
}
