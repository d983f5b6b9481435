import { Hono } from 'hono';
import { errorBody } from '../errors.js';
import type { Services } from '../services.js';

export function healthRoutes(s: Services): Hono {
  const app = new Hono();
  app.get('/healthz', async (c) => {
    c.header('Cache-Control', 'no-store');
    try {
      await s.store.ping();
      return c.json({ ok: true });
    } catch (error) {
      s.log.error('health check: store unavailable', { error });
      return c.json(errorBody('store_unavailable', 'The store does not answer.'), 503);
    }
  });
  return app;
}
