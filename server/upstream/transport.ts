// One signed HTTP exchange with the service, its timeout, and the retry loop around it. What an
// answer means is classify-response.ts; what no answer means, exchange-errors.ts; when to try
// again, retry-policy.ts.
import type { UpstreamConfig } from './types.js';
import {
  BillApiError, BillApiNetworkError, BillApiThrottledError, BillApiTimeoutError, type BillOperation,
} from './errors.js';
import { BudgetExhaustedError, type Budget, type PriorityOf, type TakeOptions, type Turn } from './budget.js';
import { classifyContext, classifyResponse, retryAfterMs, type Answer as Classified, type Attempt } from './classify-response.js';
import { abortError, networkReason, signerFailed, signerValue, timedOut, undecodable, unreachable } from './exchange-errors.js';
import { label } from './service-text.js';
import { retryDelay } from './retry-policy.js';
import type { ServiceClock } from './service-clock.js';
import type { HttpClient, Signer, SignerAnswer, SignerRequest } from './types.js';

/** An ok answer, and what its caller needs to judge the service's time by this one exchange. */
export interface Answer extends Classified {
  /** Our clock's time when the request was sent (ServiceClock.local). */
  sentAt: number;
  /** The answer's Date header as it came, or null. */
  dateHeader: string | null;
}

type Timed = { ok: true; answer: Answer } | Extract<Attempt, { ok: false }>;

/** 16 random bytes as 32 hex digits. */
function randomHex(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

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
  /** Who waits on it, for its turn in the budget (default `customer`); an Urgency can rise while it waits. */
  priority?: PriorityOf;
  /** The longest wait for the budget before giving up with BillApiThrottledError, ms (default: none). */
  maxWaitMs?: number;
  /** The call's id for the signer (SignInput.requestId); default: a fresh one for this call. */
  requestId?: string;
  /** A turn reserved ahead (Budget.reserve): the first attempt sends on it without waiting. */
  turn?: Turn;
}

/** One exchange's signal: aborted after `timeoutMs` (then `timedOut()`) or with the caller's; `end()` when it is over. */
function exchangeSignal(timeoutMs: number, callerSignal: AbortSignal | undefined) {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort();
  }, timeoutMs);
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => expired,
    end: () => {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}

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

/**
 * A wait in the budget for `spec` (its longest wait, the caller's signal): one it cannot have
 * becomes BillApiThrottledError, an abort the caller's BillApiAbortError.
 */
export async function budgetWait<T>(
  spec: Pick<RequestSpec, 'operation' | 'maxWaitMs'>, callerSignal: AbortSignal | undefined, wait: (options: TakeOptions) => Promise<T>,
): Promise<T> {
  try {
    return await wait({
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

export function createTransport(config: UpstreamConfig, options: TransportOptions) {
  const context = classifyContext(config);
  const { base, clean } = context;

  async function attempt(spec: RequestSpec, callerSignal: AbortSignal | undefined, requestId: string): Promise<Timed> {
    const { operation: op } = spec;
    const url = new URL(base + (spec.path.startsWith('/') ? spec.path : `/${spec.path}`));
    const body = spec.body ?? '';
    const fail = (error: BillApiError): Timed => ({ ok: false, error, retryAfterMs: null, throttled: false });

    let signed: unknown;
    const timestampMs = options.clock.local();
    try {
      signed = await options.signer({
        method: spec.method.toUpperCase(), path: url.pathname, query: url.search.slice(1), body,
        key: config.key, secret: config.secret,
        operation: op, timestampMs, timestamp: new Date(timestampMs).toISOString(), nonce: randomHex(), requestId,
        send: (request) => ownRequest(spec, request, callerSignal),
      });
    } catch (err) {
      return fail(signerFailed(op, config.signer, err, clean));
    }
    const decoration = signerValue(op, config.signer, signed);
    if (decoration instanceof Error) return fail(decoration);

    // The signer's headers over ours, whatever their case: one it names replaces the client's.
    const named = new Set(Object.keys(decoration).map((name) => name.toLowerCase()));
    const own: [string, string][] = [['Accept', 'application/json'], ['Key', config.key]];
    if (spec.body !== null) own.push(['Content-Type', 'application/json']);
    const headers: Record<string, string> = { ...Object.fromEntries(own.filter(([name]) => !named.has(name.toLowerCase()))), ...decoration };

    const exchange = exchangeSignal(config.timeoutMs, callerSignal);
    try {
      if (callerSignal?.aborted) return fail(abortError(op, false));
      const sentAt = options.clock.local();
      const res = await options.http(url.href, {
        method: spec.method.toUpperCase(), headers, body: spec.body ?? undefined, signal: exchange.signal, redirect: 'manual',
      });
      const receivedAt = options.clock.local();
      const dateHeader = res.headers.get('date');
      options.clock.observe(dateHeader, sentAt, receivedAt);
      const retryAfter = retryAfterMs(res.headers.get('retry-after'));
      options.budget.answered(op, res.status, retryAfter);
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        // The answer came and its body cannot be read as sent: an unreadable answer, not a cut connection.
        const coding = res.headers.get('content-encoding')?.trim();
        if (exchange.signal.aborted || !coding || /^identity$/i.test(coding)) throw err;
        return fail(undecodable(op, res.status, coding, err, clean));
      }
      const result = classifyResponse(spec, {
        status: res.status, location: res.headers.get('location'), text, path: url.pathname, retryAfterMs: retryAfter, receivedAt,
      }, context);
      // The exchange's own times go with its answer: a create's expiry is judged by them (ServiceClock.judgeCreated).
      return result.ok ? { ok: true, answer: { ...result.answer, sentAt, dateHeader } } : result;
    } catch (err) {
      if (callerSignal?.aborted) return fail(abortError(op, op === 'create', err));
      if (exchange.timedOut()) return fail(timedOut(op, url, config.timeoutMs, err));
      return fail(unreachable(op, url, err));
    } finally {
      exchange.end();
    }
  }

  /**
   * A signer's own request (an access token): in `spec`'s turn of the budget, under the timeout and
   * the HTTP client, read whole, never retried. Its failures say that nothing of `spec` was sent.
   */
  async function ownRequest(spec: RequestSpec, request: SignerRequest, callerSignal: AbortSignal | undefined): Promise<SignerAnswer> {
    const op = spec.operation;
    const url = new URL(base + (request.path.startsWith('/') ? request.path : `/${request.path}`));
    await turn(spec, callerSignal);
    const exchange = exchangeSignal(config.timeoutMs, callerSignal);
    const method = request.method.toUpperCase();
    try {
      if (callerSignal?.aborted) throw abortError(op, false);
      const sentAt = options.clock.local();
      const res = await options.http(url.href, {
        method,
        headers: { Accept: 'application/json', ...(request.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...request.headers },
        body: request.body, signal: exchange.signal, redirect: 'manual',
      });
      options.clock.observe(res.headers.get('date'), sentAt, options.clock.local());
      options.budget.answered(op, res.status, retryAfterMs(res.headers.get('retry-after')));
      return { status: res.status, headers: res.headers, text: await res.text() };
    } catch (err) {
      if (err instanceof BillApiError) throw err;
      if (callerSignal?.aborted) throw abortError(op, false, err);
      // Retryable as any exchange without an answer, and never an unknown outcome: nothing of `spec` left.
      const why = exchange.timedOut() ? `no full answer within ${config.timeoutMs} ms (BILL_API_TIMEOUT_MS)` : `no answer (${networkReason(err)})`;
      const message = `${label(op)}: the signer's own request ${method} ${url.origin}${url.pathname} got ${why}; nothing of the ${op} was sent.`;
      const facts = { operation: op, retryable: true, outcomeUnknown: false, cause: err };
      throw exchange.timedOut() ? new BillApiTimeoutError(message, { ...facts, timeoutMs: config.timeoutMs }) : new BillApiNetworkError(message, facts);
    } finally {
      exchange.end();
    }
  }

  /** Waits for the budget's turn. */
  const turn = (spec: RequestSpec, callerSignal: AbortSignal | undefined): Promise<void> =>
    budgetWait(spec, callerSignal, (takeOptions) => options.budget.take(spec.operation, spec.priority ?? 'customer', takeOptions));

  /**
   * Sends `spec` in its turn, retrying transient failures when `spec.retry`; resolves with an ok
   * envelope's data. A refusal for load is retried only for news (a payment may have landed), and
   * then in the budget's turn, after the pause the service asked for: never on a watcher's behalf.
   */
  return async function send(spec: RequestSpec, callerSignal?: AbortSignal): Promise<Answer> {
    const attempts = spec.retry ? 1 + config.retries : 1;
    // One id for the call, whatever its attempts: the service may deduplicate by it.
    const requestId = spec.requestId ?? randomHex();
    for (let n = 0; ; n++) {
      // A turn reserved ahead is the first attempt's; a retry waits for its own.
      if (!(n === 0 && spec.turn && options.budget.redeem(spec.turn, spec.operation))) await turn(spec, callerSignal);
      const result = await attempt(spec, callerSignal, requestId);
      if (result.ok) return result.answer;
      const { error } = result;
      error.attempts = n + 1;
      const delay = retryDelay(spec, result, n, attempts, options);
      if (delay === null) {
        if (n > 0) error.message += ` (gave up after ${n + 1} attempts)`;
        throw error;
      }
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
