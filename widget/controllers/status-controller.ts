import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { BillView } from '../../contract/bill-view.js';
import { backoffDelay } from '../backoff.js';
import { parseView, type BffClient, type BillRef } from '../bff-client.js';

/** How a StatusController reports and paces. */
export interface StatusOptions {
  _onView(view: BillView): void;
  /** Called on each failed check; return `false` when retrying cannot help, to stop. */
  _onError(error: unknown): boolean;
}

interface Target {
  _client: BffClient;
  _ref: BillRef;
  _EventSource: typeof EventSource;
}

/**
 * Follows a bill's status until it is final: Server-Sent Events first, polling when they fail
 * (capped exponential backoff with jitter on errors) while the stream is tried again with a capped
 * backoff of its own, back to it at its first event; paused while the page is hidden, checked at
 * once when the network comes back or the page is restored from the back/forward cache.
 */
export class StatusController implements ReactiveController {
  #target: Target | undefined;
  #source: EventSource | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #streamTimer: ReturnType<typeof setTimeout> | undefined;
  #streamFailures!: number;
  #inflight: AbortController | undefined;
  #streaming!: boolean;
  #failures!: number;
  /** While the host is connected: ends its listeners. */
  #connected: AbortController | undefined;

  readonly #options: StatusOptions;

  constructor(host: ReactiveControllerHost, options: StatusOptions) {
    this.#options = options;
    host.addController(this);
  }

  /** Starts following `ref`, replacing any bill followed before. */
  _follow(client: BffClient, ref: BillRef, eventSource: typeof EventSource): void {
    this.stop();
    this.#target = { _client: client, _ref: ref, _EventSource: eventSource };
    this.#streaming = true;
    this.#failures = this.#streamFailures = 0;
    this.#resume();
  }

  /** Stops following; nothing more is reported. */
  stop(): void {
    this.#target = undefined;
    this.#pause();
  }

  /** Checks at once (after a cancel, at the deadline), in addition to the stream if open. */
  _checkNow(): void {
    if (this.#target && this.#connected) this.#schedule(0);
  }

  hostConnected(): void {
    const options = { signal: (this.#connected = new AbortController()).signal };
    document.addEventListener('visibilitychange', this.#onVisibility, options);
    addEventListener('online', this.#wake, options);
    addEventListener('pageshow', this.#wake, options);
    this.#resume();
  }

  hostDisconnected(): void {
    this.#connected?.abort();
    this.#connected = undefined;
    this.#pause();
  }

  #onVisibility = (): void => {
    if (document.hidden) this.#pause();
    else this.#resume();
  };

  // Back online, or restored from the back/forward cache: a stream may be dead without an error
  // yet, and a payment may have landed meanwhile. Start over at once.
  #wake = (event: Event): void => {
    if (event.type === 'pageshow' && !(event as PageTransitionEvent).persisted) return;
    this.#pause();
    this.#streamFailures = 0;
    this.#resume();
  };

  // Opens the stream (when it is not open), and polls at once until its first event.
  #resume(): void {
    if (!this.#target || !this.#connected || document.hidden || this.#source) return;
    this.#open(this.#target);
    if (!this.#streaming) this.#schedule(0);
  }

  #pause(): void {
    this.#source?.close();
    this.#source = undefined;
    clearTimeout(this.#timer);
    clearTimeout(this.#streamTimer);
    this.#inflight?.abort();
    this.#inflight = undefined;
  }

  #open(target: Target): void {
    const source = new target._EventSource(target._client._at(target._ref, '/events'));
    this.#source = source;
    source.addEventListener('status', (event) => {
      const view = parseView((event as MessageEvent<string>).data);
      if (!view || this.#source !== source) return;
      if (!this.#streaming) {
        // The stream is back: polling stops.
        this.#streaming = true;
        this.#streamFailures = 0;
        clearTimeout(this.#timer);
      }
      this.#deliver(view);
    });
    source.addEventListener('error', () => {
      if (this.#source !== source) return;
      source.close();
      this.#source = undefined;
      this.#streaming = false;
      this.#schedule(0);
      this.#streamTimer = setTimeout(() => this.#resume(), backoffDelay(++this.#streamFailures, 1000, 60_000));
    });
  }

  #deliver(view: BillView): void {
    this.#failures = 0;
    if (view.isFinal) this.stop();
    this.#options._onView(view);
  }

  #schedule(delay: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#poll(), delay);
  }

  async #poll(): Promise<void> {
    const target = this.#target;
    if (!target || !this.#connected || document.hidden) return;
    this.#inflight?.abort();
    const inflight = new AbortController();
    this.#inflight = inflight;
    try {
      const view = await target._client.get(target._ref, inflight.signal);
      if (this.#inflight !== inflight) return;
      this.#inflight = undefined;
      this.#deliver(view);
      if (this.#target && !this.#streaming) this.#schedule(3000);
    } catch (error) {
      if (this.#inflight !== inflight) return;
      this.#inflight = undefined;
      this.#failures++;
      if (!this.#options._onError(error)) return this.stop();
      if (!this.#streaming) this.#schedule(backoffDelay(this.#failures));
    }
  }
}
