import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { BillView } from '../../contract/bill-view.js';
import { backoffDelay, sleep } from '../backoff.js';
import { BffError, retryable, type BffClient, type BillRef, type CreateInput } from '../bff-client.js';
import { clearSaved, readSaved, resumeKey, writeSaved } from '../resume.js';

/**
 * Why no bill is shown: the BFF is unreachable (while retrying), refused to create it, refused the
 * order's ticket (403 `order_ticket_invalid`: expired, or not this order's), or does not know it.
 */
export type Problem = 'unreachable' | 'createFailed' | 'ticketExpired' | 'notFound';

/** What a session starts from: a bill to read (`billId` with `token`), or an order or amount to create one for. */
export interface SessionInput {
  endpoint: string;
  billId?: string | undefined;
  token?: string | undefined;
  orderId?: string | undefined;
  orderTicket?: string | undefined;
  amount?: string | undefined;
}

/** How a SessionController starts and reports. */
export interface SessionOptions {
  /** A run starts: the host clears what it showed and gives the client this run calls. */
  _onStart(): BffClient;
  /** The bill to show and follow: read, resumed after a reload, or created. */
  _onBill(ref: BillRef, view: BillView): void;
  /** The BFF created `view`'s bill (just before `_onBill`). */
  _onCreated(view: BillView): void;
  /** `unreachable` at a call's first failure, while it is retried; `createFailed`, `ticketExpired` or `notFound` when the run gives up. */
  _onProblem(problem: Problem, error: unknown): void;
}

/**
 * Gets its host a bill, from the host's `SessionInput` at each start: reads `billId` with `token`,
 * or resumes the bill this tab saved for the same order or amount, or creates one, retrying with
 * backoff while the BFF is unreachable. The latest start wins: it aborts the run before it.
 */
export class SessionController implements ReactiveController {
  #run: AbortController | undefined;
  #saveKey: string | undefined;
  #shown?: boolean;

  readonly #host: ReactiveControllerHost & SessionInput;
  readonly #options: SessionOptions;

  constructor(host: ReactiveControllerHost & SessionInput, options: SessionOptions) {
    this.#host = host;
    this.#options = options;
    host.addController(this);
  }

  /** Starts over, aborting the run before; `renewed` once after the BFF's create_failed. */
  _start(renewed?: boolean): void {
    this.#run?.abort();
    const { signal } = (this.#run = new AbortController());
    this.#saveKey = undefined;
    this.#shown = false;
    const { billId, token } = this.#host;
    this.#session(this.#options._onStart(), signal).catch((error: unknown) => {
      if (signal.aborted) return;
      // The saved key with the rest: a create the BFF says is over (create_failed) is not asked
      // again, even after a reload. A new key starts again, once.
      this._forget();
      const { code } = error as BffError;
      if (code === 'create_failed' && !renewed) return this._start(true);
      this.#options._onProblem(billId && token ? 'notFound' : code === 'order_ticket_invalid' ? 'ticketExpired' : 'createFailed', error);
    });
  }

  /** Drops the bill saved for a reload, and the one shown: the next start makes a new one. */
  _forget(): void {
    if (this.#saveKey) clearSaved(this.#saveKey);
    this.#shown = false;
  }

  hostConnected(): void {
    // Moved in the DOM while creating or loading: the aborted run starts over (and resumes).
    if (!this.#shown && this.#run?.signal.aborted) this._start();
  }

  hostDisconnected(): void {
    if (!this.#shown) this.#run?.abort();
  }

  async #session(client: BffClient, signal: AbortSignal): Promise<void> {
    const { endpoint, billId, token, orderId, orderTicket, amount } = this.#host;
    let waited = 0;
    const retry = async <T>(call: () => Promise<T>): Promise<T> => {
      for (let attempt = 1; ;) {
        try {
          return await call();
        } catch (error) {
          if (signal.aborted) throw error;
          const { retryAfter, status, code } = error as BffError;
          // The BFF says when to ask again (409 create_in_progress, 503): the same call then, still
          // loading; each wait 1–30 s, for about 2 minutes (then as if it had not said).
          const wait = retryAfter! >= 0 && waited < 12e4 && Math.min(retryAfter || 1, 30) * 1e3;
          if (wait) waited += wait;
          // Its 502s say the call is over (create_failed, an answer of the service it refused…):
          // asking the same again cannot help. A proxy's, or an answer that is no bill, may pass.
          else if (!retryable(error) || (status === 502 && code !== 'http' && code !== 'bad_response')) throw error;
          else if (attempt === 1) this.#options._onProblem('unreachable', error);
          await sleep(wait || backoffDelay(attempt++), signal);
        }
      }
    };
    // Lit updates in microtasks: a new start may come between an answer and its continuation.
    const show = (ref: BillRef, view: BillView): void => {
      signal.throwIfAborted();
      this.#shown = true;
      this.#options._onBill(ref, view);
    };
    if (billId && token) return show({ billId, token }, await retry(() => client.get({ billId, token }, signal)));
    // An empty ticket is no ticket (JSON leaves the undefined member out).
    const input: CreateInput | undefined = orderId ? { orderId, orderTicket: orderTicket || undefined } : amount ? { amount } : undefined;
    if (!input) return;
    const key = (this.#saveKey = resumeKey(endpoint, input));
    const saved = readSaved(key);
    if (saved.billId && saved.token) {
      const ref = { billId: saved.billId, token: saved.token };
      try {
        return show(ref, await retry(() => client.get(ref, signal)));
      } catch (error) {
        if (signal.aborted) throw error;
      }
    }
    // Kept before the call, so that a reload mid-create asks for the same bill again.
    const idempotencyKey = saved.idempotencyKey ?? crypto.randomUUID();
    writeSaved(key, { idempotencyKey });
    const { token: created, ...view } = await retry(() => client.create(input, idempotencyKey, signal));
    const ref = { billId: view.billId, token: created };
    writeSaved(key, ref);
    signal.throwIfAborted();
    this.#options._onCreated(view);
    show(ref, view);
  }
}
