import type { Context } from 'hono';

export interface BrowserCorsOptions {
  /** Allowed origins; `*` allows any. */
  origins: string[];
  allowMethods: string[];
  allowHeaders: string[];
  exposeHeaders: string[];
  maxAgeSeconds: number;
  /**
   * `Access-Control-Allow-Credentials: true`: the create is sent with credentials so that the
   * browser keeps the cookie that marks it (started-here.ts). Browsers refuse a credentialed answer
   * that allows `*`, so with `*` the request's origin is named instead (and `Vary: Origin`): no
   * answer of this API gives a cookie any authority, the bill's token does.
   */
  credentials?: boolean;
}

/** Sets the CORS headers of one request; true for a preflight (`OPTIONS`), which is answered 204 with them and nothing else. */
export type CorsStamp = (c: Pick<Context, 'req' | 'header'>) => boolean;

/**
 * CORS for the browser routes. Headers are set with `c.header()` before the handler runs, so the
 * handler's response is built once with them (hono/cors edits `c.res` afterwards, which costs a
 * second Response per request and takes @hono/node-server off its fast path).
 */
export function corsStamp(options: BrowserCorsOptions): CorsStamp {
  const any = options.origins.includes('*');
  const allowed = new Set(options.origins);
  const methods = options.allowMethods.join(',');
  const headers = options.allowHeaders.join(',');
  const expose = options.exposeHeaders.join(',');
  const maxAge = String(options.maxAgeSeconds);
  const credentials = options.credentials === true;

  return function stampCors(c) {
    const origin = c.req.header('origin');
    const allow = origin === undefined ? null : any && !credentials ? '*' : any || allowed.has(origin) ? origin : null;
    if (!any || credentials) c.header('Vary', 'Origin');
    if (allow !== null) {
      c.header('Access-Control-Allow-Origin', allow);
      c.header('Access-Control-Expose-Headers', expose);
      if (credentials) c.header('Access-Control-Allow-Credentials', 'true');
    }
    if (c.req.method !== 'OPTIONS') return false;
    if (allow !== null) {
      c.header('Access-Control-Allow-Methods', methods);
      c.header('Access-Control-Allow-Headers', headers);
      c.header('Access-Control-Max-Age', maxAge);
    }
    return true;
  };
}
