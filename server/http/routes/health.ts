import { Hono } from 'hono';
import type { Ok } from '../api-schemas.js';
import { CheckoutError } from '../../domain/errors.js';
import type { Services } from '../services.js';

const OK: Ok = { ok: true };
const storeDown = () => new CheckoutError('busy', 'store_unavailable', 'The store does not answer.');

export function healthRoutes(s: Services): Hono {
  const app = new Hono();
  app.get('/healthz', async (c) => {
    c.header('Cache-Control', 'no-store');
    try {
      await s.store.ping();
      return c.json(OK);
    } catch (error) {
      s.log.error('health check: store unavailable', { error });
      throw storeDown();
    }
  });
  // Ready to take traffic: the store answers and the service was reachable on the last call.
  app.get('/readyz', async (c) => {
    c.header('Cache-Control', 'no-store');
    try {
      await s.store.ping();
    } catch (error) {
      s.log.error('readiness check: store unavailable', { error });
      throw storeDown();
    }
    if (!s.upstreamReachable()) {
      throw new CheckoutError('busy', 'upstream_unreachable', 'The last call to the payment service got no answer (network error or timeout) within the last 30 s.');
    }
    return c.json(OK);
  });
  return app;
}
