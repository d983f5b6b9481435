// Work that must not overlap for one key (creates of one order, so the second finds the first one's
// bill) runs one after another; work for other keys runs alongside. A queue is dropped once empty.

export interface SerialQueues<T> {
  /** Runs `work` once every earlier work of `key` has ended, resolved or rejected. */
  run(key: string, work: () => Promise<T>): Promise<T>;
  /** Keys with work queued or running. */
  size(): number;
}

export function createSerialQueues<T>(): SerialQueues<T> {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run(key, work) {
      const previous = tails.get(key) ?? Promise.resolve();
      const run = previous.then(work, work);
      const tail = run.catch(() => undefined);
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return run;
    },
    size: () => tails.size,
  };
}
