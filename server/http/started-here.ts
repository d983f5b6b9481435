// Marks the browser that started a bill, so that its return from the pay page can be told from
// another device's (a phone that scanned the QR code). A browser starts a bill when it creates it or
// is shown it, whoever made it: the element's read, the pay link of the server-rendered checkout
// (GET …/pay), the status page. The QR code and its images say billUrl itself, so the phone that
// scans them is never marked. The cookie's Path is that bill's return URL: it is sent nowhere else,
// costs no other request anything, and holds no secret (only "1"); only a request with the bill's
// token gets it.
import type { Context } from 'hono';
import type { Config } from '../config.js';
import { returnPath } from '../domain/create/hook-urls.js';

export const STARTED_COOKIE = 'bc_started';
const DAY_S = 86_400;
/** Browsers cap Max-Age at 400 days. */
const MOST_S = 400 * DAY_S;
/** The path characters a cookie's Path may hold as they are. */
const COOKIE_PATH = /^\/[!#-+\--:<-~]*$/;

/** The bill's life and its grace, but at least a day: the service's clock may differ from ours. */
const maxAgeS = (leftMs: number) => Math.min(MOST_S, Math.max(DAY_S, Math.ceil(leftMs / 1000)));

/** The Set-Cookie value that marks a browser for one bill; null when the path could not be written in a cookie. */
function cookieOn(path: string, secure: boolean, maxAge: number): string | null {
  if (!COOKIE_PATH.test(path)) return null;
  return `${STARTED_COOKIE}=1; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** Whether the request carries the mark: the browser that started this bill. */
export function startedHere(c: Context): boolean {
  const cookies = c.req.header('cookie');
  return cookies !== undefined && cookies.split(';').some((pair) => pair.trim() === `${STARTED_COOKIE}=1`);
}

/** What a mark needs of a bill (a stored bill or a view). */
export interface MarkedBill {
  merchantReference: string;
  expiredOn: number | null;
}

export interface StartedMarks {
  /** Marks the browser that sent `c` as one that started `bill` (the answer's Set-Cookie). */
  mark(c: Pick<Context, 'req' | 'header'>, bill: MarkedBill): void;
  /**
   * Development only: the same return on the loopback name the bill was shown on, when the browser
   * came back on PUBLIC_URL's (its mark is on that other name); null otherwise.
   */
  elsewhere(c: Context, merchantReference: string): string | null;
  /**
   * RETURN_URL as this return should go on to it: in development, answered on a loopback name other
   * than PUBLIC_URL's, a RETURN_URL on PUBLIC_URL's host is sent to the same name (the shop the
   * customer opened); otherwise RETURN_URL itself.
   */
  returnUrl(c: Context): string;
}

/** The names of this machine that browsers keep apart (cookies, storage) though they reach the same server. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Bills remembered with the loopback name they were shown on (development: one person's bills). */
const MAX_REMEMBERED = 1_000;

function requestHostname(c: Pick<Context, 'req'>): string | null {
  const host = c.req.header('host');
  if (host === undefined) return null;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
}

export function startedMarks(
  config: Pick<Config, 'publicUrl' | 'production' | 'expiryGraceMs' | 'returnUrl'>,
  now: () => number,
): StartedMarks {
  // Worked out once: the status read marks every answer.
  const pathPrefix = returnPath(config.publicUrl, '');
  const secure = config.publicUrl.startsWith('https:');
  const publicHost = new URL(config.publicUrl).hostname;
  const returnUrl = new URL(config.returnUrl);
  // localhost and 127.0.0.1 are one host in development: a shop opened at one while PUBLIC_URL
  // names the other marks the browser on the name it used, which the return (on PUBLIC_URL) cannot
  // see. The bill's name is remembered here, and the return looks there once. Never in production,
  // where PUBLIC_URL is the one name the BFF is reached by.
  const loopback = !config.production && LOOPBACK.has(publicHost);
  const shownOn = new Map<string, string>();
  const cookies = new WeakMap<MarkedBill, { maxAge: number; cookie: string | null }>();
  /** The loopback name this request came on when it is not PUBLIC_URL's; null otherwise. */
  const alias = (c: Pick<Context, 'req'>): string | null => {
    if (!loopback) return null;
    const name = requestHostname(c);
    return name !== null && name !== publicHost && LOOPBACK.has(name) ? name : null;
  };

  return {
    mark(c, bill) {
      const t = now();
      const maxAge = maxAgeS((bill.expiredOn ?? t) + config.expiryGraceMs - t);
      // The status read marks every answer, mostly with the same cookie (a bill's Max-Age is a day
      // until near its expiry): made once per bill object and Max-Age.
      const made = cookies.get(bill);
      let cookie: string | null;
      if (made?.maxAge === maxAge) {
        cookie = made.cookie;
      } else {
        cookie = cookieOn(pathPrefix + bill.merchantReference, secure, maxAge);
        cookies.set(bill, { maxAge, cookie });
      }
      if (cookie === null) return;
      c.header('Set-Cookie', cookie);
      const name = alias(c);
      if (name === null) return;
      shownOn.delete(bill.merchantReference);
      if (shownOn.size >= MAX_REMEMBERED) shownOn.delete(shownOn.keys().next().value!);
      shownOn.set(bill.merchantReference, name);
    },
    elsewhere(c, merchantReference) {
      const name = loopback ? shownOn.get(merchantReference) : undefined;
      if (name === undefined || requestHostname(c) !== publicHost) return null;
      const there = new URL(c.req.url);
      there.hostname = name;
      there.search = '';
      return there.toString();
    },
    returnUrl(c) {
      const name = alias(c);
      if (name === null || returnUrl.hostname !== publicHost) return config.returnUrl;
      const there = new URL(config.returnUrl);
      there.hostname = name;
      return there.toString();
    },
  };
}
