// Callback delivery: POST the status record to callbackUrl; a non-200 answer or a network error
// is retried up to 5 times. Drop, duplicate, delay and reorder faults apply here.
import { roll } from './faults.js';
import { TimerSet } from './timers.js';
import type { CallbackAttempt, Faults, StatusRecordWire } from './types.js';

export const MAX_ATTEMPTS = 6;
const ATTEMPT_TIMEOUT_MS = 10_000;

export interface CallbackSenderOptions {
  now: () => number;
  random: () => number;
  fetch: typeof fetch;
  /** Between attempts, unless the `callbackRetryDelayMs` fault says otherwise. */
  retryDelayMs: number;
  faults: () => Faults;
  /** Called once per attempt, after it ends. */
  report: (attempt: CallbackAttempt) => void;
}

interface Delivery {
  billId: string;
  url: string;
  body: string;
  generation: number;
}

export class CallbackSender {
  readonly #timers = new TimerSet();
  #abort = new AbortController();
  #generation = 0;
  #active = 0;
  #idleWaiters: (() => void)[] = [];
  /** Deliveries under way (scheduled or in flight) per bill, and who waits for them to end. */
  readonly #activeByBill = new Map<string, number>();
  readonly #endWaiters = new Map<string, Set<() => void>>();
  #reorderBatch: Delivery[] = [];

  constructor(private readonly o: CallbackSenderOptions) {}

  send(url: string, record: StatusRecordWire): void {
    const f = this.o.faults();
    const copies = roll(this.o.random, f.callbackDuplicateRate) ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      const d: Delivery = { billId: record.billId, url, body: JSON.stringify(record), generation: this.#generation };
      this.#active++;
      this.#activeByBill.set(d.billId, (this.#activeByBill.get(d.billId) ?? 0) + 1);
      const [min, max] = f.callbackDelayMs;
      const delay = min + Math.floor(this.o.random() * (max - min + 1));
      this.#timers.after(delay, () => this.#due(d));
    }
  }

  idle(): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Resolves when the bill's deliveries have ended (200, attempts used up, or dropped); when none
   * is under way, once the next one has. At the latest after `maxMs`, or when stopped.
   */
  deliveryEnded(billId: string, maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.#endWaiters.get(billId) ?? new Set<() => void>();
      this.#endWaiters.set(billId, waiters);
      const timer = setTimeout(done, maxMs);
      const all = this.#endWaiters;
      function done(): void {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && all.get(billId) === waiters) all.delete(billId);
        resolve();
      }
      waiters.add(done);
    });
  }

  /** Forgets every scheduled and in-flight delivery; releases whoever waits for one. */
  stop(): void {
    this.#generation++;
    this.#timers.clear();
    this.#abort.abort();
    this.#abort = new AbortController();
    this.#reorderBatch = [];
    this.#active = 0;
    this.#activeByBill.clear();
    this.#wakeIdle();
    for (const waiters of [...this.#endWaiters.values()]) for (const done of [...waiters]) done();
  }

  #due(d: Delivery): void {
    const window = this.o.faults().callbackReorderWindowMs;
    if (window <= 0) {
      void this.#attempt(d, 1);
      return;
    }
    if (this.#reorderBatch.length === 0) this.#timers.after(window, () => void this.#flushReordered());
    this.#reorderBatch.push(d);
  }

  async #flushReordered(): Promise<void> {
    const batch = this.#reorderBatch;
    this.#reorderBatch = [];
    for (let i = batch.length - 1; i > 0; i--) {
      const j = Math.floor(this.o.random() * (i + 1));
      [batch[i], batch[j]] = [batch[j]!, batch[i]!];
    }
    // One after the other, so the receiver sees exactly the shuffled order.
    for (const d of batch) await this.#attempt(d, 1);
  }

  async #attempt(d: Delivery, n: number): Promise<void> {
    if (d.generation !== this.#generation) return;
    const attempt = (outcome: CallbackAttempt['outcome'], httpStatus: number | null): CallbackAttempt => ({
      billId: d.billId, url: d.url, attempt: n, outcome, httpStatus, at: this.o.now(),
    });
    if (roll(this.o.random, this.o.faults().callbackDropRate)) {
      // A lost callback: the service believes it delivered it, so nothing is retried.
      this.o.report(attempt('dropped', null));
      this.#end(d);
      return;
    }
    let result: CallbackAttempt;
    try {
      const res = await this.o.fetch(d.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: d.body,
        redirect: 'manual',
        signal: AbortSignal.any([this.#abort.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
      });
      await res.body?.cancel().catch(() => undefined);
      result = attempt(res.status === 200 ? 'ok' : 'non-200', res.status);
    } catch {
      result = attempt('network-error', null);
    }
    if (d.generation !== this.#generation) return;
    this.o.report(result);
    if (result.outcome === 'ok' || n >= MAX_ATTEMPTS) {
      this.#end(d);
      return;
    }
    this.#timers.after(this.o.faults().callbackRetryDelayMs ?? this.o.retryDelayMs, () => void this.#attempt(d, n + 1));
  }

  #end(d: Delivery): void {
    if (d.generation !== this.#generation) return;
    this.#active--;
    const left = (this.#activeByBill.get(d.billId) ?? 1) - 1;
    if (left > 0) {
      this.#activeByBill.set(d.billId, left);
    } else {
      this.#activeByBill.delete(d.billId);
      for (const done of [...(this.#endWaiters.get(d.billId) ?? [])]) done();
    }
    if (this.#active === 0) this.#wakeIdle();
  }

  #wakeIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }
}
