import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorBody } from '../../contract/bill-view.js';

/** An error that becomes `{"error": {code, message}}` with `status`; its message is safe to show. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly headers: Record<string, string>;

  constructor(status: ContentfulStatusCode, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** The body of every error answer: the description's `Error` schema (api-schemas.ts checks that they agree). */
export function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}
