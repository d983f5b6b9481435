import { Hono } from 'hono';
import type { Handler, MiddlewareHandler } from 'hono';
import type { Metrics } from '../../metrics/metrics.js';
import { constantTimeEqual } from '../constant-time.js';
import { CheckoutError } from '../../domain/errors.js';
import { stampApiSecurity } from '../middleware/security-headers.js';

/** GET /metrics: the Prometheus text exposition of `metrics`, never cached. */
export function metricsHandler(metrics: Pick<Metrics, 'scrape'>): Handler {
  return async (c) => {
    const { contentType, text } = await metrics.scrape();
    stampApiSecurity(c);
    c.header('Cache-Control', 'no-store');
    return c.body(text, 200, { 'Content-Type': contentType });
  };
}

/** Bearer METRICS_TOKEN, compared in constant time; without a token the route does not exist (404). */
function metricsAuth(token: string | null): MiddlewareHandler {
  return async function requireMetricsToken(c, next) {
    if (token === null) throw new CheckoutError('not_found', 'not_found', 'No such resource.');
    const match = /^Bearer[ \t]+(\S+)\s*$/i.exec(c.req.header('Authorization') ?? '');
    if (!match || !constantTimeEqual(match[1]!, token)) {
      throw new CheckoutError('unauthorized', 'unauthorized', 'A valid metrics Bearer token is required.', {
        headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
      });
    }
    await next();
  };
}

export function metricsRoutes(s: { config: { metricsToken: string | null }; metrics: Pick<Metrics, 'scrape'> }): Hono {
  const app = new Hono();
  app.get('/metrics', metricsAuth(s.config.metricsToken), metricsHandler(s.metrics));
  return app;
}
