import type { MiddlewareHandler } from 'hono';

export const SERVER_TIME_HEADER = 'X-Server-Time';

export interface ServerTimeOptions {
  now: () => number;
}

/** Lets a widget correct its countdown for a skewed device clock. Stamped as the request arrives. */
export function serverTime({ now }: ServerTimeOptions): MiddlewareHandler {
  return function stampServerTime(c, next) {
    c.header(SERVER_TIME_HEADER, String(now()));
    return next();
  };
}
