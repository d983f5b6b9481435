// /_control: not part of the service; drives the sandbox from demos and tests. No auth.
import { Hono } from 'hono';
import { Code, SandboxError, failFrom, ok } from './envelope.js';
import { parseFaults } from './faults.js';
import type { Sandbox } from './types.js';

type Controls = Pick<Sandbox, 'pay' | 'decline' | 'expire' | 'setFaults' | 'resetFaults' | 'faults' | 'stats' | 'reset'>;

export function controlRoutes(sandbox: Controls): Hono {
  const app = new Hono();

  app.get('/faults', () => ok(sandbox.faults()));

  app.put('/faults', async (c) => {
    try {
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        throw new SandboxError(Code.invalidRequest, 'Body is not valid JSON');
      }
      sandbox.setFaults(parseFaults(body));
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

  app.post('/reset', () => {
    sandbox.reset();
    return ok(null);
  });

  return app;
}
