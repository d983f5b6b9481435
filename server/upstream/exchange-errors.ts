// What an exchange with the service that got no answer comes to: the signer failed, no full answer
// in time, the service out of reach, or the caller gave up. A create sent and not answered may have
// made the bill all the same (outcomeUnknown).
import {
  BillApiAbortError, BillApiError, BillApiNetworkError, BillApiResponseError, BillApiSignerError, BillApiTimeoutError, type BillOperation,
} from './errors.js';
import { label, UNKNOWN_OUTCOME } from './service-text.js';

/**
 * The configured signer threw: nothing was sent. An error of its own request (SignInput.send) is
 * kept as it is, so that a token call that got no answer is retried like any such exchange.
 */
export function signerFailed(op: BillOperation, signer: string, err: unknown, clean: (text: string) => string): BillApiError {
  if (err instanceof BillApiError && err.operation === op && !err.outcomeUnknown) return err;
  const why = err instanceof Error ? err.message : String(err);
  return new BillApiSignerError(`${label(op)}: BILL_SIGNER "${signer}" failed: ${clean(why)}`, { operation: op, retryable: false, cause: err });
}

/** A header name (RFC 9110 token) and a value without line breaks. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;

/**
 * The headers the signer's value adds (a text is the Sign header), or the error when it is neither
 * a non-empty text nor an object of header names to texts (nothing sent then).
 */
export function signerValue(op: BillOperation, signer: string, sign: unknown): Record<string, string> | BillApiSignerError {
  if (typeof sign === 'string' && sign !== '') return { Sign: sign };
  if (typeof sign === 'object' && sign !== null && !Array.isArray(sign)) {
    const entries = Object.entries(sign as Record<string, unknown>);
    const bad = entries.find(([name, value]) => !HEADER_NAME.test(name) || typeof value !== 'string' || !HEADER_VALUE.test(value));
    if (entries.length > 0 && !bad) return Object.fromEntries(entries) as Record<string, string>;
    const why = bad ? `header ${JSON.stringify(bad[0].slice(0, 40))} is not a header name with a text value on one line` : 'no header';
    return new BillApiSignerError(`${label(op)}: BILL_SIGNER "${signer}" returned an object with ${why}.`, { operation: op, retryable: false });
  }
  return new BillApiSignerError(
    `${label(op)}: BILL_SIGNER "${signer}" returned ${typeof sign === 'string' ? 'an empty string' : typeof sign}; it must return the Sign header value as text, or an object of headers to add.`,
    { operation: op, retryable: false },
  );
}

/** No full answer within BILL_API_TIMEOUT_MS. */
export function timedOut(op: BillOperation, url: URL, timeoutMs: number, err: unknown): BillApiTimeoutError {
  const unknown = op === 'create';
  return new BillApiTimeoutError(
    `${label(op)}: no full answer from ${url.origin}${url.pathname} within ${timeoutMs} ms (BILL_API_TIMEOUT_MS).${unknown ? UNKNOWN_OUTCOME : ''}`,
    { operation: op, retryable: true, outcomeUnknown: unknown, timeoutMs, cause: err },
  );
}

/** The service could not be reached, or the connection broke before a full answer. */
export function unreachable(op: BillOperation, url: URL, err: unknown): BillApiNetworkError {
  const unknown = op === 'create';
  return new BillApiNetworkError(
    `${label(op)}: could not reach the bill payment service at ${url.origin}${url.pathname} (${networkReason(err)}). ` +
    `Check BILL_API_BASE_URL and that the service is up.${unknown ? UNKNOWN_OUTCOME : ''}`,
    { operation: op, retryable: true, outcomeUnknown: unknown, cause: err },
  );
}

/**
 * An answer came whose body, sent with a Content-Encoding, does not decode: an answer that cannot be
 * read (never "not JSON" from compressed bytes). A create's bill may exist all the same.
 */
export function undecodable(op: BillOperation, status: number, coding: string, err: unknown, clean: (text: string) => string): BillApiResponseError {
  const unknown = op === 'create';
  const why = err instanceof Error ? err.message : String(err);
  return new BillApiResponseError(
    `${label(op)}: HTTP ${status} but its body, sent with Content-Encoding "${clean(coding.slice(0, 40))}", does not decode (${clean(why.slice(0, 200))}).` +
    (unknown ? UNKNOWN_OUTCOME : ''),
    { operation: op, retryable: !unknown, outcomeUnknown: unknown, httpStatus: status, field: null, cause: err },
  );
}

/** The caller aborted; `sent`: the request (a create) may have reached the service. */
export function abortError(op: BillOperation, sent: boolean, cause?: unknown): BillApiAbortError {
  const note = sent ? UNKNOWN_OUTCOME : '';
  return new BillApiAbortError(`Bill API ${op} was aborted by the caller.${note}`, { operation: op, retryable: false, outcomeUnknown: sent, cause });
}

/** The system's word for a network failure (ECONNREFUSED, say), else its message. */
export function networkReason(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause && typeof cause === 'object') {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string') return code;
    if (typeof message === 'string') return message;
  }
  return err instanceof Error ? err.message : String(err);
}
