// Every timer the sandbox starts goes through here, so close() and reset() can stop them all.

export class TimerSet {
  readonly #handles = new Set<ReturnType<typeof setTimeout>>();
  readonly #sleepers = new Set<() => void>();

  after(ms: number, fn: () => void): void {
    const h = setTimeout(() => {
      this.#handles.delete(h);
      fn();
    }, ms);
    this.#handles.add(h);
  }

  /** Resolves after `ms`, or at once when the set is cleared. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const h = setTimeout(done, ms);
      const sleepers = this.#sleepers;
      function done(): void {
        clearTimeout(h);
        sleepers.delete(done);
        resolve();
      }
      sleepers.add(done);
    });
  }

  /** Cancels scheduled callbacks; wakes sleepers. */
  clear(): void {
    for (const h of this.#handles) clearTimeout(h);
    this.#handles.clear();
    for (const wake of [...this.#sleepers]) wake();
  }
}
