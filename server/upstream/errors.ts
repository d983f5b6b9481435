// One error class per cause, so callers branch on `instanceof` and read the fields they need.
// Messages say what to change; they never carry the secret or a signature.

/**
 * The client cannot be built as configured (a base URL, a cancel template or a signer that cannot
 * work). The message names the setting and says what it must be.
 */
export class BillApiConfigError extends Error {
  override name = 'BillApiConfigError';
}

export type BillOperation = 'create' | 'list' | 'findByMerchantReference' | 'requery' | 'cancel' | 'bind';

export interface BillApiErrorOptions {
  operation: BillOperation;
  /** Transient: the same call may succeed later. Never true while the outcome is unknown. */
  retryable: boolean;
  /** Create only: the service may have made the bill; settle with findByMerchantReference. */
  outcomeUnknown?: boolean;
  cause?: unknown;
}

export class BillApiError extends Error {
  override name = 'BillApiError';
  readonly operation: BillOperation;
  readonly retryable: boolean;
  readonly outcomeUnknown: boolean;
  /** HTTP attempts made before giving up (more than 1 only for retried operations). */
  attempts = 1;

  constructor(message: string, options: BillApiErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.operation = options.operation;
    this.outcomeUnknown = options.outcomeUnknown ?? false;
    // Repeating a create that may have succeeded makes a second bill: settle it first.
    this.retryable = options.retryable && !this.outcomeUnknown;
  }
}

/** The service could not be reached, or the connection broke before a full answer arrived. */
export class BillApiNetworkError extends BillApiError {
  override name = 'BillApiNetworkError';
}

/** No full answer within the per-attempt timeout (BILL_API_TIMEOUT_MS). */
export class BillApiTimeoutError extends BillApiError {
  override name = 'BillApiTimeoutError';
  readonly timeoutMs: number;
  constructor(message: string, options: BillApiErrorOptions & { timeoutMs: number }) {
    super(message, options);
    this.timeoutMs = options.timeoutMs;
  }
}

/** The caller's AbortSignal fired. Named `AbortError` so generic abort checks recognise it. */
export class BillApiAbortError extends BillApiError {
  override name = 'AbortError';
}

/** The request was never sent because the configured signer failed or returned no text. */
export class BillApiSignerError extends BillApiError {
  override name = 'BillApiSignerError';
}

interface EnvelopeFacts {
  /** The envelope's code and message when the body had them, else null. */
  code: number | null;
  serviceMessage: string | null;
}

/** HTTP 401 or 403: the service refused the Key or the Sign. */
export class BillApiAuthError extends BillApiError implements EnvelopeFacts {
  override name = 'BillApiAuthError';
  readonly httpStatus: number;
  readonly code: number | null;
  readonly serviceMessage: string | null;
  constructor(message: string, options: BillApiErrorOptions & EnvelopeFacts & { httpStatus: number }) {
    super(message, options);
    this.httpStatus = options.httpStatus;
    this.code = options.code;
    this.serviceMessage = options.serviceMessage;
  }
}

/**
 * The service refused for load (HTTP 429, or 503 with Retry-After), or the budget toward it could
 * not give this call a turn within its wait (then `httpStatus` is null: nothing was sent).
 */
export class BillApiThrottledError extends BillApiError {
  override name = 'BillApiThrottledError';
  readonly httpStatus: number | null;
  /** When to try again, ms from now: the service's Retry-After or the budget's estimate. */
  readonly retryAfterMs: number;
  /** The same in whole seconds, at least 1: a `Retry-After` header's value. */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.retryAfterMs / 1000));
  }
  constructor(message: string, options: BillApiErrorOptions & { retryAfterMs: number; httpStatus?: number }) {
    super(message, options);
    this.httpStatus = options.httpStatus ?? null;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Any other non-2xx answer without a usable envelope. */
export class BillApiHttpError extends BillApiError {
  override name = 'BillApiHttpError';
  readonly httpStatus: number;
  constructor(message: string, options: BillApiErrorOptions & { httpStatus: number }) {
    super(message, options);
    this.httpStatus = options.httpStatus;
  }
}

/** The service answered an envelope whose `code` is not in BILL_API_OK_CODES. */
export class BillApiRejectedError extends BillApiError {
  override name = 'BillApiRejectedError';
  readonly code: number;
  readonly serviceMessage: string;
  readonly httpStatus: number;
  constructor(message: string, options: BillApiErrorOptions & { code: number; serviceMessage: string; httpStatus: number }) {
    super(message, options);
    this.code = options.code;
    this.serviceMessage = options.serviceMessage;
    this.httpStatus = options.httpStatus;
  }
}

/** A success answer this client cannot read: not JSON, or a field of the wrong shape. */
export class BillApiResponseError extends BillApiError {
  override name = 'BillApiResponseError';
  readonly httpStatus: number;
  /** Dotted path of the offending field (`data.lists[2].billAmount`), or null when the body is not JSON. */
  readonly field: string | null;
  /**
   * Create only: the bill the service made and named in an answer that cannot be used (its
   * expiredOn cannot be a bill's). It exists there: withdraw it with cancelBill. Null otherwise.
   */
  readonly madeBillId: string | null;
  constructor(message: string, options: BillApiErrorOptions & { httpStatus: number; field: string | null; madeBillId?: string }) {
    super(message, options);
    this.httpStatus = options.httpStatus;
    this.field = options.field;
    this.madeBillId = options.madeBillId ?? null;
  }
}
