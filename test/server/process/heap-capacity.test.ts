// What the start-up check says about the heap against MAX_SSE_CONNECTIONS (server/process/heap-capacity.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heapCapacityWarning, heapMibFor, streamsTheHeapHolds } from '../../../server/process/heap-capacity.js';

const MiB = 2 ** 20;

test('the heap a machine of 1 GiB gets by default holds the default cap; half of it does not', () => {
  // Node 20's default heap limit on 1 GiB of memory is about 464 MiB, on 512 MiB about 259.
  assert.ok(streamsTheHeapHolds(464 * MiB) >= 20_000);
  assert.equal(heapCapacityWarning(464 * MiB, 20_000), null);
  const warning = heapCapacityWarning(259 * MiB, 20_000);
  assert.ok(warning);
  assert.match(warning, /MAX_SSE_CONNECTIONS is 20000, but this process's JS heap \(limit 259 MiB\) holds about \d+ open checkouts/);
  assert.match(warning, /--max-old-space-size=\d+ or more/);
});

test('the heap it advises holds the cap it was asked for, and no more heap than that is asked', () => {
  for (const streams of [1_000, 20_000, 50_000, 120_000]) {
    const mib = heapMibFor(streams);
    assert.ok(streamsTheHeapHolds(mib * MiB) >= streams, `${mib} MiB for ${streams}`);
    assert.ok(streamsTheHeapHolds((mib - 2) * MiB) < streams, `${mib - 2} MiB would do for ${streams}`);
    assert.equal(heapCapacityWarning(mib * MiB, streams), null);
    assert.match(heapCapacityWarning((mib - 2) * MiB, streams) ?? '', new RegExp(`max-old-space-size=${mib} or more`));
  }
});

test('a runtime that does not say its heap, or a heap too small for anything, is handled', () => {
  assert.equal(heapCapacityWarning(null, 1_000_000), null);
  assert.equal(heapCapacityWarning(Number.NaN, 1_000), null);
  assert.equal(streamsTheHeapHolds(64 * MiB), 0);
  assert.match(heapCapacityWarning(64 * MiB, 1) ?? '', /holds about 0 open checkouts/);
});
