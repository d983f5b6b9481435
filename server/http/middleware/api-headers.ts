import type { Context, MiddlewareHandler } from 'hono';
import { corsStamp } from './cors.js';
import type { BrowserCorsOptions } from './cors.js';
import { stampApiSecurity } from './security-headers.js';
import { stampServerTime } from './server-time.js';

/**
 * What a header stamp writes to and reads: a context, or a stand-in that keeps the headers
 * itself (the status read's, routes/bills.ts).
 */
export type StampTarget = Pick<Context, 'req' | 'header'>;

/** Sets the headers of one API answer; true when nothing is left but to answer 204 with them (a CORS preflight). */
export type HeaderStamp = (c: StampTarget) => boolean;

export interface ApiHeadersOptions {
  now: () => number;
  /** The service's time (X-Service-Time), when known. */
  serviceNow?: () => number;
  /** For routes a browser calls from the merchant's page; none for server-to-server routes. */
  cors?: BrowserCorsOptions;
}

/**
 * No cache may keep an API answer: a create's carries the bill's token, a status changes, an
 * error is about this request. Set before the handler, so that the error mechanism's answers
 * (json-errors.ts) carry it too; an event stream sets its own `no-cache` over it.
 */
export function stampNoStore(c: Pick<Context, 'header'>): void {
  c.header('Cache-Control', 'no-store');
}

/** What every API answer carries: `nosniff`, `Cache-Control: no-store`, `X-Server-Time` (and `X-Service-Time`), and CORS on browser routes. */
export function apiHeaders({ now, serviceNow, cors }: ApiHeadersOptions): HeaderStamp {
  const stampCors = cors ? corsStamp(cors) : undefined;
  return function stampApiHeaders(c) {
    stampApiSecurity(c);
    stampNoStore(c);
    stampServerTime(c, now, serviceNow);
    return stampCors?.(c) ?? false;
  };
}

/** The stamp as middleware, for the routes that can afford one (see app.ts). */
export function stampedBy(stamp: HeaderStamp): MiddlewareHandler {
  return function stampHeaders(c, next) {
    return Promise.resolve(stamp(c) ? c.body(null, 204) : next());
  };
}
