// Marks the browser that created a bill, so that its return from the pay page can be told from
// another device's (a phone that scanned the QR code). The cookie's Path is that bill's return URL:
// it is sent nowhere else, costs no other request anything, and holds no secret (only "1").
import type { Context } from 'hono';
import { returnPath } from '../domain/create/hook-urls.js';

export const STARTED_COOKIE = 'bc_started';
const DAY_S = 86_400;
/** Browsers cap Max-Age at 400 days. */
const MOST_S = 400 * DAY_S;

export interface StartedCookieOptions {
  /** PUBLIC_URL: its path prefix and scheme (Secure on https). */
  publicUrl: string;
  merchantReference: string;
  /** The bill's expiry (service clock) and the grace after it during which a payment can still land. */
  expiredOn: number;
  graceMs: number;
  now: number;
}

/** The Set-Cookie value of a create's answer; null when the path could not be written in a cookie. */
export function startedCookie({ publicUrl, merchantReference, expiredOn, graceMs, now }: StartedCookieOptions): string | null {
  const path = returnPath(publicUrl, merchantReference);
  if (!/^\/[!#-+\--:<-~]*$/.test(path)) return null;
  // The bill's life and its grace, but at least a day: the service's clock may differ from ours.
  const maxAge = Math.min(MOST_S, Math.max(DAY_S, Math.ceil((expiredOn + graceMs - now) / 1000)));
  const secure = publicUrl.startsWith('https:') ? '; Secure' : '';
  return `${STARTED_COOKIE}=1; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

/** Whether the request carries the mark: the browser that started this bill. */
export function startedHere(c: Context): boolean {
  const cookies = c.req.header('cookie');
  return cookies !== undefined && cookies.split(';').some((pair) => pair.trim() === `${STARTED_COOKIE}=1`);
}
