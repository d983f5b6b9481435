import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { BillView } from '../../contract/bill-view.js';
import { backoffDelay, type BackoffOptions } from '../backoff.js';
import { parseView, type BffClient, type BillRef } from '../bff-client.js';

/** How a StatusController reports and paces. */
export interface StatusOptions {
  _onView(view: BillView): void;
  /** Called on each failed check; return `false` when retrying cannot help, to stop. */
  _onError(error: unknown): boolean;
  /** Between checks while pending, when polling. */
  _pollInterval?: number;
  backoff?: Partial<BackoffOptions>;
}

interface Target {
  _client: BffClient;
  _ref: BillRef;
  _EventSource: typeof EventSource;
}

/**
 * Follows a bill's status until it is final: Server-Sent Events first, polling when they fail
 * (capped exponential backoff with jitter on errors), paused while the page is hidden.
 */
export class StatusController implements ReactiveController {
  #target: Target | undefined;
  #source: EventSource | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inflight: AbortController | undefined;
  #streaming = true;
  #failures = 0;
  #connected = false;

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
    this.#failures = 0;
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
    this.#connected = true;
    document.addEventListener('visibilitychange', this.#onVisibility);
    this.#resume();
  }

  hostDisconnected(): void {
    this.#connected = false;
    document.removeEventListener('visibilitychange', this.#onVisibility);
    this.#pause();
  }

  #onVisibility = (): void => {
    if (document.hidden) this.#pause();
    else this.#resume();
  };

  #resume(): void {
    if (!this.#target || !this.#connected || document.hidden || this.#source) return;
    if (this.#streaming) this.#open(this.#target);
    else this.#schedule(0);
  }

  #pause(): void {
    this.#source?.close();
    this.#source = undefined;
    clearTimeout(this.#timer);
    this.#inflight?.abort();
    this.#inflight = undefined;
  }

  #open(target: Target): void {
    const source = new target._EventSource(target._client._eventsUrl(target._ref));
    this.#source = source;
    source.addEventListener('status', (event) => {
      const view = parseView((event as MessageEvent<string>).data);
      if (view && this.#source === source) this.#deliver(view);
    });
    source.addEventListener('error', () => {
      if (this.#source !== source) return;
      source.close();
      this.#source = undefined;
      this.#streaming = false;
      this.#schedule(0);
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
      if (this.#target && !this.#streaming) this.#schedule(this.#options._pollInterval ?? 3000);
    } catch (error) {
      if (this.#inflight !== inflight) return;
      this.#inflight = undefined;
      this.#failures++;
      if (!this.#options._onError(error)) return this.stop();
      if (!this.#streaming) this.#schedule(backoffDelay(this.#failures, this.#options.backoff));
    }
  }
}
