// Waiting in tests and benchmarks: a deadline on a promise, and work over many items a few at a time.
// Plain JavaScript (typed by promises.d.mts): test/engines/ loads it without TypeScript.

/**
 * Rejects with `message` if `promise` has not settled within `ms` (a guard against a hang, never a
 * wait); a rejection of `promise` after that is ignored.
 */
export function within(promise, ms, message) {
  promise.catch(() => undefined);
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Runs `work` over `items`, at most `limit` at a time. */
export async function eachLimited(items, limit, work) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
