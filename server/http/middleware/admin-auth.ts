import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from '../../log.js';
import { constantTimeEqual } from '../constant-time.js';
import { CheckoutError } from '../../domain/errors.js';
import { attemptThrottle } from './attempt-throttle.js';

/** Refused admin credentials a client may send at once; the allowance refills over ADMIN_FAILURE_WINDOW_MS. */
export const ADMIN_MAX_FAILURES = 10;
/** The window of ADMIN_MAX_FAILURES, and how long a client that sent one more is refused (429), right token included. */
export const ADMIN_FAILURE_WINDOW_MS = 60_000;

export interface AdminAuthOptions {
  /** null: the admin routes do not exist (404). */
  token: string | null;
  /** Whom refused tokens are counted against (the app's clientKey: the client's address). */
  clientKey: (c: Context) => string;
  now: () => number;
  /** Each refusal is logged once at warn, never with what was sent. */
  log: Logger;
  /** Refused tokens allowed per client at once (default ADMIN_MAX_FAILURES). */
  maxFailures?: number;
  /** Their window, and the lock-out of a client past them (default ADMIN_FAILURE_WINDOW_MS). */
  failureWindowMs?: number;
}

/**
 * The admin API's Bearer token, compared in constant time. A client's refused tokens (missing or
 * wrong) draw on a bucket of `maxFailures` refilled over `failureWindowMs`; the one past it locks the
 * client out for the window: 429 too_many_attempts with Retry-After to whatever it sends, the right
 * token too, and without comparing it. Other clients are not concerned.
 */
export function adminAuth({
  token, clientKey, now, log, maxFailures = ADMIN_MAX_FAILURES, failureWindowMs = ADMIN_FAILURE_WINDOW_MS,
}: AdminAuthOptions): MiddlewareHandler {
  const throttle = attemptThrottle({ limit: maxFailures, windowMs: failureWindowMs, key: clientKey, now });

  const tooMany = (c: Context, reason: string) => {
    const retryAfter = throttle.lockedFor(c);
    log.warn('admin: request refused, client throttled', {
      reason, client: clientKey(c), method: c.req.method, path: c.req.path, retryAfterSeconds: retryAfter,
    });
    return new CheckoutError('too_many', 'too_many_attempts', 'Too many attempts with a wrong admin token; try again later.', retryAfter);
  };

  return async function requireAdmin(c, next) {
    if (token === null) throw new CheckoutError('not_found', 'not_found', 'No such resource.');
    if (throttle.lockedFor(c) > 0) throw tooMany(c, 'locked_out');
    const header = c.req.header('Authorization') ?? '';
    const match = /^Bearer[ \t]+(\S+)\s*$/i.exec(header);
    if (!match || !constantTimeEqual(match[1]!, token)) {
      const reason = match ? 'wrong_token' : header === '' ? 'no_token' : 'not_bearer';
      if (await throttle.failed(c)) throw tooMany(c, reason);
      log.warn('admin: request refused', { reason, client: clientKey(c), method: c.req.method, path: c.req.path });
      throw new CheckoutError('unauthorized', 'unauthorized', 'A valid admin Bearer token is required.', {
        headers: { 'WWW-Authenticate': 'Bearer realm="admin"' },
      });
    }
    await next();
  };
}
