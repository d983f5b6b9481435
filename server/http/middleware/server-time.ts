import type { Context } from 'hono';

export const SERVER_TIME_HEADER = 'X-Server-Time';

/** Lets a widget correct its countdown for a skewed device clock. Stamped as the request arrives. */
export function stampServerTime(c: Context, now: () => number): void {
  c.header(SERVER_TIME_HEADER, String(now()));
}
