// What the checkout refuses, in its own terms: the one error whose code and message are shown to
// the caller, thrown by the domain and the HTTP layer alike. http/json-errors.ts maps each kind to a
// status; another transport could map it to its own.

/**
 * `invalid`: the request is malformed; `unauthorized`: it lacks valid credentials; `forbidden`: the
 * caller may not do this; `not_found`: no such thing; `conflict`: not now, in this state;
 * `too_large`: the request is larger than this checkout takes; `unsupported`: sent in a form this
 * checkout does not take; `unprocessable`: contradicts an earlier request; `too_many`: this caller
 * sent too many requests (try again after `retryAfterSeconds`); `upstream`: the payment service or
 * the merchant's order lookup failed or answered wrongly; `busy`: not now, for load or an outage
 * (the payment service asked for fewer requests, say): try again later, after `retryAfterSeconds`
 * when given.
 */
export type CheckoutErrorKind =
  | 'invalid' | 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'too_large' | 'unsupported' | 'unprocessable'
  | 'too_many' | 'upstream' | 'busy';

/** What a CheckoutError may carry besides its kind, code and message. */
export interface CheckoutErrorOptions {
  /** When the same call may work again, seconds (Retry-After over HTTP). */
  retryAfterSeconds?: number;
  /** More headers of the answer, when its transport has headers (WWW-Authenticate, say). */
  headers?: Readonly<Record<string, string>>;
}

/** The payment service asked for fewer requests: the caller tries again after `retryAfterSeconds`. */
export function serviceBusy(retryAfterSeconds: number): CheckoutError {
  return new CheckoutError('busy', 'upstream_busy', 'The payment service is busy; try again shortly.', retryAfterSeconds);
}

/** A refusal whose `code` and `message` are safe to show the caller. Throw it from a `resolveOrder` hook too. */
export class CheckoutError extends Error {
  override name = 'CheckoutError';
  readonly kind: CheckoutErrorKind;
  readonly code: string;
  /** When the same call may work again, seconds (a create still running). */
  readonly retryAfterSeconds?: number;
  /** More headers of the answer (none unless given). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(kind: CheckoutErrorKind, code: string, message: string, retry?: number | CheckoutErrorOptions) {
    super(message);
    this.kind = kind;
    this.code = code;
    const options = typeof retry === 'number' ? { retryAfterSeconds: retry } : retry;
    if (options?.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options?.headers ?? {};
  }
}
