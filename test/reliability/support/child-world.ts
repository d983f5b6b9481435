// A sandbox served here and server/main.ts in its own process against it, on a temp SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { createSandbox } from '../../../sandbox/sandbox.js';
import type { Sandbox, SandboxOptions } from '../../../sandbox/sandbox.js';
import { startMain } from '../../server/support/child.js';
import type { Child } from '../../server/support/child.js';
import { freePort, serveOn } from '../../server/support/servers.js';

export const CHILD_KEY = 'child-key-0f4d2a';
export const CHILD_SECRET = 'child-secret-77b1e0c4';

export interface ChildWorld {
  base: string;
  sandbox: Sandbox;
  /** The BFF process now running (replaced by `restart`). */
  child: Child;
  env: Record<string, string>;
  /** What every BFF process of this world printed, in start order. */
  outputs: (() => string)[];
  /** SIGKILLs the BFF and starts it again on the same port and database. */
  restart(): Promise<void>;
}

export async function startChildWorld(
  t: TestContext,
  env: Record<string, string> = {},
  sandboxOptions: Omit<SandboxOptions, 'key' | 'secret'> = {},
): Promise<ChildWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'bff-child-'));
  const sandbox = createSandbox({
    key: CHILD_KEY, secret: CHILD_SECRET, callbackRetryDelayMs: 200, sweepIntervalMs: 0, ...sandboxOptions,
  });
  const sandboxServer = await serveOn((req) => sandbox.app.fetch(req));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const fullEnv = {
    PORT: String(port),
    PUBLIC_URL: base,
    BILL_API_BASE_URL: sandboxServer.url,
    BILL_API_KEY: CHILD_KEY,
    BILL_API_SECRET: CHILD_SECRET,
    DATABASE_URL: `file:${join(dir, 'bff.sqlite')}`,
    CLIENT_AMOUNT_MIN: '1',
    CLIENT_AMOUNT_MAX: '500',
    ...env,
  };
  const first = startMain(fullEnv);
  const world: ChildWorld = {
    base,
    sandbox,
    child: first,
    env: fullEnv,
    outputs: [first.output],
    async restart() {
      await world.child.kill('SIGKILL');
      world.child = startMain(fullEnv);
      world.outputs.push(world.child.output);
      await world.child.ready;
    },
  };
  t.after(async () => {
    await world.child.kill('SIGKILL');
    sandbox.close();
    await sandboxServer.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await first.ready;
  return world;
}
