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

export interface SecurityHeadersOptions {
  /**
   * Paths under this prefix answer JSON or event streams to scripts, never a document: they carry
   * only `nosniff`, the one header of the set that matters to them (the rest guard pages: framing,
   * opener, referrer, HSTS). Default: none, the full set everywhere.
   */
  apiPrefix?: string;
}

export function securityHeaders({ apiPrefix }: SecurityHeadersOptions = {}): MiddlewareHandler {
  // Not async: passing next()'s promise on saves a promise and a tick per request.
  return function setSecurityHeaders(c, next) {
    if (apiPrefix !== undefined && c.req.path.startsWith(apiPrefix)) {
      c.header('X-Content-Type-Options', 'nosniff');
    } else {
      for (const [name, value] of HEADERS) c.header(name, value);
    }
    return next();
  };
}
