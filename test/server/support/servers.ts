// Loopback servers for tests: every one is closed by the test's after hook.
import { serve } from '@hono/node-server';
import type { HttpBindings } from '@hono/node-server';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { silentLogger } from '../../../server/log.js';
import { demoServer } from '../../../demo/server/index.js';
import { serveBillCheckout } from '../../../server/process/serve.js';
import type { ServeBillCheckoutOptions } from '../../../server/process/serve.js';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../support/ports.mjs';
import { defer } from './cleanup.js';

// test/support/ports.mjs's, offered here beside serveOn.
export { freePort };

export interface Served {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves `fetch` on 127.0.0.1 (port 0 = any free one). */
export async function serveOn(fetch: (req: Request, env: HttpBindings) => Response | Promise<Response>, port = 0): Promise<Served> {
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: (req, env) => fetch(req, env as HttpBindings), port, hostname: '127.0.0.1' }, () => resolve(s as Server)) as Server;
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/**
 * What `npm start` runs in a clone: serveBillCheckout with the demo's server part plugged in (as
 * server/main.ts does), from the package folder `root`, on a free port of 127.0.0.1 with its
 * SQLite file in `root`; closed after the test (before a `temporaryFolder` holding it is removed).
 */
export async function serveCheckoutIn(
  t: TestContext, root: string, env: Record<string, string> = {}, options: Partial<ServeBillCheckoutOptions> = {},
) {
  const port = await freePort();
  const fullEnv = {
    PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: `file:${join(root, 'data.sqlite')}`, ...env,
  };
  const demo = demoServer({ env: fullEnv, root });
  const running = await serveBillCheckout({
    ...demo,
    ...options,
    // The merchant's routes, then the demo's (as a merchant's own come first).
    ...(demo?.routes ? { routes: (app) => { options.routes?.(app); demo.routes!(app); } } : {}),
    root,
    log: silentLogger,
    env: fullEnv,
  });
  defer(t, () => running.close());
  return running;
}
