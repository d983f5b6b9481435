// What the checkout refuses, in its own terms: the HTTP layer maps each kind to a status
// (http/errors.ts), another transport could map it to its own.

/**
 * `invalid`: the request is malformed; `forbidden`: the caller may not do this; `not_found`: no such
 * thing; `conflict`: not now, in this state; `unprocessable`: contradicts an earlier request;
 * `upstream`: the payment service or the merchant's order lookup failed or answered wrongly;
 * `busy`: the payment service asked for fewer requests (try again after `retryAfterSeconds`).
 */
export type CheckoutErrorKind = 'invalid' | 'forbidden' | 'not_found' | 'conflict' | 'unprocessable' | 'upstream' | 'busy';

/** The payment service asked for fewer requests: the caller tries again after `retryAfterSeconds`. */
export function serviceBusy(retryAfterSeconds: number): CheckoutError {
  return new CheckoutError('busy', 'upstream_busy', 'The payment service is busy; try again shortly.', retryAfterSeconds);
}

/** A refusal whose `code` and `message` are safe to show the caller. Throw it from a `resolveOrder` hook too. */
export class CheckoutError extends Error {
  override name = 'CheckoutError';
  constructor(
    readonly kind: CheckoutErrorKind,
    readonly code: string,
    message: string,
    /** When the same call may work again, seconds (a create still running). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}
