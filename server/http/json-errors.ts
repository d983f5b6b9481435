// How the checkout turns what a handler throws into `{"error": {code, message}}`. One mechanism,
// applied to every route where the app is assembled (app.ts), instead of Hono's onError: an app
// with its own onError has every handler wrapped in an async one when it is mounted with
// app.route(), and the status poll of a cached bill would then lose its synchronous answer.
import type { Context, Handler, MiddlewareHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { CheckoutErrorKind } from '../domain/errors.js';
import { CheckoutError } from '../domain/errors.js';
import type { Logger } from '../log.js';
import { StoreUnavailableError } from '../store/errors.js';
import { ApiError, errorBody } from './errors.js';
import { stampNoStore } from './middleware/api-headers.js';
import { stampApiSecurity } from './middleware/security-headers.js';

const STATUS_OF: Record<CheckoutErrorKind, ContentfulStatusCode> = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  upstream: 502,
  busy: 503,
};

/**
 * Retry-After of a 503 store_unavailable, seconds: a database restart is over in a few seconds (a
 * failover in tens), so a waiting customer's next try lands soon after it without retrying in a
 * tight loop meanwhile; the same as the API's other 503 (too_many_streams).
 */
export const STORE_RETRY_AFTER_SECONDS = 5;
/** At most one log line per this many ms about answers refused while the store is out of reach. */
const OUTAGE_LOG_EVERY_MS = 10_000;
const outageLogs = new WeakMap<Logger, { at: number; refused: number }>();

/** Logs the outage (the error's message says what to fix) once in a while, not once per request. */
function logOutage(c: Context, error: StoreUnavailableError, log: Logger): void {
  const now = Date.now();
  const last = outageLogs.get(log);
  if (last && now - last.at < OUTAGE_LOG_EVERY_MS) {
    last.refused++;
    return;
  }
  outageLogs.set(log, { at: now, refused: 0 });
  log.error('store unavailable: answering 503', {
    // The route, not the path: a path may carry a bill's hook token.
    method: c.req.method, route: c.req.routePath, error, cause: error.cause,
    ...(last ? { refusedSinceLastLine: last.refused } : {}),
  });
}

/** The JSON error answer for `error`; unexpected errors are logged and never shown. */
export function errorResponse(c: Context, error: unknown, log: Logger): Response {
  if (error instanceof StoreUnavailableError) {
    // Not the error's text: it names the database's host and what the operator should do.
    logOutage(c, error, log);
    c.header('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
    return c.json(errorBody('store_unavailable', 'The checkout cannot reach its database right now; try again shortly.'), 503);
  }
  if (error instanceof ApiError) {
    for (const [k, v] of Object.entries(error.headers)) c.header(k, v);
    return c.json(errorBody(error.code, error.message), error.status);
  }
  if (error instanceof CheckoutError) {
    if (error.retryAfterSeconds !== undefined) c.header('Retry-After', String(error.retryAfterSeconds));
    return c.json(errorBody(error.code, error.message), STATUS_OF[error.kind]);
  }
  if (error instanceof HTTPException) {
    const status = error.status;
    const code = status === 413 ? 'payload_too_large' : status >= 500 ? 'internal_error' : 'bad_request';
    return c.json(errorBody(code, status >= 500 ? 'Something went wrong on our side.' : 'The request was refused.'), status);
  }
  // The route, not the path: a path may carry a bill's hook or return token.
  log.error('unhandled error', { method: c.req.method, route: c.req.routePath, error });
  return c.json(errorBody('internal_error', 'Something went wrong on our side.'), 500);
}

/**
 * Wraps a handler or middleware so that what it throws, or rejects with, becomes the JSON error
 * answer. A handler that answers synchronously still does: nothing here adds a promise.
 */
export function jsonErrors(log: Logger): <H extends Handler | MiddlewareHandler>(handler: H) => H {
  return (handler) => {
    const guarded: MiddlewareHandler = (c, next) => {
      let result: ReturnType<MiddlewareHandler>;
      try {
        result = (handler as MiddlewareHandler)(c, next);
      } catch (error) {
        return Promise.resolve(errorResponse(c, error, log));
      }
      return result instanceof Promise ? result.catch((error: unknown) => errorResponse(c, error, log)) : result;
    };
    return guarded as typeof handler;
  };
}

export function notFound(): NotFoundHandler {
  return function onNotFound(c: Context) {
    stampApiSecurity(c);
    stampNoStore(c);
    return c.json(errorBody('not_found', 'No such resource.'), 404);
  };
}
