import type { Context } from 'hono';

export const SERVER_TIME_HEADER = 'X-Server-Time';
export const SERVICE_TIME_HEADER = 'X-Service-Time';

/**
 * Lets a widget correct its countdown for a skewed device clock. Stamped as the request arrives:
 * this process's time, and the payment service's as estimated from its answers (expiredOn is on
 * the service's clock, so the countdown runs by it).
 */
export function stampServerTime(c: Context, now: () => number, serviceNow?: () => number): void {
  c.header(SERVER_TIME_HEADER, String(now()));
  if (serviceNow) c.header(SERVICE_TIME_HEADER, String(serviceNow()));
}
