// How many open checkouts the process's JS heap holds, against MAX_SSE_CONNECTIONS. Node sizes its
// heap from the machine's memory (about a quarter of it, at most 4 GiB): on a small instance the
// stream cap can be above what the heap holds, and a sale that fills it would end with the process
// out of memory and every stream dropped at once, where the cap would have told widgets to poll.

/**
 * The live heap an open checkout holds (its socket, request, response, subscription, bill and the
 * requery its opening queued), bytes: 10.7 KiB each at 19,000 open on the compiled server that
 * `npm start` runs, 12.0–12.5 KiB on the sources through tsx (`node bench/flash-sale.mjs
 * --live-heap`), and a little more.
 */
export const HEAP_PER_STREAM_BYTES = 13 * 1024;
/** What the heap needs besides the streams (code, caches, a sale's requests in flight), bytes. */
export const HEAP_BASE_BYTES = 64 * 1024 * 1024;
/** The share of the heap's limit the streams may fill: V8 collects ever more often as the heap nears it. */
const USABLE_SHARE = 0.85;

/** The open checkouts a heap of `limitBytes` holds with room to collect. */
export function streamsTheHeapHolds(limitBytes: number): number {
  return Math.max(0, Math.floor((limitBytes * USABLE_SHARE - HEAP_BASE_BYTES) / HEAP_PER_STREAM_BYTES));
}

/** The heap's limit that holds `streams` open checkouts, MiB (what `--max-old-space-size` would need). */
export function heapMibFor(streams: number): number {
  return Math.ceil((streams * HEAP_PER_STREAM_BYTES + HEAP_BASE_BYTES) / USABLE_SHARE / 2 ** 20);
}

/**
 * A warning when the stream cap is above what the heap holds (null when it is not, or the runtime
 * does not say its heap's limit), telling the operator both ways out.
 */
export function heapCapacityWarning(heapLimitBytes: number | null, maxStreams: number): string | null {
  if (heapLimitBytes === null || !(heapLimitBytes > 0)) return null;
  const holds = streamsTheHeapHolds(heapLimitBytes);
  if (maxStreams <= holds) return null;
  const mib = Math.floor(heapLimitBytes / 2 ** 20);
  return `MAX_SSE_CONNECTIONS is ${maxStreams}, but this process's JS heap (limit ${mib} MiB) holds about ${holds} open checkouts: ` +
    'a sale that opens more would run it out of memory and drop every stream at once. ' +
    `Start Node with a larger heap (NODE_OPTIONS=--max-old-space-size=${heapMibFor(maxStreams)} or more, with about 5 KiB of memory ` +
    'per connection left beside it) or lower MAX_SSE_CONNECTIONS to what the instance holds (docs/scaling.md#memory).';
}
