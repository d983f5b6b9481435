// How the checkout turns what a handler throws into `{"error": {code, message}}`. One mechanism,
// applied to every route where the app is assembled (app.ts), instead of Hono's onError: an app
// with its own onError has every handler wrapped in an async one when it is mounted with
// app.route(), and the status poll of a cached bill would then lose its synchronous answer.
// It is the one maker of error bodies: whatever else refuses throws a CheckoutError, or answers
// through errorAnswer where no handler is guarded.
import type { Context, Handler, MiddlewareHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorBody } from '../../contract/bill-view.js';
import type { CheckoutErrorKind } from '../domain/errors.js';
import { CheckoutError } from '../domain/errors.js';
import type { Logger } from '../log.js';
import { StoreUnavailableError } from '../store/errors.js';
import { stampNoStore } from './middleware/api-headers.js';
import { stampApiSecurity } from './middleware/security-headers.js';

const STATUS_OF: Record<CheckoutErrorKind, ContentfulStatusCode> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported: 415,
  unprocessable: 422,
  too_many: 429,
  upstream: 502,
  busy: 503,
};

const PAYLOAD_TOO_LARGE = 'payload_too_large';
const INTERNAL_ERROR = 'internal_error';
const STORE_UNAVAILABLE = 'store_unavailable';

/**
 * The body of every error answer: the description's `Error` schema (api-schemas.ts checks that
 * they agree). Exported for server/process until it answers through errorAnswer.
 */
export function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}

/** The refusal of a body over the limit (BODY_LIMIT_BYTES), wherever a body limit applies. */
export function payloadTooLarge(maxBytes: number): CheckoutError {
  return new CheckoutError('too_large', PAYLOAD_TOO_LARGE, `The body is larger than ${maxBytes} bytes.`);
}

/** The JSON answer of a refusal, with its Retry-After and other headers (for where nothing guards the handler). */
export function errorAnswer(c: Context, error: CheckoutError): Response {
  if (error.retryAfterSeconds !== undefined) c.header('Retry-After', String(error.retryAfterSeconds));
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(errorBody(error.code, error.message), STATUS_OF[error.kind]);
}

/** The `code` of the answer errorResponse makes of `error` (the label of refused creates, say). */
export function errorCode(error: unknown): string {
  if (error instanceof StoreUnavailableError) return STORE_UNAVAILABLE;
  if (error instanceof CheckoutError) return error.code;
  if (error instanceof HTTPException) return httpExceptionCode(error.status);
  return INTERNAL_ERROR;
}

function httpExceptionCode(status: number): string {
  return status === 413 ? PAYLOAD_TOO_LARGE : status >= 500 ? INTERNAL_ERROR : 'bad_request';
}

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

/**
 * The JSON error answer for `error`; unexpected errors are logged and never shown. The error is
 * left on `c.error` (as Hono's own onError would), for a middleware before the handler to read.
 */
export function errorResponse(c: Context, error: unknown, log: Logger): Response {
  c.error = error instanceof Error ? error : new Error(String(error));
  if (error instanceof StoreUnavailableError) {
    // Not the error's text: it names the database's host and what the operator should do.
    logOutage(c, error, log);
    return errorAnswer(c, new CheckoutError('busy', STORE_UNAVAILABLE, 'The checkout cannot reach its database right now; try again shortly.', STORE_RETRY_AFTER_SECONDS));
  }
  if (error instanceof CheckoutError) return errorAnswer(c, error);
  if (error instanceof HTTPException) {
    const status = error.status;
    return c.json(errorBody(httpExceptionCode(status), status >= 500 ? 'Something went wrong on our side.' : 'The request was refused.'), status);
  }
  // The route, not the path: a path may carry a bill's hook or return token.
  log.error('unhandled error', { method: c.req.method, route: c.req.routePath, error });
  return c.json(errorBody(INTERNAL_ERROR, 'Something went wrong on our side.'), 500);
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
