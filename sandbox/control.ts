// /_control: not part of the service; drives the sandbox from demos and tests. No auth.
import { Hono } from 'hono';
import { parseClockPatch } from './clock.js';
import { Code, SandboxError, ok } from './envelope.js';
import { parseFaults } from './faults.js';
import type { Sandbox } from './types.js';

type Controls = Pick<
  Sandbox,
  'pay' | 'confirm' | 'decline' | 'expire' | 'setFaults' | 'resetFaults' | 'faults' | 'stats' | 'clock' | 'setClockOffset' | 'reset' | 'forget'
>;

async function jsonOf(req: Request): Promise<unknown> {
  try {
    return JSON.parse(await req.text());
  } catch {
    throw new SandboxError(Code.invalidRequest, 'Body is not valid JSON');
  }
}

export function controlRoutes(sandbox: Controls): Hono {
  const app = new Hono();

  app.get('/faults', () => ok(sandbox.faults()));

  // A SandboxError thrown here is answered by the app's onError (failFrom) with its own code.
  app.put('/faults', async (c) => {
    sandbox.setFaults(parseFaults(await jsonOf(c.req.raw)));
    return ok(sandbox.faults());
  });

  app.delete('/faults', () => {
    sandbox.resetFaults();
    return ok(sandbox.faults());
  });

  for (const action of ['pay', 'confirm', 'decline', 'expire'] as const) {
    app.post(`/bills/:billId/${action}`, (c) => ok(sandbox[action](c.req.param('billId'))));
  }

  app.get('/stats', () => ok(sandbox.stats()));

  app.get('/clock', () => ok(sandbox.clock()));

  app.put('/clock', async (c) => {
    sandbox.setClockOffset(parseClockPatch(await jsonOf(c.req.raw)));
    return ok(sandbox.clock());
  });

  app.post('/reset', () => {
    sandbox.reset();
    return ok(null);
  });

  app.post('/forget', () => {
    sandbox.forget();
    return ok(null);
  });

  return app;
}
