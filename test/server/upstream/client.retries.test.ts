// Which operations retry, how long they wait, and how timeouts and aborts end a call.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import {
  BillApiAbortError, BillApiError, BillApiHttpError, BillApiNetworkError, BillApiRejectedError, BillApiThrottledError, BillApiTimeoutError,
  type BillApiOptions,
} from '../../../server/upstream/index.js';
import { nodeHttpClient } from '../../../server/platform/node/http-client.js';
import { createBudget } from '../../../server/upstream/budget.js';
import { listen } from '../../sandbox/support/harness.js';
import { freePort } from '../support/servers.js';
import { recordingClient } from '../support/upstream-client.js';

type App = Hono<{ Bindings: HttpBindings }>;


const RECORD = {
  billId: 'B1', merchantReference: 'M1', requestReference: 'RQ1', paymentReference: '', billAmount: '10.00',
  currency: 'USD', status: 1, statusName: 'Pending Payment', isFinal: false, dateTime: 1,
};
const CREATED = {
  billId: 'B1', billUrl: 'http://x/pay/B1', billAmount: 10, requireGCAmount: 0.125, currency: 'USD',
  // A bill's expiry a quarter of an hour ahead (the client refuses an expiredOn no bill can have).
  merchantReference: 'M1', expiredOn: Date.now() + 900_000,
};
const ok = (data: unknown) => ({ code: 0, message: 'OK', data });
const CREATE_INPUT = { amount: '10.00', merchantReference: 'M1', callbackUrl: 'http://m/cb', redirectUrl: 'http://m/r' };

/** Resolves when the awaited rejection is an instance of `cls`; hands the error back. */
async function rejectsWith<E extends Error>(promise: Promise<unknown>, cls: new (...a: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof cls, `expected ${cls.name}, got ${String(err)}`);
    return err;
  }
  assert.fail(`expected ${cls.name}, but the call succeeded`);
}

// Every test runs over both HTTP clients: the web default (undici's fetch) and the Node entry's nodeHttpClient.
for (const [via, fetchImpl] of [['fetch', undefined], ['node:http', nodeHttpClient()]] as const) {
  function client(base: string, env: Record<string, string>, extra: Partial<BillApiOptions> = {}) {
    return recordingClient(base, env, { baseBackoffMs: 100, maxBackoffMs: 300, ...(fetchImpl ? { http: fetchImpl } : {}), ...extra });
  }

  test(`requery retries HTTP 5xx with capped exponential backoff, then succeeds (${via})`, async (t) => {
    let calls = 0;
    const app: App = new Hono();
    app.get('/v1/bill/requery', (c) => (++calls <= 4 ? c.json({ code: 1500, message: 'busy', data: null }, 503) : c.json(ok(RECORD))));
    const { api, delays } = client(await listen(t, app), { BILL_API_RETRIES: '5' });

    const record = await api.requeryBill('B1');
    assert.equal(record.billId, 'B1');
    assert.equal(calls, 5);
    // random() = 0.5 of min(300, 100 × 2^n): grows, then stays at the cap.
    assert.deepEqual(delays, [50, 100, 150, 150]);
  });

  test(`requery gives up after BILL_API_RETRIES and says how many attempts it made (${via})`, async (t) => {
    let calls = 0;
    const app: App = new Hono();
    app.get('/v1/bill/requery', (c) => {
      calls++;
      return c.text('upstream down', 502);
    });
    const { api, delays } = client(await listen(t, app), { BILL_API_RETRIES: '2' });

    const err = await rejectsWith(api.requeryBill('B1'), BillApiHttpError);
    assert.equal(calls, 3);
    assert.equal(delays.length, 2);
    assert.equal(err.httpStatus, 502);
    assert.equal(err.attempts, 3);
    assert.match(err.message, /gave up after 3 attempts/);
  });

  test(`requery retries a dropped connection; a 429 is not retried on a watcher's behalf and pauses requeries for everyone (${via})`, async (t) => {
    let calls = 0;
    const app: App = new Hono();
    app.get('/v1/bill/requery', (c) => {
      calls++;
      if (calls === 1) {
        c.env.incoming.socket.destroy();
        return new Promise<Response>(() => {});
      }
      if (calls === 2) return c.json({ code: 1429, message: 'slow down', data: null }, 429, { 'Retry-After': '2' });
      return c.json(ok(RECORD));
    });
    let now = 1_000_000;
    const budget = createBudget({ maxRps: null, now: () => now });
    const { api, delays } = client(await listen(t, app), {}, { budget, now: () => now });

    const err = await rejectsWith(api.requeryBill('B1', { priority: 'watch' }), BillApiThrottledError);
    assert.equal(calls, 2);
    assert.deepEqual(delays, [50]);
    assert.equal(err.httpStatus, 429);
    assert.equal(err.retryAfterMs, 2000);
    assert.match(err.message, /refused for load.*BILL_API_MAX_RPS/);
    // Paused for every caller until the Retry-After: a customer that cannot wait that long is told so at once.
    assert.equal(budget.state().paused.requery, now + 2000);
    const busy = await rejectsWith(api.requeryBill('B1', { priority: 'customer', maxWaitMs: 1000 }), BillApiThrottledError);
    assert.equal(busy.httpStatus, null);
    assert.equal(calls, 2);
    now += 2000;
    assert.equal((await api.requeryBill('B1')).status, 1);
    assert.equal(calls, 3);
  });

  test(`a call handed a reserved turn sends its first attempt on it; a retry, or a second call, waits for its own (${via})`, async (t) => {
    let calls = 0;
    const app: App = new Hono();
    // The second request of all is refused with a 503: the call that meets it retries.
    app.get('/v1/bill/requery', (c) => (++calls === 2 ? c.json({ code: 1500, message: 'busy', data: null }, 503) : c.json(ok(RECORD))));
    const budget = createBudget({ maxRps: null });
    let grants = 0;
    budget.observe({ granted: () => void grants++, throttled: () => undefined });
    const { api } = client(await listen(t, app), { BILL_API_RETRIES: '2' }, { budget });

    const turn = await api.reserveTurn!('requery', { priority: 'watch' });
    assert.equal(grants, 1);
    assert.equal((await api.requeryBill('B1', { priority: 'watch', turn })).billId, 'B1');
    assert.equal(calls, 1);
    assert.equal(grants, 1, 'sent on the reserved turn: no second grant');
    // Used: handed to another call, it is no turn (that call waits for its own); its retry too.
    assert.equal((await api.requeryBill('B1', { priority: 'watch', turn })).billId, 'B1');
    assert.equal(calls, 3);
    assert.equal(grants, 3, 'the second call took a turn, and its retry another');
    // A turn the call could not wait for fails as the call would.
    budget.answered('requery', 429, 5_000);
    const refused = await rejectsWith(api.reserveTurn!('requery', { priority: 'customer', maxWaitMs: 1000 }), BillApiThrottledError);
    assert.equal(refused.operation, 'requery');
  });

  test(`news retries a 429 in its turn, after the pause the service asked for (${via})`, async (t) => {
    let calls = 0;
    const app: App = new Hono();
    app.get('/v1/bill/requery', (c) => {
      calls++;
      if (calls === 1) return c.json({ code: 1429, message: 'slow down', data: null }, 429, { 'Retry-After': '1' });
      return c.json(ok(RECORD));
    });
    let now = 1_000_000;
    const timers: { at: number; run: () => void }[] = [];
    const budget = createBudget({
      maxRps: null, now: () => now,
      setTimer: (run, ms) => timers.push({ at: now + ms, run }),
      clearTimer: () => undefined,
    });
    const { api, delays } = client(await listen(t, app), {}, { budget, now: () => now });
    const answer = api.requeryBill('B1', { priority: 'news' });
    // The retry waits for its turn: the budget's timer is set for the end of the pause.
    while (timers.length === 0) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(calls, 1);
    assert.equal(timers[0]!.at, now + 1000);
    now += 1000;
    timers.shift()!.run();
    assert.equal((await answer).status, 1);
    assert.equal(calls, 2);
    assert.deepEqual(delays, [0]);
  });

  test(`list retries too; a 4xx refusal is not retried (${via})`, async (t) => {
    let calls = 0;
    const app: App = new Hono();
    app.post('/v1/bills', (c) => {
      calls++;
      return calls === 1 ? c.text('oops', 500) : c.json({ code: 1003, message: 'unknown filter', data: null }, 400);
    });
    const { api } = client(await listen(t, app), {});

    const err = await rejectsWith(api.listBills({ filters: [{ name: 'nope', value: 'x', matchType: 'equal' }] }), BillApiRejectedError);
    assert.equal(calls, 2);
    assert.equal(err.code, 1003);
    assert.equal(err.retryable, false);
  });

  test(`create is sent exactly once: a 503 leaves the outcome unknown (${via})`, async (t) => {
    let calls = 0;
    const app: App = new Hono();
    app.post('/v1/bill/create', (c) => {
      calls++;
      return c.json({ code: 1500, message: 'lost', data: null }, 503);
    });
    const { api, delays } = client(await listen(t, app), { BILL_API_RETRIES: '5' });

    const err = await rejectsWith(api.createBill(CREATE_INPUT), BillApiError);
    assert.equal(calls, 1);
    assert.deepEqual(delays, []);
    assert.equal(err.outcomeUnknown, true);
    assert.equal(err.retryable, false, 'not safe to repeat before settling');
    assert.match(err.message, /findByMerchantReference/);
  });

  test(`create that times out is not retried and its outcome is unknown (${via})`, async (t) => {
    let calls = 0;
    const app: App = new Hono();
    app.post('/v1/bill/create', () => {
      calls++;
      return new Promise<Response>(() => {});
    });
    const { api } = client(await listen(t, app), { BILL_API_TIMEOUT_MS: '60' });

    const err = await rejectsWith(api.createBill(CREATE_INPUT), BillApiTimeoutError);
    assert.equal(calls, 1);
    assert.equal(err.outcomeUnknown, true);
    assert.equal(err.timeoutMs, 60);
    assert.match(err.message, /BILL_API_TIMEOUT_MS/);
  });

  test(`create refused by the service (4xx envelope) is a known outcome (${via})`, async (t) => {
    const app: App = new Hono();
    app.post('/v1/bill/create', (c) => c.json({ code: 1003, message: 'amount must be > 0', data: null }, 400));
    const { api } = client(await listen(t, app), {});

    const err = await rejectsWith(api.createBill({ ...CREATE_INPUT, amount: '0' }), BillApiRejectedError);
    assert.equal(err.outcomeUnknown, false);
    assert.equal(err.httpStatus, 400);
  });

  test(`create over a refused connection is not retried and may have been sent (${via})`, async () => {
    // A port nothing listens on: one just freed.
    const closed = `http://127.0.0.1:${await freePort()}`;
    const { api, delays } = client(closed, {});

    const err = await rejectsWith(api.createBill(CREATE_INPUT), BillApiNetworkError);
    assert.equal(err.outcomeUnknown, true);
    assert.deepEqual(delays, []);
    assert.match(err.message, /ECONNREFUSED/);
    assert.match(err.message, /BILL_API_BASE_URL/);

    const requery = await rejectsWith(client(closed, { BILL_API_RETRIES: '2' }).api.requeryBill('B1'), BillApiNetworkError);
    assert.equal(requery.attempts, 3);
  });

  test(`a server that never answers ends in a timeout per attempt, retried for requery (${via})`, async (t) => {
    let calls = 0;
    const app: App = new Hono();
    app.get('/v1/bill/requery', () => {
      calls++;
      return new Promise<Response>(() => {});
    });
    const { api } = client(await listen(t, app), { BILL_API_TIMEOUT_MS: '40', BILL_API_RETRIES: '1' });

    const err = await rejectsWith(api.requeryBill('B1'), BillApiTimeoutError);
    assert.equal(calls, 2);
    assert.equal(err.retryable, true);
    assert.equal(err.outcomeUnknown, false);
  });

  test(`an answer whose body stalls ends in a timeout (${via})`, async (t) => {
    const app: App = new Hono();
    app.get('/v1/bill/requery', () => new Response(new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"code":0,'));
      },
    }), { headers: { 'Content-Type': 'application/json' } }));
    const { api } = client(await listen(t, app), { BILL_API_TIMEOUT_MS: '40', BILL_API_RETRIES: '0' });
    await rejectsWith(api.requeryBill('B1'), BillApiTimeoutError);
  });

  test(`an answer cut off in its body is a network error, and requery retries it (${via})`, async (t) => {
    let calls = 0;
    const app: App = new Hono();
    app.get('/v1/bill/requery', (c) => {
      calls++;
      if (calls > 1) return c.json(ok(RECORD));
      c.env.outgoing.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '500' });
      c.env.outgoing.write('{"code":0,"data":', () => c.env.incoming.socket.destroy());
      return new Promise<Response>(() => {});
    });
    const base = await listen(t, app);
    const cut = await rejectsWith(client(base, { BILL_API_RETRIES: '0' }).api.requeryBill('B1'), BillApiNetworkError);
    assert.equal(cut.retryable, true);
    calls = 0;
    assert.equal((await client(base, { BILL_API_RETRIES: '1' }).api.requeryBill('B1')).status, 1);
    assert.equal(calls, 2);
  });

  test(`the caller's abort is not retried and surfaces as an AbortError (${via})`, async (t) => {
    let calls = 0;
    let arrived!: () => void;
    const reached = new Promise<void>((r) => (arrived = r));
    const app: App = new Hono();
    app.all('*', () => {
      calls++;
      arrived();
      return new Promise<Response>(() => {});
    });
    const { api, delays } = client(await listen(t, app), { BILL_API_RETRIES: '3' });

    const controller = new AbortController();
    const pending = api.requeryBill('B1', { signal: controller.signal });
    await reached;
    controller.abort();
    const err = await rejectsWith(pending, BillApiAbortError);
    assert.equal(err.name, 'AbortError');
    assert.equal(calls, 1);
    assert.deepEqual(delays, []);

    const already = AbortSignal.abort();
    const notSent = await rejectsWith(api.createBill(CREATE_INPUT, { signal: already }), BillApiAbortError);
    assert.equal(notSent.outcomeUnknown, false, 'a create aborted before sending has a known outcome');
    assert.equal(calls, 1);
  });

  test(`an abort during the backoff wait ends the retries (${via})`, async (t) => {
    let calls = 0;
    const app: App = new Hono();
    app.get('/v1/bill/requery', (c) => {
      calls++;
      return c.text('down', 503);
    });
    const controller = new AbortController();
    const { api } = client(await listen(t, app), { BILL_API_RETRIES: '3' }, {
      sleep: (_ms, signal) => new Promise((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason));
        controller.abort();
      }),
    });

    await rejectsWith(api.requeryBill('B1', { signal: controller.signal }), BillApiAbortError);
    assert.equal(calls, 1);
  });

  test(`cancel and bind are never retried (${via})`, async (t) => {
    let calls = 0;
    const app: App = new Hono();
    app.post('*', (c) => {
      calls++;
      return c.text('down', 503);
    });
    const { api } = client(await listen(t, app), { BILL_API_RETRIES: '3' });

    await rejectsWith(api.cancelBill('B1'), BillApiHttpError);
    await rejectsWith(api.bindCustomer({ name: 'Ann', email: 'a@x' }), BillApiHttpError);
    assert.equal(calls, 2);
  });

  test(`a create answer with a well-formed body is read (${via})`, async (t) => {
    const app: App = new Hono();
    app.post('/v1/bill/create', (c) => c.json(ok(CREATED)));
    const { api } = client(await listen(t, app), {});
    const bill = await api.createBill(CREATE_INPUT);
    assert.deepEqual(bill, { ...CREATED, billAmount: '10', requireGCAmount: '0.125', expiresLocalAt: bill.expiresLocalAt, clockDisagreed: false });
    // The bill's lifetime on our clock: about a quarter of an hour from its answer.
    assert.ok(Math.abs(bill.expiresLocalAt - CREATED.expiredOn) < 60_000, `expiresLocalAt ${bill.expiresLocalAt}`);
  });
}

test('nodeHttpClient refuses an answer longer than its maxBytes instead of holding it all', async (t) => {
  const app: App = new Hono();
  app.get('/v1/bill/requery', (c) => c.json(ok({ ...RECORD, requestReference: 'x'.repeat(5000) })));
  const base = await listen(t, app);
  const small = recordingClient(base, { BILL_API_RETRIES: '0' }, { http: nodeHttpClient({ maxBytes: 1000 }) });
  const err = await rejectsWith(small.api.requeryBill('B1'), BillApiNetworkError);
  assert.match(err.message, /longer than 1000 bytes/);
  const roomy = recordingClient(base, { BILL_API_RETRIES: '0' }, { http: nodeHttpClient({ maxBytes: 10_000 }) });
  assert.equal((await roomy.api.requeryBill('B1')).requestReference?.length, 5000);
});

test('nodeHttpClient closes a kept-alive socket once idle, before the server would', { timeout: 10_000 }, async (t) => {
  const server = createServer((_req, res) => res.end(JSON.stringify(ok(RECORD))));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const closed = new Promise<void>((resolve) => server.on('connection', (socket) => socket.on('close', () => resolve())));
  const { api } = recordingClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {}, { http: nodeHttpClient({ idleMs: 200 }) });
  assert.equal((await api.requeryBill('B1')).status, 1);
  // The client hangs up after 200 ms idle; the server would wait a minute.
  await closed;
});
