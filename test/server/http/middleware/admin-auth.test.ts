// Wrong admin tokens are throttled per client (issue 41): 10 refused tokens at once (refilled over a
// minute, the create's token bucket), and the one past them locks that client out for a minute: 429
// too_many_attempts with Retry-After, the right token included. Other clients are not concerned;
// each refusal is logged once at warn, without the token. Over real HTTP, on the harness's clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADMIN_FAILURE_WINDOW_MS, ADMIN_MAX_FAILURES } from '../../../../server/http/middleware/admin-auth.js';
import { startHarness, TEST_ADMIN_TOKEN } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const CLIENT = 'x-test-client';

async function start(t: Parameters<typeof startHarness>[0]): Promise<Harness> {
  return startHarness(t, {
    env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN },
    clientKey: (c) => c.req.header(CLIENT) ?? 'nobody',
  });
}

/** GET /api/admin/customers (the store only, no service call) from `client` with `authorization`. */
function ask(h: Harness, client: string, authorization: string | null): Promise<Response> {
  const headers: Record<string, string> = { [CLIENT]: client };
  if (authorization !== null) headers.Authorization = authorization;
  return h.request('/api/admin/customers', { headers });
}

const right = `Bearer ${TEST_ADMIN_TOKEN}`;
const wrong = (i: number) => `Bearer wrong-admin-token-${String(i).padStart(4, '0')}-abcdef0123456789`;

interface Line { level: string; msg: string; reason?: string; client?: string; retryAfterSeconds?: number }
const refusals = (h: Harness) => h.logs.map((l) => JSON.parse(l) as Line).filter((l) => l.msg.startsWith('admin: request refused'));

async function errorOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

test('the numbers: 10 refused tokens at once, a minute', () => {
  assert.equal(ADMIN_MAX_FAILURES, 10);
  assert.equal(ADMIN_FAILURE_WINDOW_MS, 60_000);
});

test('over HTTP: 10 wrong tokens answer 401, the 11th 429 too_many_attempts with Retry-After, then the right one too until the minute passes; other clients are not concerned', async (t) => {
  const h = await start(t);
  // A right token works before anything.
  assert.equal((await ask(h, 'a', right)).status, 200);

  for (let i = 0; i < ADMIN_MAX_FAILURES; i++) {
    const res = await ask(h, 'a', wrong(i));
    assert.equal(res.status, 401, `wrong token ${i + 1}`);
    assert.equal(await errorOf(res), 'unauthorized');
    assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="admin"');
    h.clock.advance(100);
  }
  const over = await ask(h, 'a', wrong(10));
  assert.equal(over.status, 429);
  assert.equal(await errorOf(over), 'too_many_attempts');
  assert.equal(over.headers.get('retry-after'), '60');

  // Locked out: the right token is refused as well (no answer tells a right guess from a wrong one).
  h.clock.advance(30_000);
  const rightMeanwhile = await ask(h, 'a', right);
  assert.equal(rightMeanwhile.status, 429);
  assert.equal(await errorOf(rightMeanwhile), 'too_many_attempts');
  assert.equal(rightMeanwhile.headers.get('retry-after'), '30');
  const none = await ask(h, 'a', null);
  assert.equal(none.status, 429);

  // Another client: its right token works, its wrong one is a plain 401.
  assert.equal((await ask(h, 'b', right)).status, 200);
  const other = await ask(h, 'b', wrong(99));
  assert.equal(other.status, 401);
  assert.equal(await errorOf(other), 'unauthorized');

  // Once the minute since the lock-out has passed, the client is back with a full allowance.
  h.clock.advance(29_000);
  const last = await ask(h, 'a', right);
  assert.equal(last.status, 429);
  assert.equal(last.headers.get('retry-after'), '1');
  h.clock.advance(1_000);
  assert.equal((await ask(h, 'a', right)).status, 200);
  for (let i = 0; i < ADMIN_MAX_FAILURES; i++) assert.equal((await ask(h, 'a', wrong(i))).status, 401, `again, wrong token ${i + 1}`);
  assert.equal((await ask(h, 'a', wrong(10))).status, 429);

  // Each refusal once, at warn, with the client and the reason; never a token, right or wrong.
  const lines = refusals(h);
  assert.equal(lines.length, 10 + 1 + 3 + 1 + 10 + 1);
  assert.ok(lines.every((l) => l.level === 'warn'));
  assert.deepEqual(lines.map((l) => `${l.client}:${l.reason}`).slice(10, 16),
    ['a:wrong_token', 'a:locked_out', 'a:locked_out', 'b:wrong_token', 'a:locked_out', 'a:wrong_token']);
  assert.equal(lines[11]!.retryAfterSeconds, 30);
  for (let i = 0; i <= 99; i++) {
    const sent = wrong(i).slice('Bearer '.length);
    assert.ok(h.logs.every((line) => !line.includes(sent)), `token ${i} is in no log line`);
  }
  assert.ok(h.logs.every((line) => !line.includes(TEST_ADMIN_TOKEN)));
});

test('over HTTP: the allowance refills evenly: one wrong token each 6 s from a client is never locked out', async (t) => {
  const h = await start(t);
  for (let i = 0; i < 3 * ADMIN_MAX_FAILURES; i++) {
    assert.equal((await ask(h, 'slow', wrong(i))).status, 401, `wrong token ${i + 1}`);
    h.clock.advance(ADMIN_FAILURE_WINDOW_MS / ADMIN_MAX_FAILURES);
  }
  assert.equal((await ask(h, 'slow', right)).status, 200);
  // Missing and malformed credentials are refusals too, counted alike.
  for (let i = 0; i < ADMIN_MAX_FAILURES; i++) assert.equal((await ask(h, 'scanner', i % 2 ? null : 'Basic Zm9vOmJhcg==')).status, 401);
  assert.equal((await ask(h, 'scanner', null)).status, 429);
  assert.deepEqual([...new Set(refusals(h).filter((l) => l.client === 'scanner').map((l) => l.reason))], ['not_bearer', 'no_token']);
});
