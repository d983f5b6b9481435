import type { ContentfulStatusCode } from 'hono/utils/http-status';

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

export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}
