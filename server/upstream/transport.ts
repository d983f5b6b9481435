// One signed HTTP exchange with the service, its timeout, and the retry loop around it.
import type { UpstreamConfig } from './types.js';
import { createRedactor, stripUserinfo, truncate } from '../redact.js';
import {
  BillApiAbortError, BillApiAuthError, BillApiError, BillApiHttpError, BillApiNetworkError,
  BillApiRejectedError, BillApiResponseError, BillApiSignerError, BillApiThrottledError, BillApiTimeoutError,
  type BillOperation,
} from './errors.js';
import { BudgetExhaustedError, isThrottle, priorityNow, type Budget, type Priority } from './budget.js';
import { parseJsonLossless } from './lossless-json.js';
import type { ServiceClock } from './service-clock.js';
import { envelopeSchema } from './schemas.js';
import type { HttpClient, HttpResponse, Signer } from './types.js';

export interface TransportOptions {
  signer: Signer;
  http: HttpClient;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** Every attempt takes its turn here first, and tells it what the service answered. */
  budget: Budget;
  /** Learns the service's time from each answer's Date header. */
  clock: ServiceClock;
}

export interface RequestSpec {
  operation: BillOperation;
  method: string;
  /** Path under the base URL, query included, already encoded. */
  path: string;
  /** Exact JSON text, or null for no body. */
  body: string | null;
  /** Retry network errors, timeouts, 5xx and 429 (only for operations safe to repeat). */
  retry: boolean;
  /** A 2xx with an empty body is success (operations whose answer the spec does not show). */
  emptyOk?: boolean;
  /** Who waits on it, read at each turn in the budget (default `customer`). */
  priority?: Priority | (() => Priority);
  /** The longest wait for the budget before giving up with BillApiThrottledError, ms (default: none). */
  maxWaitMs?: number;
}

export interface Answer {
  data: unknown;
  httpStatus: number;
  /** Our clock's time when the answer arrived (ServiceClock.local). */
  receivedAt: number;
}

type Attempt = { ok: true; answer: Answer } | { ok: false; error: BillApiError; retryAfterMs: number | null; throttled: boolean };

const UNKNOWN_OUTCOME = ' The bill may or may not have been created: settle it with findByMerchantReference before creating again.';
const MAX_SERVICE_TEXT = 200;

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function retryAfterMs(value: string | null): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

function isTransient(status: number): boolean {
  return status >= 500 || status === 429;
}

export function createTransport(config: UpstreamConfig, options: TransportOptions) {
  const base = config.baseUrl.replace(/\/+$/, '');
  const okCodes = new Set(config.okCodes);

  /** Service text with our key and secret cut out (a service may echo what it was sent), shortened. */
  const redact = createRedactor([config.key, config.secret]);
  const clean = (text: string): string => truncate(redact(text), MAX_SERVICE_TEXT);

  const label = (op: BillOperation) => `Bill API ${op}`;
  const credentialsHint = () =>
    `Check BILL_API_KEY and BILL_API_SECRET, and that BILL_SIGNER (now "${config.signer}") is the scheme the service expects.`;

  function classify(spec: RequestSpec, res: HttpResponse, text: string, url: URL, retryAfter: number | null, receivedAt: number): Attempt {
    const { operation: op } = spec;
    const status = res.status;
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
        `${label(op)}: the service refused the credentials (HTTP ${status}${said}). ${credentialsHint()}`,
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

    if (envelope && !okCodes.has(envelope.code)) {
      let hint = '';
      if (/sign|signature|auth|credential|\bkey\b|forbidden|unauthori[sz]ed/i.test(envelope.message)) {
        hint += ` This looks like a signature or key refusal: ${credentialsHint()}`;
      }
      const looksOk = /^\s*(ok|success|succeeded|successful|done)\b/i.test(envelope.message) ||
        (envelope.data !== null && envelope.data !== undefined);
      if (is2xx && looksOk) {
        hint += ` If code ${envelope.code} means success for this service, add it to BILL_API_OK_CODES (now "${config.okCodes.join(',')}").`;
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
        hint = ` It redirected to "${clean(res.headers.get('location') ?? '?')}": set BILL_API_BASE_URL to the final address.`;
      } else if (status === 404 || status === 405) {
        hint = ` Check BILL_API_BASE_URL (now "${stripUserinfo(base)}", path prefix kept)` +
          (op === 'cancel' ? ' and BILL_CANCEL_METHOD / BILL_CANCEL_PATH.' : op === 'bind' ? ' and BILL_BIND_METHOD / BILL_BIND_PATH.' : '.');
      } else if (isTransient(status)) {
        hint = ' The service is failing or overloaded; try again later.';
      }
      // A redirect is no answer about the bill: the request may have reached the service before it.
      const unknown = createSent && (status >= 500 || (status >= 300 && status < 400));
      const bare = envelope ? '' : ' without a response envelope';
      return fail(new BillApiHttpError(
        `${label(op)}: ${spec.method} ${url.pathname} answered HTTP ${status}${bare}.${hint}${unknown ? UNKNOWN_OUTCOME : ''}`,
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

  async function attempt(spec: RequestSpec, callerSignal: AbortSignal | undefined): Promise<Attempt> {
    const { operation: op } = spec;
    const url = new URL(base + (spec.path.startsWith('/') ? spec.path : `/${spec.path}`));
    const body = spec.body ?? '';
    const fail = (error: BillApiError): Attempt => ({ ok: false, error, retryAfterMs: null, throttled: false });

    let sign: unknown;
    try {
      sign = await options.signer({
        method: spec.method.toUpperCase(), path: url.pathname, query: url.search.slice(1), body,
        key: config.key, secret: config.secret,
      });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return fail(new BillApiSignerError(`${label(op)}: BILL_SIGNER "${config.signer}" failed: ${clean(why)}`, { operation: op, retryable: false, cause: err }));
    }
    if (typeof sign !== 'string' || sign === '') {
      return fail(new BillApiSignerError(
        `${label(op)}: BILL_SIGNER "${config.signer}" returned ${typeof sign === 'string' ? 'an empty string' : typeof sign}; it must return the Sign header value as text.`,
        { operation: op, retryable: false },
      ));
    }

    const headers: Record<string, string> = { Accept: 'application/json', Key: config.key, Sign: sign };
    if (spec.body !== null) headers['Content-Type'] = 'application/json';

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, config.timeoutMs);
    const onCallerAbort = () => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    const unknown = op === 'create';
    try {
      if (callerSignal?.aborted) return fail(abortError(op, false));
      const sentAt = options.clock.local();
      const res = await options.http(url.href, {
        method: spec.method.toUpperCase(), headers, body: spec.body ?? undefined, signal: controller.signal, redirect: 'manual',
      });
      const receivedAt = options.clock.local();
      options.clock.observe(res.headers.get('date'), sentAt, receivedAt);
      const retryAfter = retryAfterMs(res.headers.get('retry-after'));
      options.budget.answered(op, res.status, retryAfter);
      const text = await res.text();
      return classify(spec, res, text, url, retryAfter, receivedAt);
    } catch (err) {
      if (callerSignal?.aborted) return fail(abortError(op, unknown, err));
      if (timedOut) {
        return fail(new BillApiTimeoutError(
          `${label(op)}: no full answer from ${url.origin}${url.pathname} within ${config.timeoutMs} ms (BILL_API_TIMEOUT_MS).${unknown ? UNKNOWN_OUTCOME : ''}`,
          { operation: op, retryable: true, outcomeUnknown: unknown, timeoutMs: config.timeoutMs, cause: err },
        ));
      }
      return fail(new BillApiNetworkError(
        `${label(op)}: could not reach the bill payment service at ${url.origin}${url.pathname} (${networkReason(err)}). ` +
        `Check BILL_API_BASE_URL and that the service is up.${unknown ? UNKNOWN_OUTCOME : ''}`,
        { operation: op, retryable: true, outcomeUnknown: unknown, cause: err },
      ));
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** Waits for the budget's turn; a wait it cannot have becomes BillApiThrottledError. */
  async function turn(spec: RequestSpec, callerSignal: AbortSignal | undefined): Promise<void> {
    try {
      await options.budget.take(spec.operation, spec.priority ?? 'customer', {
        ...(callerSignal ? { signal: callerSignal } : {}),
        ...(spec.maxWaitMs !== undefined ? { maxWaitMs: spec.maxWaitMs } : {}),
      });
    } catch (error) {
      if (error instanceof BudgetExhaustedError) {
        throw new BillApiThrottledError(error.message, {
          operation: spec.operation, retryable: true, retryAfterMs: error.retryAfterMs,
        });
      }
      if (callerSignal?.aborted) throw abortError(spec.operation, false, error);
      throw error;
    }
  }


  /**
   * Sends `spec` in its turn, retrying transient failures when `spec.retry`; resolves with an ok
   * envelope's data. A refusal for load is retried only for news (a payment may have landed), and
   * then in the budget's turn, after the pause the service asked for: never on a watcher's behalf.
   */
  return async function send(spec: RequestSpec, callerSignal?: AbortSignal): Promise<Answer> {
    const attempts = spec.retry ? 1 + config.retries : 1;
    for (let n = 0; ; n++) {
      await turn(spec, callerSignal);
      const result = await attempt(spec, callerSignal);
      if (result.ok) return result.answer;
      const { error } = result;
      error.attempts = n + 1;
      const giveUp = result.throttled && priorityNow(spec.priority ?? 'customer') !== 'news';
      if (!spec.retry || !error.retryable || giveUp || n + 1 >= attempts) {
        if (n > 0) error.message += ` (gave up after ${n + 1} attempts)`;
        throw error;
      }
      const cap = Math.min(options.maxBackoffMs, options.baseBackoffMs * 2 ** n);
      // After a refusal for load the budget holds the operation until the Retry-After.
      let delay = result.throttled ? 0 : Math.floor(options.random() * cap);
      // A Retry-After that is no refusal for load (a 502's, say) is still honoured, within the cap.
      if (result.retryAfterMs !== null && !result.throttled) delay = Math.max(delay, Math.min(result.retryAfterMs, options.maxBackoffMs));
      try {
        await options.sleep(delay, callerSignal);
      } catch (err) {
        if (callerSignal?.aborted) throw abortError(spec.operation, false, err);
        throw err;
      }
      if (callerSignal?.aborted) throw abortError(spec.operation, false);
    }
  };
}

function abortError(op: BillOperation, sent: boolean, cause?: unknown): BillApiAbortError {
  const note = sent ? UNKNOWN_OUTCOME : '';
  return new BillApiAbortError(`Bill API ${op} was aborted by the caller.${note}`, { operation: op, retryable: false, outcomeUnknown: sent, cause });
}

function networkReason(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause && typeof cause === 'object') {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string') return code;
    if (typeof message === 'string') return message;
  }
  return err instanceof Error ? err.message : String(err);
}

function issueField(result: ReturnType<typeof envelopeSchema.safeParse> | null): string | null {
  const first = result && !result.success ? result.error.issues[0] : undefined;
  return first && first.path.length ? first.path.map(String).join('.') : null;
}
