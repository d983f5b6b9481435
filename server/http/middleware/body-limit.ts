import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as streamedBodyLimit } from 'hono/body-limit';

export interface BodyLimitOptions {
  maxBytes: number;
  /** Answers a body over the limit, or throws (payloadTooLarge, json-errors.ts) where errors are guarded. */
  onError: (c: Context) => Response;
}

/**
 * Refuses bodies over `maxBytes`. A declared Content-Length is judged from the header alone:
 * hono/body-limit first touches `c.req.raw.body`, which makes @hono/node-server build a full web
 * Request (a stream and an AbortController) for every POST, about a tenth of a callback's CPU.
 * A chunked body is counted as it streams, by hono/body-limit.
 */
export function bodyLimit({ maxBytes, onError }: BodyLimitOptions): MiddlewareHandler {
  const streamed = streamedBodyLimit({ maxSize: maxBytes, onError });
  return function limitBody(c, next) {
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) return streamed(c, next);
    return Number(length) <= maxBytes ? next() : Promise.resolve(onError(c));
  };
}
