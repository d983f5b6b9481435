import type { Context, MiddlewareHandler } from 'hono';

// hono/secure-headers' defaults, set before the handler so that its response carries them from the start.
const PAGE_HEADERS: [string, string][] = [
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

/**
 * Pages the BFF serves load only their own scripts, styles and API (the demo, the not-found
 * page); a page with its own needs (the sandbox's pay page) sets its own policy.
 */
const CONTENT_SECURITY_POLICY = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; " +
  "form-action 'self'; frame-ancestors 'self'";
/**
 * None of these is used by a checkout page; a page that needs one is not ours. Only features
 * Chromium knows: it logs an error on every page for one it does not (`bluetooth` was one; Web
 * Bluetooth is not behind Permissions-Policy there). test/e2e/page-headers.test.ts checks the list.
 */
export const PERMISSIONS_POLICY = 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), hid=()';

/** The full set, for anything a browser may show as a page. */
export function stampPageSecurity(c: Context): void {
  for (const [name, value] of PAGE_HEADERS) c.header(name, value);
  c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  c.header('Permissions-Policy', PERMISSIONS_POLICY);
}

/**
 * JSON and event streams are read by scripts, never shown as a document: of the set only `nosniff`
 * matters to them (the rest guard pages: framing, opener, referrer, HSTS).
 */
export function stampApiSecurity(c: Pick<Context, 'header'>): void {
  c.header('X-Content-Type-Options', 'nosniff');
}

export function pageSecurityHeaders(): MiddlewareHandler {
  // Not async: passing next()'s promise on saves a promise and a tick per request.
  return function setPageSecurityHeaders(c, next) {
    stampPageSecurity(c);
    return next();
  };
}
