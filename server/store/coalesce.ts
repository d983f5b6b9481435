/**
 * Group commit for a store's small writes: an item submitted while a write is in flight waits and
 * goes with the others in the next one. At low load each item is written alone and at once; under
 * load a burst costs one round trip. `write` answers one result per item, in order; when it fails,
 * every item of that batch fails with its error. `defer` is how long a batch gathers before it
 * is written: the current microtasks (the default), or longer, e.g. `setImmediate` for what the
 * rest of this turn of the event loop submits. `lanes`: batches in flight at once; an item waits
 * only while every lane is writing, then goes with the others that waited.
 */
export function coalesce<I, O>(
  write: (items: I[]) => Promise<O[]>,
  maxBatch = 100,
  defer: (run: () => void) => void = queueMicrotask,
  lanes = 1,
): (item: I) => Promise<O> {
  let queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  let writing = 0;
  let gathering = false;

  function flush(): void {
    if (gathering || writing >= lanes || queue.length === 0) return;
    gathering = true;
    defer(() => {
      gathering = false;
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(maxBatch);
      writing++;
      Promise.resolve()
        .then(() => write(batch.map((e) => e.item)))
        .then((results) => {
          if (results.length !== batch.length) throw new Error(`a batch write answered ${results.length} results for ${batch.length} items`);
          batch.forEach((e, i) => e.resolve(results[i]!));
        })
        .catch((error: unknown) => batch.forEach((e) => e.reject(error)))
        .finally(() => {
          writing--;
          flush();
        });
      flush();
    });
  }

  return (item) => new Promise<O>((resolve, reject) => {
    queue.push({ item, resolve, reject });
    flush();
  });
}
