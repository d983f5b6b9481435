// What one answer of the service is (DESIGN rules 6 and 8): an ok envelope's data, or the error
// that says what went wrong and what to change, whether it may be retried, whether it was a
// refusal for load, and, for a create, whether the bill may have been made all the same.
import { stripUserinfo } from '../redact.js';
import { isThrottle } from './budget.js';
import {
  BillApiAuthError, BillApiHttpError, BillApiRejectedError, BillApiResponseError, BillApiThrottledError,
  type BillApiError, type BillOperation,
} from './errors.js';
import { parseJsonLossless } from './lossless-json.js';
import { envelopeSchema } from './schemas.js';
import { credentialsHint, label, serviceTextCleaner, UNKNOWN_OUTCOME } from './service-text.js';
import type { UpstreamConfig } from './types.js';

export interface Answer {
  data: unknown;
  httpStatus: number;
  /** Our clock's time when the answer arrived (ServiceClock.local). */
  receivedAt: number;
}

/** One exchange's result: an answer, or an error with what the retry loop needs to know of it. */
export type Attempt = { ok: true; answer: Answer } | { ok: false; error: BillApiError; retryAfterMs: number | null; throttled: boolean };

/** What an answer is judged against: the configuration it names in its hints, and how service text is cleaned. */
export interface ClassifyContext {
  okCodes: readonly number[];
  signer: string;
  /** The base URL, no trailing slash. */
  base: string;
  /** Service text as it may appear in a message (serviceTextCleaner). */
  clean: (text: string) => string;
}

export function classifyContext(config: Pick<UpstreamConfig, 'baseUrl' | 'okCodes' | 'signer' | 'key' | 'secret'>): ClassifyContext {
  return { okCodes: config.okCodes, signer: config.signer, base: config.baseUrl.replace(/\/+$/, ''), clean: serviceTextCleaner(config) };
}

/** The request an answer is to. */
export interface Asked {
  operation: BillOperation;
  method: string;
  /** A 2xx with an empty body is success (operations whose answer the spec does not show). */
  emptyOk?: boolean;
}

/** One answer as it arrived. */
export interface Answered {
  status: number;
  /** The Location header (a redirect's target), or null. */
  location: string | null;
  text: string;
  /** The path asked, as sent. */
  path: string;
  /** The Retry-After header in ms (retryAfterMs), or null. */
  retryAfterMs: number | null;
  receivedAt: number;
}

/** A Retry-After header, seconds or an HTTP date, in ms from `now`; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** A 5xx or a 429: the same request may work later. */
export function isTransient(status: number): boolean {
  return status >= 500 || status === 429;
}

export function classifyResponse(spec: Asked, res: Answered, context: ClassifyContext): Attempt {
  const { operation: op } = spec;
  const { status, text, receivedAt, retryAfterMs: retryAfter } = res;
  const { clean } = context;
  const is2xx = status >= 200 && status < 300;
  const createSent = op === 'create';
  const throttled = isThrottle(status, retryAfter);
  const fail = (error: BillApiError): Attempt => ({ ok: false, error, retryAfterMs: retryAfter, throttled });

  if (is2xx && spec.emptyOk && text.trim() === '') return { ok: true, answer: { data: null, httpStatus: status, receivedAt } };

  let json: unknown;
  let isJson = true;
  try {
    json = parseJsonLossless(text);
  } catch {
    isJson = false;
  }
  const env = isJson ? envelopeSchema.safeParse(json) : null;
  const envelope = env?.success ? env.data : null;

  if (status === 401 || status === 403) {
    const said = envelope ? ` with code ${envelope.code} "${clean(envelope.message)}"` : '';
    return fail(new BillApiAuthError(
      `${label(op)}: the service refused the credentials (HTTP ${status}${said}). ${credentialsHint(context.signer)}`,
      { operation: op, retryable: false, httpStatus: status, code: envelope?.code ?? null, serviceMessage: envelope ? clean(envelope.message) : null },
    ));
  }

  if (throttled) {
    const said = envelope ? ` with code ${envelope.code} "${clean(envelope.message)}"` : '';
    const wait = retryAfter ?? 1000;
    return fail(new BillApiThrottledError(
      `${label(op)}: the service refused for load (HTTP ${status}${said}, Retry-After ${Math.ceil(wait / 1000)} s); ` +
      `requests toward it are slowed for everyone. If the service documents its limit, set BILL_API_MAX_RPS to it.`,
      { operation: op, retryable: true, retryAfterMs: wait, httpStatus: status },
    ));
  }

  if (envelope && !context.okCodes.includes(envelope.code)) {
    let hint = '';
    if (/sign|signature|auth|credential|\bkey\b|forbidden|unauthori[sz]ed/i.test(envelope.message)) {
      hint += ` This looks like a signature or key refusal: ${credentialsHint(context.signer)}`;
    }
    const looksOk = /^\s*(ok|success|succeeded|successful|done)\b/i.test(envelope.message) ||
      (envelope.data !== null && envelope.data !== undefined);
    if (is2xx && looksOk) {
      hint += ` If code ${envelope.code} means success for this service, add it to BILL_API_OK_CODES (now "${context.okCodes.join(',')}").`;
    }
    const unknown = createSent && status >= 500;
    return fail(new BillApiRejectedError(
      `${label(op)}: the service refused with code ${envelope.code} "${clean(envelope.message)}" (HTTP ${status}).${hint}${unknown ? UNKNOWN_OUTCOME : ''}`,
      { operation: op, retryable: isTransient(status), outcomeUnknown: unknown, code: envelope.code, serviceMessage: clean(envelope.message), httpStatus: status },
    ));
  }

  if (!is2xx) {
    let hint = '';
    if (status >= 300 && status < 400) {
      hint = ` It redirected to "${clean(res.location ?? '?')}": set BILL_API_BASE_URL to the final address.`;
    } else if (status === 404 || status === 405) {
      hint = ` Check BILL_API_BASE_URL (now "${stripUserinfo(context.base)}", path prefix kept)` +
        (op === 'cancel' ? ' and BILL_CANCEL_METHOD / BILL_CANCEL_PATH.' : op === 'bind' ? ' and BILL_BIND_METHOD / BILL_BIND_PATH.' : '.');
    } else if (isTransient(status)) {
      hint = ' The service is failing or overloaded; try again later.';
    }
    // A redirect is no answer about the bill: the request may have reached the service before it.
    // A 503 page that is not the service's JSON is an edge's (maintenance, no backend): nothing was made.
    const edgePage = status === 503 && !isJson;
    const unknown = createSent && ((status >= 500 && !edgePage) || (status >= 300 && status < 400));
    const bare = envelope ? '' : ' without a response envelope';
    return fail(new BillApiHttpError(
      `${label(op)}: ${spec.method} ${res.path} answered HTTP ${status}${bare}.${hint}${unknown ? UNKNOWN_OUTCOME : ''}`,
      { operation: op, retryable: isTransient(status), outcomeUnknown: unknown, httpStatus: status },
    ));
  }

  if (!envelope) {
    const field = isJson ? issueField(env) : null;
    const what = !isJson
      ? `the body is not JSON (starts with ${JSON.stringify(clean(text.slice(0, 40)))})`
      : field === null ? 'the body is not a JSON object'
      : `the envelope's "${field}" is missing or not of the spec's type`;
    return fail(new BillApiResponseError(
      `${label(op)}: HTTP ${status} but ${what}; expected {code, message, data}.${createSent ? UNKNOWN_OUTCOME : ''}`,
      { operation: op, retryable: false, outcomeUnknown: createSent, httpStatus: status, field },
    ));
  }
  return { ok: true, answer: { data: envelope.data, httpStatus: status, receivedAt } };
}

function issueField(result: ReturnType<typeof envelopeSchema.safeParse> | null): string | null {
  const first = result && !result.success ? result.error.issues[0] : undefined;
  return first && first.path.length ? first.path.map(String).join('.') : null;
}
