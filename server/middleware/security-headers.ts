import type { MiddlewareHandler } from 'hono';

// hono/secure-headers' defaults, set before the handler so that its response carries them from the start.
const HEADERS: [string, string][] = [
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=15552000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'SAMEORIGIN'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
];

export function securityHeaders(): MiddlewareHandler {
  return async function setSecurityHeaders(c, next) {
    for (const [name, value] of HEADERS) c.header(name, value);
    await next();
  };
}
