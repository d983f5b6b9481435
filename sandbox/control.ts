// /_control: not part of the service; drives the sandbox from demos and tests. No auth.
import { Hono } from 'hono';
import { parseClockPatch } from './clock.js';
import { Code, SandboxError, failFrom, ok } from './envelope.js';
import { parseFaults } from './faults.js';
import type { Sandbox } from './types.js';

type Controls = Pick<
  Sandbox, 'pay' | 'decline' | 'expire' | 'setFaults' | 'resetFaults' | 'faults' | 'stats' | 'clock' | 'setClockOffset' | 'reset'
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

  app.put('/faults', async (c) => {
    try {
      sandbox.setFaults(parseFaults(await jsonOf(c.req.raw)));
      return ok(sandbox.faults());
    } catch (err) {
      return failFrom(err);
    }
  });

  app.delete('/faults', () => {
    sandbox.resetFaults();
    return ok(sandbox.faults());
  });

  for (const action of ['pay', 'decline', 'expire'] as const) {
    app.post(`/bills/:billId/${action}`, (c) => {
      try {
        return ok(sandbox[action](c.req.param('billId')));
      } catch (err) {
        return failFrom(err);
      }
    });
  }

  app.get('/stats', () => ok(sandbox.stats()));

  app.get('/clock', () => ok(sandbox.clock()));

  app.put('/clock', async (c) => {
    try {
      sandbox.setClockOffset(parseClockPatch(await jsonOf(c.req.raw)));
      return ok(sandbox.clock());
    } catch (err) {
      return failFrom(err);
    }
  });

  app.post('/reset', () => {
    sandbox.reset();
    return ok(null);
  });

  return app;
}
