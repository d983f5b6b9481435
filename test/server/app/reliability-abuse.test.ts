// Short form of test/reliability/abuse.ts, against server/main.ts in its own process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAbuse } from '../../reliability/abuse.js';
import { printFigures } from '../../reliability/support/figures.js';

test('the create rate limit holds per client, and an SSE flood is capped without starving other requests', async (t) => {
  const f = await runAbuse(t, { limit: 8, sseCap: 100, sseAttempts: 400 });
  printFigures('abuse', f);
  assert.deepEqual(f.rateLimit.clientA, { 201: 8, 429: 5 });
  assert.deepEqual(f.rateLimit.clientB, { 201: 8 }, 'another address keeps its own allowance');
  assert.ok(Number(f.rateLimit.retryAfter) >= 1);
  assert.equal(f.sseFlood.streamed, f.sseFlood.cap);
  assert.equal(f.sseFlood.refused, f.sseFlood.attempts - f.sseFlood.cap);
  // Every health check and read during the flood answered 200 (runAbuse checks each); how fast is a
  // figure printed above, not a pass mark: a busy machine must not fail the behaviour.
  assert.equal(f.sseFlood.other, 0, 'no stream attempt failed other than by the cap');
  assert.ok(f.sseFlood.afterFloodOpens, 'closed streams free their places');
});
