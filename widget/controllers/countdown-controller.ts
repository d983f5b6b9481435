import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Clock } from '../clock.js';

/** Counts down to a deadline on the server's clock, updating its host once a second. */
export class CountdownController implements ReactiveController {
  #deadline: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #connected?: boolean;
  #ended?: boolean;

  readonly #host: ReactiveControllerHost;
  readonly #clock: Clock;
  readonly #onEnd: () => void;

  constructor(host: ReactiveControllerHost, clock: Clock, onEnd: () => void) {
    this.#host = host;
    this.#clock = clock;
    this.#onEnd = onEnd;
    host.addController(this);
  }

  /** Milliseconds left, `Infinity` without a deadline. */
  get _remaining(): number {
    return this.#deadline === undefined ? Infinity : Math.max(0, this.#deadline - this.#clock.now());
  }

  /** Counts down to `deadline` (unix ms, server clock), or stops when `undefined`. */
  set(deadline: number | undefined): void {
    if (deadline === this.#deadline) return;
    this.#deadline = deadline;
    this.#ended = false;
    this.#tick();
  }

  hostConnected(): void {
    this.#connected = true;
    this.#tick();
  }

  hostDisconnected(): void {
    this.#connected = false;
    clearTimeout(this.#timer);
  }

  #tick = (): void => {
    clearTimeout(this.#timer);
    if (!this.#connected || this.#deadline === undefined) return;
    const left = this._remaining;
    this.#host.requestUpdate();
    if (left > 0) {
      // Wake on the next whole-second boundary of the displayed value.
      this.#timer = setTimeout(this.#tick, ((left - 1) % 1000) + 1);
    } else if (!this.#ended) {
      this.#ended = true;
      this.#onEnd();
    }
  };
}
