import type { MiddlewareHandler } from 'hono';
import { constantTimeEqual } from '../constant-time.js';
import { ApiError } from '../errors.js';

export interface AdminAuthOptions {
  /** null: the admin routes do not exist (404). */
  token: string | null;
}

export function adminAuth({ token }: AdminAuthOptions): MiddlewareHandler {
  return async function requireAdmin(c, next) {
    if (token === null) throw new ApiError(404, 'not_found', 'No such resource.');
    const header = c.req.header('Authorization') ?? '';
    const match = /^Bearer[ \t]+(\S+)\s*$/i.exec(header);
    if (!match || !constantTimeEqual(match[1]!, token)) {
      throw new ApiError(401, 'unauthorized', 'A valid admin Bearer token is required.', {
        'WWW-Authenticate': 'Bearer realm="admin"',
      });
    }
    await next();
  };
}
