// Short form of test/reliability/abuse.ts, against server/main.ts in its own process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAbuse } from '../reliability/abuse.js';
import { printFigures } from '../reliability/support/figures.js';

test('the create rate limit holds per client, and an SSE flood is capped without starving other requests', async (t) => {
  const f = await runAbuse(t, { limit: 8, sseCap: 100, sseAttempts: 400 });
  printFigures('abuse', f);
  assert.deepEqual(f.rateLimit.clientA, { 201: 8, 429: 5 });
  assert.deepEqual(f.rateLimit.clientB, { 201: 8 }, 'another address keeps its own allowance');
  assert.ok(Number(f.rateLimit.retryAfter) >= 1);
  assert.equal(f.sseFlood.streamed, f.sseFlood.cap);
  assert.equal(f.sseFlood.refused, f.sseFlood.attempts - f.sseFlood.cap);
  assert.ok(f.sseFlood.maxMs < 1000, `health and reads stayed fast (max ${f.sseFlood.maxMs} ms)`);
  assert.ok(f.sseFlood.afterFloodOpens, 'closed streams free their places');
});
