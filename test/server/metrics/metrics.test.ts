// Prometheus metrics: GET /metrics behind METRICS_TOKEN (or on METRICS_PORT), what each counter and
// gauge says after real traffic between the BFF and the sandbox, and /readyz.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { ConfigError, loadConfig } from '../../../server/config.js';
import { silentLogger } from '../../../server/log.js';
import type { Store } from '../../../server/store/types.js';
import { serveBillCheckout } from '../../../server/process/serve.js';
import { nextCallback, startHarness } from '../support/harness.js';
import type { Harness, HarnessOptions } from '../support/harness.js';
import { parseExposition } from '../support/prometheus.js';
import type { Exposition } from '../support/prometheus.js';
import { readSse } from '../support/sse.js';
import { defer, temporaryFolder } from '../support/cleanup.js';
import { freePort } from '../support/servers.js';

const METRICS_TOKEN = 'test-metrics-token-6c1f0e9a2b4d8f3e';
const auth = { Authorization: `Bearer ${METRICS_TOKEN}` };
const json = { 'Content-Type': 'application/json' };

async function withMetrics(t: TestContext, options: HarnessOptions = {}): Promise<Harness> {
  return startHarness(t, { ...options, env: { METRICS_TOKEN, ...options.env } });
}

async function scrape(h: Harness): Promise<Exposition> {
  const res = await h.request('/metrics', { headers: auth });
  assert.equal(res.status, 200, await res.clone().text());
  return parseExposition(await res.text());
}

/** What moved between two scrapes, for one metric and label set. */
const delta = (before: Exposition, after: Exposition, name: string, labels: Record<string, string> = {}) =>
  after.value(name, labels) - before.value(name, labels);

async function hookPath(h: Harness, billId: string, hookToken?: string): Promise<string> {
  const stored = (await h.store.getByBillId(billId))!;
  return `/api/hooks/callback/${stored.merchantReference}/${hookToken ?? stored.hookToken}`;
}

test('/metrics is off without METRICS_TOKEN, then wants its Bearer token; the body is the Prometheus text format', async (t) => {
  const off = await startHarness(t);
  const absent = await off.request('/metrics', { headers: auth });
  assert.equal(absent.status, 404);
  assert.deepEqual(await absent.json(), { error: { code: 'not_found', message: 'No such resource.' } });

  const h = await withMetrics(t);
  const bare = await h.request('/metrics');
  assert.equal(bare.status, 401);
  assert.equal(bare.headers.get('www-authenticate'), 'Bearer realm="metrics"');
  assert.equal(((await bare.json()) as { error: { code: string } }).error.code, 'unauthorized');
  for (const wrong of [`Bearer ${METRICS_TOKEN.slice(0, -1)}x`, `Bearer ${METRICS_TOKEN}x`, `Basic ${METRICS_TOKEN}`, 'Bearer']) {
    const res = await h.request('/metrics', { headers: { Authorization: wrong } });
    assert.equal(res.status, 401, wrong);
    await res.text();
  }
  // The admin token is not the metrics token.
  assert.equal((await h.request('/metrics', { headers: { Authorization: `Bearer ${'x'.repeat(40)}` } })).status, 401);

  const res = await h.request('/metrics', { headers: auth });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const m = parseExposition(await res.text());
  const types: Record<string, string> = {
    bill_checkout_requeries_total: 'COUNTER',
    bill_checkout_upstream_request_duration_seconds: 'HISTOGRAM',
    bill_checkout_upstream_errors_total: 'COUNTER',
    bill_checkout_callbacks_total: 'COUNTER',
    bill_checkout_creates_total: 'COUNTER',
    bill_checkout_notices: 'GAUGE',
    bill_checkout_notice_oldest_pending_age_seconds: 'GAUGE',
    bill_checkout_bills_pending: 'GAUGE',
    bill_checkout_sse_connections: 'GAUGE',
    bill_checkout_store_commit_duration_seconds: 'HISTOGRAM',
    bill_checkout_answer_mismatches_total: 'COUNTER',
    bill_checkout_notice_attempts_total: 'COUNTER',
    bill_checkout_reconcile_backlog_bills: 'GAUGE',
    bill_checkout_reconcile_lag_seconds: 'GAUGE',
  };
  for (const [name, type] of Object.entries(types)) assert.equal(m.type(name), type, name);
  // Known label sets are there from the start, at 0.
  assert.ok(m.has('bill_checkout_requeries_total', { reason: 'callback', result: 'changed' }));
  assert.ok(m.has('bill_checkout_callbacks_total', { result: 'refused_forged' }));
  assert.ok(m.has('bill_checkout_notices', { channel: 'webhook', state: 'pending' }));
  assert.equal(m.value('bill_checkout_bills_pending'), 0);
  // No pass yet, nothing known to be behind (test/server/domain/status/reconciler.test.ts has them behind).
  assert.equal(m.value('bill_checkout_reconcile_backlog_bills'), 0);
  assert.equal(m.value('bill_checkout_reconcile_lag_seconds'), 0);
  // A test process holds several apps: none of them writes the global registry's process metrics.
  assert.ok(!m.has('process_cpu_user_seconds_total'));
  assert.ok(!h.bodies.some((b) => b.includes(METRICS_TOKEN)));
  assert.ok(!h.logs.some((l) => l.includes(METRICS_TOKEN)));
});

test('one payment moves each counter by what it did, and the gauges follow the bill and its notice', async (t) => {
  // The merchant's hook is held until released, so that its notice waits in the outbox meanwhile.
  let hookCalled!: () => void;
  const called = new Promise<void>((resolve) => (hookCalled = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let attemptRecorded!: () => void;
  const recorded = new Promise<void>((resolve) => (attemptRecorded = resolve));
  const h = await withMetrics(t, {
    hooks: { onFinal: () => (hookCalled(), gate) },
    wrapStore: (store) => new Proxy(store, {
      get(target, prop: keyof Store) {
        if (prop === 'finishNoticeAttempt') {
          return async (...args: Parameters<Store['finishNoticeAttempt']>) => {
            const attempt = await target.finishNoticeAttempt(...args);
            attemptRecorded();
            return attempt;
          };
        }
        const value = target[prop];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }),
  });
  const start = await scrape(h);
  const bill = await h.create();
  const created = await scrape(h);
  assert.equal(delta(start, created, 'bill_checkout_creates_total', { result: 'created' }), 1);
  assert.equal(delta(start, created, 'bill_checkout_upstream_request_duration_seconds_count', { operation: 'create' }), 1);
  assert.equal(created.value('bill_checkout_bills_pending'), 1);
  assert.ok(delta(start, created, 'bill_checkout_store_commit_duration_seconds_count', { operation: 'insertBill' }) === 1);
  assert.ok(delta(start, created, 'bill_checkout_store_commit_duration_seconds_count', { operation: 'completeCreate' }) === 1);

  const answered = nextCallback(h.sandbox, bill.billId, 'ok');
  h.sandbox.pay(bill.billId);
  await answered;
  await h.sandbox.idle();
  await called;
  const paid = await scrape(h);
  assert.equal(delta(created, paid, 'bill_checkout_requeries_total', { reason: 'callback', result: 'changed' }), 1);
  assert.equal(delta(created, paid, 'bill_checkout_requeries_total'), 1, 'one requery in all');
  assert.equal(delta(created, paid, 'bill_checkout_callbacks_total', { result: 'accepted' }), 1);
  assert.equal(delta(created, paid, 'bill_checkout_callbacks_total'), 1);
  assert.equal(delta(created, paid, 'bill_checkout_upstream_request_duration_seconds_count', { operation: 'requery' }), 1);
  assert.equal(delta(created, paid, 'bill_checkout_upstream_request_duration_seconds_bucket', { operation: 'requery', le: '+Inf' }), 1);
  assert.equal(paid.value('bill_checkout_upstream_errors_total'), 0);
  assert.equal(delta(created, paid, 'bill_checkout_store_commit_duration_seconds_count', { operation: 'applyStatus' }), 1);
  assert.equal(paid.value('bill_checkout_bills_pending'), 0);
  assert.equal(paid.value('bill_checkout_notices', { channel: 'hook', state: 'pending' }), 1);
  assert.equal(paid.value('bill_checkout_notices', { channel: 'webhook' }), 0);

  // The notice waits: its age is read from the app's clock at every scrape.
  h.clock.advance(5_000);
  const waiting = await scrape(h);
  assert.equal(waiting.value('bill_checkout_notice_oldest_pending_age_seconds', { channel: 'hook' }), 5);
  assert.equal(waiting.value('bill_checkout_notice_oldest_pending_age_seconds', { channel: 'webhook' }), 0);

  release();
  await recorded;
  const told = await scrape(h);
  assert.equal(delta(waiting, told, 'bill_checkout_notice_attempts_total', { channel: 'hook', result: 'delivered', replay: 'false' }), 1);
  assert.equal(delta(waiting, told, 'bill_checkout_notice_attempts_total'), 1);
  assert.equal(told.value('bill_checkout_notices', { channel: 'hook', state: 'pending' }), 0);
  assert.equal(told.value('bill_checkout_notices', { channel: 'hook', state: 'delivered' }), 1);
  assert.equal(told.value('bill_checkout_notice_oldest_pending_age_seconds', { channel: 'hook' }), 0);
});

test('a forged callback is counted as refused and moves no requery counter; a body naming another bill too', async (t) => {
  const h = await withMetrics(t);
  const bill = await h.create();
  const before = await scrape(h);
  const forged = await h.request(await hookPath(h, bill.billId, 'A'.repeat(43)), { method: 'POST', headers: json, body: '{}' });
  assert.equal(forged.status, 404);
  const unknown = await h.request(`/api/hooks/callback/bc_nope/${'A'.repeat(43)}`, { method: 'POST', headers: json, body: '{}' });
  assert.equal(unknown.status, 404);
  const afterForged = await scrape(h);
  assert.equal(delta(before, afterForged, 'bill_checkout_callbacks_total', { result: 'refused_forged' }), 2);
  assert.equal(delta(before, afterForged, 'bill_checkout_callbacks_total'), 2);
  assert.equal(delta(before, afterForged, 'bill_checkout_requeries_total'), 0);
  assert.equal(delta(before, afterForged, 'bill_checkout_upstream_request_duration_seconds_count'), 0);

  const other = await h.request(await hookPath(h, bill.billId), { method: 'POST', headers: json, body: JSON.stringify({ billId: 'B-other' }) });
  assert.equal(other.status, 400);
  const afterOther = await scrape(h);
  assert.equal(delta(afterForged, afterOther, 'bill_checkout_callbacks_total', { result: 'refused_mismatch' }), 1);
  assert.equal(delta(afterForged, afterOther, 'bill_checkout_requeries_total'), 0);
  assert.equal(h.requeries(bill.billId), 0);
});

test('service errors are counted by class; /readyz is 503 after a network failure until 30 s pass or a call succeeds', async (t) => {
  let down = false;
  let badGateway = false;
  const h = await withMetrics(t, {
    upstreamHttp: (real) => (url, request) => {
      if (down) return Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }));
      if (badGateway) {
        return Promise.resolve({ status: 502, headers: new Headers({ 'Content-Type': 'text/html' }), text: async () => '<html>bad gateway</html>' });
      }
      return real(url, request);
    },
  });
  const bill = await h.create();
  const poll = async () => {
    // Past the refresh window: the poll asks the service.
    h.clock.advance(h.config.refreshWindowMs + 1);
    const res = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
    assert.equal(res.status, 200);
    // The requery runs behind the answer.
    await h.refreshed();
  };
  const ready = async () => {
    const res = await h.request('/readyz');
    return { status: res.status, body: (await res.json()) as unknown, headers: res.headers };
  };
  const first = await ready();
  assert.equal(first.status, 200);
  assert.deepEqual(first.body, { ok: true });
  assert.equal(first.headers.get('cache-control'), 'no-store');
  assert.equal(first.headers.get('x-content-type-options'), 'nosniff');

  const before = await scrape(h);
  down = true;
  await poll();
  const failed = await scrape(h);
  // Retried once by the client (BILL_API_RETRIES=1 in the harness): one call, one error.
  assert.equal(delta(before, failed, 'bill_checkout_upstream_errors_total', { operation: 'requery', class: 'network' }), 1);
  assert.equal(delta(before, failed, 'bill_checkout_upstream_errors_total'), 1);
  assert.equal(delta(before, failed, 'bill_checkout_requeries_total', { reason: 'poll', result: 'failed' }), 1);
  assert.equal(delta(before, failed, 'bill_checkout_upstream_request_duration_seconds_count', { operation: 'requery' }), 1);
  const unreachable = await ready();
  assert.equal(unreachable.status, 503);
  assert.equal((unreachable.body as { error: { code: string } }).error.code, 'upstream_unreachable');
  assert.equal(unreachable.headers.get('cache-control'), 'no-store');

  h.clock.advance(29_000);
  assert.equal((await ready()).status, 503);
  h.clock.advance(1_000);
  assert.equal((await ready()).status, 200, '30 s after the failure');

  await poll();
  assert.equal((await ready()).status, 503);
  down = false;
  await poll();
  assert.equal((await ready()).status, 200, 'a call that succeeded');

  // An answer that is an error is still an answer: counted, but the service is reachable.
  badGateway = true;
  const beforeHttp = await scrape(h);
  await poll();
  const afterHttp = await scrape(h);
  assert.equal(delta(beforeHttp, afterHttp, 'bill_checkout_upstream_errors_total', { operation: 'requery', class: 'http' }), 1);
  assert.equal(delta(beforeHttp, afterHttp, 'bill_checkout_upstream_errors_total'), 1);
  assert.equal((await ready()).status, 200);
});

test('/readyz is 503 store_unavailable when the store does not answer', async (t) => {
  let failing = false;
  const h = await startHarness(t, {
    wrapStore: (store) => new Proxy(store, {
      get(target, prop: keyof typeof store) {
        if (prop === 'ping' && failing) return async () => { throw new Error('database gone'); };
        const value = target[prop];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }),
  });
  assert.equal((await h.request('/readyz')).status, 200);
  failing = true;
  const res = await h.request('/readyz');
  assert.equal(res.status, 503);
  assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'store_unavailable');
});

test('creates are counted by result: created, existing, and the code of each refusal', async (t) => {
  const h = await withMetrics(t, { env: { CREATE_RATE_LIMIT_PER_MINUTE: '3' } });
  const before = await scrape(h);
  const key = { 'Idempotency-Key': 'metrics-key-1' };
  await h.create({ amount: '5' }, key);
  await h.create({ amount: '5' }, key);
  const refused = await h.request('/api/bills', { method: 'POST', headers: json, body: JSON.stringify({ amount: '0' }) });
  assert.equal(refused.status, 400);
  const limited = await h.request('/api/bills', { method: 'POST', headers: json, body: JSON.stringify({ amount: '5' }) });
  assert.equal(limited.status, 429);
  const after = await scrape(h);
  assert.equal(delta(before, after, 'bill_checkout_creates_total', { result: 'created' }), 1);
  assert.equal(delta(before, after, 'bill_checkout_creates_total', { result: 'existing' }), 1);
  assert.equal(delta(before, after, 'bill_checkout_creates_total', { result: 'invalid_amount' }), 1);
  assert.equal(delta(before, after, 'bill_checkout_creates_total', { result: 'rate_limited' }), 1);
  assert.equal(delta(before, after, 'bill_checkout_creates_total'), 4);
  assert.equal(delta(before, after, 'bill_checkout_upstream_request_duration_seconds_count', { operation: 'create' }), 1);
});

test('a requery answer that contradicts the stored bill is counted as a mismatch, not applied', async (t) => {
  const h = await withMetrics(t);
  const bill = await h.create();
  const before = await scrape(h);
  h.sandbox.setFaults({ lies: { requery: { billAmount: '999' } } });
  const res = await h.request(await hookPath(h, bill.billId), { method: 'POST', headers: json, body: '{}' });
  assert.equal(res.status, 503);
  const after = await scrape(h);
  assert.equal(delta(before, after, 'bill_checkout_answer_mismatches_total', { kind: 'requery_answer_mismatch' }), 1);
  assert.equal(delta(before, after, 'bill_checkout_requeries_total', { reason: 'callback', result: 'mismatch' }), 1);
  assert.equal(delta(before, after, 'bill_checkout_callbacks_total', { result: 'not_confirmed' }), 1);
  assert.equal(h.internals.alerts.counts().requery_answer_mismatch, 1);
});

test('bill_checkout_sse_connections counts the open event streams', async (t) => {
  const h = await withMetrics(t);
  const bill = await h.create();
  const res = await fetch(`${h.url}/api/bills/${bill.billId}/events?token=${bill.token}`);
  assert.equal(res.status, 200);
  const stream = readSse(res);
  assert.equal((await stream.next())?.outcome, 'pending');
  const open = await scrape(h);
  assert.equal(open.value('bill_checkout_sse_connections'), 1);

  h.sandbox.pay(bill.billId);
  // (After what the requery behind the first event learned, if it came before the payment.)
  let next = await stream.next();
  while (next?.outcome === 'pending') next = await stream.next();
  assert.equal(next?.outcome, 'paid');
  // The stream ends after the final status; it was released before its last bytes went out.
  assert.equal(await stream.next(), null);
  await h.sandbox.idle();
  assert.equal((await scrape(h)).value('bill_checkout_sse_connections'), 0);
});

test('METRICS_TOKEN and METRICS_PORT are checked like the other settings', () => {
  const base = { PORT: '8787' };
  assert.throws(() => loadConfig({ ...base, METRICS_TOKEN: 'short' }), ConfigError);
  assert.throws(() => loadConfig({ ...base, METRICS_PORT: '8787' }), /METRICS_PORT/);
  assert.throws(() => loadConfig({ ...base, METRICS_PORT: 'nine' }), /METRICS_PORT/);
  assert.throws(() => loadConfig({ ...base, METRICS_PORT: '70000' }), /METRICS_PORT/);
  const config = loadConfig({ ...base, METRICS_TOKEN, METRICS_PORT: '9464' });
  assert.equal(config.metricsToken, METRICS_TOKEN);
  assert.equal(config.metricsPort, 9464);
  const none = loadConfig(base);
  assert.equal(none.metricsToken, null);
  assert.equal(none.metricsPort, null);
});

/** A package folder with a built drop-in, as serveBillCheckout serves it. */
async function builtRoot(t: TestContext): Promise<string> {
  const root = await temporaryFolder(t, 'bill-checkout-metrics-');
  await mkdir(join(root, 'dist'), { recursive: true });
  await writeFile(join(root, 'dist/bill-checkout.js'), 'export {};\n');
  return root;
}

test('METRICS_PORT serves GET /metrics without a token on its own port, with the process metrics; close() closes it', async (t) => {
  const root = await builtRoot(t);
  const [port, metricsPort] = [await freePort(), await freePort()];
  const running = await serveBillCheckout({
    root,
    log: silentLogger,
    env: {
      PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}`, DATABASE_URL: `file:${join(root, 'data.sqlite')}`,
      METRICS_PORT: String(metricsPort),
    },
  });
  let closed = false;
  defer(t, () => (closed ? undefined : running.close()));
  assert.equal(running.metricsUrl, `http://127.0.0.1:${metricsPort}`);

  // Without METRICS_TOKEN the main port has no /metrics.
  assert.equal((await fetch(`${running.url}/metrics`)).status, 404);
  const res = await fetch(`${running.metricsUrl}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const m = parseExposition(await res.text());
  assert.equal(m.type('bill_checkout_bills_pending'), 'GAUGE');
  assert.equal(m.value('bill_checkout_bills_pending'), 0);
  assert.equal(m.type('process_cpu_user_seconds_total'), 'COUNTER');
  assert.ok(m.has('nodejs_eventloop_lag_seconds'));
  // Nothing else is served there.
  for (const path of ['/', '/healthz', '/api/bills', '/metrics/x']) {
    const other: Response = await fetch(`${running.metricsUrl}${path}`);
    assert.equal(other.status, 404, path);
    assert.deepEqual(await other.json(), { error: { code: 'not_found', message: 'No such resource.' } });
  }
  assert.equal((await fetch(`${running.metricsUrl}/metrics`, { method: 'POST' })).status, 404);

  await running.close();
  closed = true;
  await assert.rejects(fetch(`${running.metricsUrl}/metrics`));
});

test('with METRICS_TOKEN too, the main port wants the token while METRICS_PORT does not', async (t) => {
  const root = await builtRoot(t);
  const [port, metricsPort] = [await freePort(), await freePort()];
  const running = await serveBillCheckout({
    root,
    log: silentLogger,
    env: {
      PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}`, DATABASE_URL: `file:${join(root, 'data.sqlite')}`,
      METRICS_PORT: String(metricsPort), METRICS_TOKEN,
    },
  });
  defer(t, () => running.close());
  assert.equal((await fetch(`${running.url}/metrics`)).status, 401);
  const main = await fetch(`${running.url}/metrics`, { headers: auth });
  assert.equal(main.status, 200);
  assert.equal(parseExposition(await main.text()).type('process_cpu_user_seconds_total'), 'COUNTER');
  assert.equal((await fetch(`${running.metricsUrl}/metrics`)).status, 200);
});
