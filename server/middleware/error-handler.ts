import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from '../log.js';
import { ApiError, errorBody } from './errors.js';
import { stampApiSecurity } from './security-headers.js';

export interface ErrorHandlerOptions {
  log: Logger;
}

/** Every thrown error becomes the JSON error body; unexpected ones are logged and never shown. */
export function errorHandler({ log }: ErrorHandlerOptions): ErrorHandler {
  return function onError(err: Error, c: Context) {
    if (err instanceof ApiError) {
      for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
      return c.json(errorBody(err.code, err.message), err.status);
    }
    if (err instanceof HTTPException) {
      const status = err.status;
      const code = status === 413 ? 'payload_too_large' : status >= 500 ? 'internal_error' : 'bad_request';
      return c.json(errorBody(code, status >= 500 ? 'Something went wrong on our side.' : 'The request was refused.'), status);
    }
    log.error('unhandled error', { method: c.req.method, path: c.req.path, error: err });
    return c.json(errorBody('internal_error', 'Something went wrong on our side.'), 500);
  };
}

export function notFound(): NotFoundHandler {
  return function onNotFound(c: Context) {
    stampApiSecurity(c);
    return c.json(errorBody('not_found', 'No such resource.'), 404);
  };
}
