import type { MiddlewareHandler } from 'hono';
import { CheckoutError } from '../../domain/errors.js';

export interface CrossSiteGuardOptions {
  /** ALLOWED_ORIGINS; `*` allows any. The request's own origin is always allowed. */
  origins: string[];
}

/**
 * Another site can make its visitors' browsers POST here: a form or a `text/plain` fetch needs no
 * CORS preflight. So a browser-facing POST must be JSON (which does need one) and, when the
 * browser names its origin, come from an allowed one.
 */
export function crossSiteGuard({ origins }: CrossSiteGuardOptions): MiddlewareHandler {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  return async function refuseCrossSite(c, next) {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      throw new CheckoutError('unsupported', 'unsupported_media_type', 'Send this request with Content-Type: application/json (a body of {} will do).');
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && !any && !allowed.has(origin) && origin !== new URL(c.req.url).origin) {
      throw new CheckoutError('forbidden', 'origin_not_allowed', "This page's origin may not call the API; the merchant lists allowed origins in ALLOWED_ORIGINS.");
    }
    await next();
  };
}
