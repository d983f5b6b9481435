import type { BillView, CreatedBillView, ErrorBody } from '../contract/bill-view.js';
import type { Clock } from './clock.js';

/** What a bill is created from: the merchant's order (with its ticket), or an amount (decimal text). */
export type CreateInput = { orderId: string; orderTicket?: string | undefined } | { amount: string };

/** The capability to read and cancel one bill. */
export interface BillRef {
  billId: string;
  token: string;
}

/**
 * A failed call to the BFF: its error `code`, HTTP `status` (0 when the network failed) and
 * `retryAfter`, the answer's `Retry-After` in seconds: when the BFF says the same call may be
 * repeated (NaN when the answer has none, undefined without an answer).
 */
export class BffError extends Error {
  override name = 'BffError';
  constructor(readonly code: string, message: string, readonly status = 0, readonly retryAfter?: number) {
    super(message);
  }

  /** Whether the same call may work later. */
  get retryable(): boolean {
    return !this.status || this.status === 408 || this.status === 429 || this.status > 499;
  }
}

/** Whether a failed call may work later (a BffError that says so, or anything else: the network). */
export function retryable(error: unknown): boolean {
  return !(error instanceof BffError) || error.retryable;
}

/** Checks the fields the element relies on. */
export function isBillView(value: unknown): value is BillView {
  const v = value as BillView | null;
  return typeof v?.billId === 'string' && typeof v.billUrl === 'string'
    && typeof v.billAmount === 'string' && typeof v.expiredOn === 'number' && typeof v.isFinal === 'boolean';
}

/** Parses one SSE `status` event's data; `null` when it is not a BillView. */
export function parseView(data: string): BillView | null {
  try {
    const value: unknown = JSON.parse(data);
    return isBillView(value) ? value : null;
  } catch {
    return null;
  }
}

/** The BFF's browser API: create, read and cancel a bill, and the URL of its events. */
export class BffClient {
  readonly #base: string;
  readonly #fetch: typeof fetch | undefined;
  readonly #clock: Clock;
  readonly #headers: Record<string, string>;

  /**
   * `language`: the element's locale. Creates and reads ask for it (Accept-Language), so that the
   * amounts come formatted in it (`display`) whatever the browser's languages: a phone's first
   * Intl.NumberFormat takes 50–120 ms of its main thread. `fetchImpl`: the fetch it calls the BFF
   * with (tests pass fakes); the page's `fetch` when unset.
   */
  constructor(endpoint: string, fetchImpl: typeof fetch | undefined, clock: Clock, language: string) {
    this.#base = endpoint.replace(/\/+$/, '');
    this.#fetch = fetchImpl;
    this.#clock = clock;
    this.#headers = { 'accept-language': language };
  }

  create(input: CreateInput, idempotencyKey: string, signal: AbortSignal): Promise<CreatedBillView> {
    return this.#call('/bills', signal, {
      method: 'POST',
      // The BFF marks the browser that started the bill (a cookie scoped to its return URL), so that
      // it can tell the device that paid from this one when the service sends the customer back.
      credentials: 'include',
      headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey, ...this.#headers },
      body: JSON.stringify(input),
    }) as Promise<CreatedBillView>;
  }

  get(ref: BillRef, signal: AbortSignal): Promise<BillView> {
    return this.#call(this.#path(ref, ''), signal, { headers: this.#headers }) as Promise<BillView>;
  }

  /** Cancels; resolves to the answer's body (a BillView when the BFF sends one). */
  cancel(ref: BillRef, signal: AbortSignal): Promise<unknown> {
    // JSON, like every POST the BFF takes from a browser (a form could not send it cross-site).
    return this.#call(this.#path(ref, '/cancel'), signal, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }, true);
  }

  /**
   * The URL of the bill's `/events` (its Server-Sent Events) or `/pay` (the pay link: the BFF marks
   * this browser as the one that started the bill, so its return goes on to RETURN_URL, then sends
   * it on to billUrl).
   */
  _at(ref: BillRef, suffix: '/events' | '/pay'): string {
    return this.#base + this.#path(ref, suffix);
  }

  #path({ billId, token }: BillRef, suffix: string): string {
    return `/bills/${encodeURIComponent(billId)}${suffix}?token=${encodeURIComponent(token)}`;
  }

  async #call(path: string, signal: AbortSignal, init: RequestInit = {}, anyBody = false): Promise<unknown> {
    try {
      const sentAt = Date.now();
      // The page's fetch when called (not when constructed), and never with `this` set (native fetch refuses one).
      const res = await (this.#fetch ?? fetch)(this.#base + path, {
        ...init,
        // A call that hangs (a proxy that never answers) fails after 15 s and is retried.
        signal: AbortSignal.any([signal, AbortSignal.timeout(15_000)]),
      });
      this.#clock._observe(res.headers, sentAt, Date.now());
      const body: unknown = await res.json().catch(() => null);
      if (!res.ok) {
        const error = (body as ErrorBody | null)?.error;
        // parseFloat(null) is NaN: no Retry-After.
        throw new BffError(error?.code ?? 'http', error?.message ?? `HTTP ${res.status}`, res.status, parseFloat(res.headers.get('retry-after')!));
      }
      if (!anyBody && !isBillView(body)) throw new BffError('bad_response', 'Not a bill', 502);
      return body;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw error instanceof BffError ? error : new BffError('network', 'Network error');
    }
  }
}
