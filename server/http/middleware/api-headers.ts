import type { Context, MiddlewareHandler } from 'hono';
import { corsStamp } from './cors.js';
import type { BrowserCorsOptions } from './cors.js';
import { stampApiSecurity } from './security-headers.js';
import { stampServerTime } from './server-time.js';

/** Sets the headers of one API answer; returns the whole answer when there is nothing more to do (a CORS preflight). */
export type HeaderStamp = (c: Context) => Response | undefined;

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
export function stampNoStore(c: Context): void {
  c.header('Cache-Control', 'no-store');
}

/** What every API answer carries: `nosniff`, `Cache-Control: no-store`, `X-Server-Time` (and `X-Service-Time`), and CORS on browser routes. */
export function apiHeaders({ now, serviceNow, cors }: ApiHeadersOptions): HeaderStamp {
  const stampCors = cors ? corsStamp(cors) : undefined;
  return function stampApiHeaders(c) {
    stampApiSecurity(c);
    stampNoStore(c);
    stampServerTime(c, now, serviceNow);
    return stampCors?.(c);
  };
}

/** The stamp as middleware, for the routes that can afford one (see app.ts). */
export function stampedBy(stamp: HeaderStamp): MiddlewareHandler {
  return function stampHeaders(c, next) {
    return Promise.resolve(stamp(c) ?? next());
  };
}
