// The BFF's answers, as they are, against its OpenAPI description (issue 14): Stoplight Prism's
// validating proxy (`prism proxy --errors`) in front of a real BFF on the sandbox, every documented
// operation with its main answers, success and error; each answer is also checked in process
// (ajv) and must carry `Cache-Control: no-store` (`no-cache` for the event stream).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Context } from 'hono';
import { returnToken } from '../../../../server/domain/create/hook-urls.js';
import { describeApi } from '../../../../server/http/routes/openapi.js';
import { StoreUnavailableError } from '../../../../server/store/errors.js';
import type { Store } from '../../../../server/store/types.js';
import type { CreatedBillView } from '../../../../contract/bill-view.js';
import { STARTED_HERE, startHarness, TEST_ADMIN_TOKEN, TEST_TICKET_SECRET } from '../../support/harness.js';
import { openApiChecker } from '../../support/openapi-check.js';
import type { OpenApiDocument } from '../../support/openapi-check.js';
import { startPrism, violationsOf } from '../../support/prism.js';
import { readSse } from '../../support/sse.js';
import { serveOn } from '../../support/servers.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const ADMIN = { ...JSON_TYPE, Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const CLIENT = 'x-test-client';
const METRICS_TOKEN = 'test-metrics-token-6c1f0e9a2b4d8f3e';

/** What the run must have seen through the proxy (the 303s in process: Prism follows redirects). */
const EXPECTED: Record<string, number[]> = {
  createBill: [200, 201, 400, 403, 404, 409, 413, 415, 422, 429, 502],
  getBill: [200, 404],
  watchBill: [200, 204, 404, 429, 503],
  cancelBill: [200, 403, 404, 409, 415, 502],
  listBills: [200, 400, 401, 403, 404, 415, 502],
  adminCancelBill: [200, 401, 404, 409, 502],
  bindCustomer: [200, 400, 401, 404, 502],
  serviceCallback: [200, 400, 404, 413, 500, 503],
  customerReturn: [200, 303, 404, 500],
  getOpenApi: [200],
  health: [200, 503],
  ready: [200, 503],
  metrics: [200, 401, 404],
  adminBill: [200, 404],
  listNotices: [200, 400],
  replayNotice: [200, 404],
  replayFailedNotices: [200, 400],
  webhookEndpoint: [200],
  enableWebhookEndpoint: [200],
  renderCheckout: [200, 404],
  statusPage: [200, 404],
  payBill: [200, 303, 404],
  qrSvg: [200, 404],
  qrPng: [200, 404],
  listCustomers: [200],
};

/** The store, with switches that make it fail as a real one can. */
/** `reads`: the database out of reach (as a store reports it); `broken`: a read failing for another reason (a bug). */
function failingStore(store: Store, down: { ping: boolean; reads: boolean; broken: boolean }): Store {
  return new Proxy(store, {
    get(target, prop: keyof Store) {
      if (prop === 'ping' && down.ping) return async () => { throw new Error('SQLITE_IOERR'); };
      if (prop === 'getByReference' && down.reads) return async () => { throw new StoreUnavailableError('SQLite is locked (SQLITE_BUSY)'); };
      if (prop === 'getByReference' && down.broken) return async () => { throw new Error('not a store outage'); };
      const value = target[prop];
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

test('every answer of the BFF conforms to its OpenAPI description (Prism proxy --errors, and ajv)', async (t) => {
  const document = describeApi();
  const checker = openApiChecker(document as unknown as OpenApiDocument);
  const down = { ping: false, reads: false, broken: false, service: false };
  const orders: Record<string, { amount: string; currency?: string }> = { 'order-7': { amount: '7.00' }, 'order-eur': { amount: '10', currency: 'EUR' } };
  // The merchant's webhook endpoint, for the notice routes.
  const merchant = await serveOn(() => new Response('ok'));
  t.after(() => merchant.close());
  const h = await startHarness(t, {
    env: {
      MERCHANT_WEBHOOK_URL: `${merchant.url}/webhooks`,
      MERCHANT_WEBHOOK_SECRET: `whsec_${Buffer.from('a conformance webhook secret, 32').toString('base64')}`,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      ORDER_TICKET_SECRET: TEST_TICKET_SECRET,
      ALLOWED_ORIGINS: 'https://shop.example',
      RETURN_URL: 'https://shop.example/thanks',
      CREATE_RATE_LIMIT_PER_MINUTE: '2',
      MAX_SSE_CONNECTIONS: '2',
      MAX_SSE_PER_CLIENT: '1',
      METRICS_TOKEN,
    },
    hooks: { resolveOrder: async (orderId) => orders[orderId] ?? null },
    // Clients told apart by a header: each create below is its own client unless it tests the limit.
    clientKey: (c: Context) => c.req.header(CLIENT) ?? 'anonymous',
    wrapStore: (store) => failingStore(store, down),
    // The service out of reach, when the test says so.
    upstreamHttp: (real) => (url, request) => (down.service ? Promise.reject(new TypeError('fetch failed: connect ECONNREFUSED')) : real(url, request)),
  });
  // The same BFF without ADMIN_TOKEN: its admin routes answer 404.
  const off = await startHarness(t);
  const [prism, prismOff] = await Promise.all([startPrism(t, document, h.url), startPrism(t, document, off.url)]);

  const seen = new Map<string, Set<number>>();
  let clients = 0;

  /** One exchange through `base` (a Prism proxy, or the BFF itself for what Prism cannot see): the status, then the contract. */
  async function call(expected: number, path: string, init: RequestInit & { code?: string; base?: string; cacheControl?: string } = {}) {
    const { code, base = prism.url, cacheControl, ...request } = init;
    const method = request.method ?? 'GET';
    const res = await fetch(`${base}${path}`, { redirect: 'manual', ...request });
    const body = await res.text();
    const label = `${method} ${path.split('?')[0]} → ${res.status}`;
    assert.equal(res.status, expected, `${label}: ${body.slice(0, 600)}`);
    assert.notEqual(res.headers.get('content-type'), 'application/problem+json', `${label}: Prism answered, not the BFF: ${body.slice(0, 600)}`);
    const responseViolations = violationsOf(res).filter((v) => v.location[0] === 'response');
    assert.deepEqual(responseViolations, [], `${label}: Prism found violations`);
    const operation = checker.operationOf(method, new URL(path, 'http://x').pathname);
    assert.ok(operation, `${label}: no operation describes it`);
    assert.deepEqual(checker.check(operation, res, body), [], `${label}: in-process check`);
    const stream = res.headers.get('content-type') === 'text/event-stream';
    assert.equal(res.headers.get('cache-control'), cacheControl ?? (stream ? 'no-cache' : 'no-store'), `${label}: Cache-Control`);
    if (code !== undefined) assert.equal((JSON.parse(body) as { error: { code: string } }).error.code, code, label);
    if (!seen.has(operation.operationId)) seen.set(operation.operationId, new Set());
    seen.get(operation.operationId)!.add(res.status);
    return { res, body, json: <T>() => JSON.parse(body) as T };
  }
  const client = () => ({ [CLIENT]: `client-${++clients}` });
  const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
    method: 'POST', headers: { ...JSON_TYPE, ...client(), ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const create = async (body: unknown, headers: Record<string, string> = {}) =>
    (await call(201, '/api/bills', post(body, headers))).json<CreatedBillView>();
  const ticketed = async (orderId: string) => ({ orderId, orderTicket: await h.ticket(orderId) });

  // The description itself, and health.
  await call(200, '/api/openapi.json');
  await call(200, '/healthz');
  down.ping = true;
  await call(503, '/healthz', { code: 'store_unavailable' });
  await call(503, '/readyz', { code: 'store_unavailable' });
  down.ping = false;
  await call(200, '/readyz');
  const metrics = await call(200, '/metrics', { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.match(metrics.res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  // A wrong token: without one, Prism answers the 401 itself.
  await call(401, '/metrics', { headers: { Authorization: `Bearer ${'x'.repeat(40)}` }, code: 'unauthorized' });
  await call(404, '/metrics', { base: prismOff.url, headers: { Authorization: `Bearer ${METRICS_TOKEN}` }, code: 'not_found' });

  // Create: every refusal, the idempotent and the one-payment answers.
  const bill = await create({ amount: '5' });
  await call(400, '/api/bills', { ...post({ orderId: 'has space' }), code: 'invalid_request' });
  await call(415, '/api/bills', { ...post('amount=5', { 'Content-Type': 'text/plain' }), code: 'unsupported_media_type' });
  await call(413, '/api/bills', { ...post({ amount: '5', pad: 'x'.repeat(h.config.bodyLimitBytes) }), code: 'payload_too_large' });
  await call(403, '/api/bills', { ...post({ amount: '5' }, { Origin: 'https://evil.example' }), code: 'origin_not_allowed' });
  await call(403, '/api/bills', { ...post({ orderId: 'order-7', orderTicket: '1.forged' }), code: 'order_ticket_invalid' });
  await call(404, '/api/bills', { ...post(await ticketed('order-missing')), code: 'order_not_found' });
  await call(502, '/api/bills', { ...post(await ticketed('order-eur')), code: 'upstream_mismatch' });
  await create({ amount: '5' }, { 'Idempotency-Key': 'conformance-1' });
  await call(422, '/api/bills', { ...post({ amount: '6' }, { 'Idempotency-Key': 'conformance-1' }), code: 'idempotency_key_reused' });
  // Another instance is still creating under this key (several BFFs on one database).
  const inFlight = await h.store.insertBill({
    merchantReference: 'bc_conformance0001', orderId: null, idempotencyKey: 'in-flight', amount: '5', orderAmount: null,
    orderCurrency: null, token: 'T'.repeat(43), hookToken: 'H'.repeat(43), createdAt: h.clock.now(),
  });
  assert.ok(inFlight.inserted);
  await call(409, '/api/bills', { ...post({ amount: '5' }, { 'Idempotency-Key': 'in-flight' }), code: 'create_in_progress' });
  const paid = await create(await ticketed('order-7'));
  h.sandbox.pay(paid.billId);
  await h.sandbox.idle();
  const again = await call(200, '/api/bills', post(await ticketed('order-7')));
  assert.equal(again.json<CreatedBillView>().billId, paid.billId);
  const greedy = { [CLIENT]: 'greedy' };
  for (let i = 0; i < 2; i++) await call(400, '/api/bills', post({}, greedy));
  await call(429, '/api/bills', { ...post({ amount: '5' }, greedy), code: 'rate_limited' });

  // Read.
  await call(200, `/api/bills/${bill.billId}?token=${bill.token}`);
  await call(404, `/api/bills/${bill.billId}?token=wrong`, { code: 'not_found' });

  // Events: a final bill's stream ends, so Prism (which buffers a stream) can check it whole.
  const events = await call(200, `/api/bills/${paid.billId}/events?token=${paid.token}`);
  assert.match(events.body, /^event: status\ndata: \{.*"outcome":"paid"/m);
  // The client that has the final status, reconnecting, is told to stop.
  const finalId = /^id: (\d+)$/m.exec(events.body)?.[1];
  assert.ok(finalId, events.body);
  const stop = await call(204, `/api/bills/${paid.billId}/events?token=${paid.token}`, { headers: { 'Last-Event-ID': finalId } });
  assert.equal(stop.body, '');
  await call(404, `/api/bills/${bill.billId}/events?token=wrong`, { code: 'not_found' });

  // The server-rendered checkout, its page for customers without JavaScript and its QR images.
  for (const path of [`checkout.html?token=${bill.token}&mode=qr`, `checkout.html?token=${bill.token}&mode=button&locale=ms`, `status.html?token=${bill.token}`]) {
    await call(200, `/api/bills/${bill.billId}/${path}`);
  }
  for (const image of ['qr.svg', 'qr.png']) await call(200, `/api/bills/${bill.billId}/${image}?token=${bill.token}`, { cacheControl: 'private, max-age=3600' });
  for (const path of ['checkout.html', 'status.html', 'qr.svg', 'qr.png', 'pay']) await call(404, `/api/bills/${bill.billId}/${path}?token=wrong`);
  // The pay link: Prism follows its 303 to billUrl, so that one is checked in process only.
  const pay = await call(303, `/api/bills/${bill.billId}/pay?token=${bill.token}`, { base: h.url });
  assert.equal(pay.res.headers.get('location'), bill.billUrl);
  // Paid: nothing to pay there, the status page.
  await call(200, `/api/bills/${paid.billId}/pay?token=${paid.token}`);
  // Streams held open straight on the BFF: one per client allowed, two in all.
  const hold = async (who: string) => {
    const res = await fetch(`${h.url}/api/bills/${bill.billId}/events?token=${bill.token}`, { headers: { [CLIENT]: who } });
    const reader = readSse(res);
    t.after(() => reader.cancel().catch(() => undefined));
    assert.equal((await reader.next())?.outcome, 'pending');
    return reader;
  };
  const first = await hold('holder-a');
  await call(429, `/api/bills/${bill.billId}/events?token=${bill.token}`, { headers: { [CLIENT]: 'holder-a' }, code: 'too_many_streams_for_client' });
  const second = await hold('holder-b');
  await call(503, `/api/bills/${bill.billId}/events?token=${bill.token}`, { headers: client(), code: 'too_many_streams' });
  await Promise.all([first.cancel(), second.cancel()]);

  // Cancel by the browser.
  const cancelPath = `/api/bills/${bill.billId}/cancel?token=${bill.token}`;
  await call(415, cancelPath, { ...post('', { 'Content-Type': 'text/plain' }), code: 'unsupported_media_type' });
  await call(403, cancelPath, { ...post({}, { Origin: 'https://evil.example' }), code: 'origin_not_allowed' });
  await call(404, `/api/bills/${bill.billId}/cancel?token=wrong`, { ...post({}), code: 'not_found' });
  const cancelled = await call(200, cancelPath, post({}));
  assert.equal(cancelled.json<{ outcome: string }>().outcome, 'cancelled');
  await call(409, cancelPath, { ...post({}), code: 'not_cancellable' });
  const unlucky = await create({ amount: '9' });
  down.service = true;
  await call(502, `/api/bills/${unlucky.billId}/cancel?token=${unlucky.token}`, { ...post({}), code: 'upstream_unavailable' });
  await call(502, '/api/admin/bills', { method: 'POST', headers: ADMIN, body: '{}', code: 'upstream_unavailable' });
  await call(502, '/api/admin/customers', { method: 'POST', headers: ADMIN, body: '{"name":"Ada"}', code: 'upstream_unavailable' });
  await call(502, `/api/admin/bills/${unlucky.billId}/cancel`, { method: 'POST', headers: ADMIN, body: '{}', code: 'upstream_unavailable' });
  down.service = false;

  // Admin: the Bearer token; a wrong one reaches the BFF (Prism itself answers a missing one).
  const wrongAdmin = { Authorization: 'Bearer wrong' };
  await call(200, '/api/admin/bills', { method: 'POST', headers: ADMIN, body: '{}' });
  await call(400, '/api/admin/bills', { method: 'POST', headers: ADMIN, body: JSON.stringify({ paging: { index: 0, size: 1 } }), code: 'invalid_request' });
  await call(401, '/api/admin/bills', { method: 'POST', headers: { ...JSON_TYPE, ...wrongAdmin }, body: '{}', code: 'unauthorized' });
  await call(403, '/api/admin/bills', { method: 'POST', headers: { ...ADMIN, Origin: 'https://evil.example' }, body: '{}', code: 'origin_not_allowed' });
  await call(415, '/api/admin/bills', { method: 'POST', headers: { ...ADMIN, 'Content-Type': 'text/plain' }, body: '{}', code: 'unsupported_media_type' });
  const customer = { name: 'Ada', email: 'ada@example.com' };
  await call(200, '/api/admin/customers', { method: 'POST', headers: ADMIN, body: JSON.stringify(customer) });
  await call(400, '/api/admin/customers', { method: 'POST', headers: ADMIN, body: '[]', code: 'invalid_request' });
  await call(401, '/api/admin/customers', { method: 'POST', headers: { ...JSON_TYPE, ...wrongAdmin }, body: '{}', code: 'unauthorized' });
  const pending = await create({ amount: '11' });
  const adminCancel = `/api/admin/bills/${pending.billId}/cancel`;
  const done = await call(200, adminCancel, { method: 'POST', headers: ADMIN, body: '{}' });
  assert.equal(done.json<{ bill: { outcome: string } }>().bill.outcome, 'cancelled');
  await call(409, adminCancel, { method: 'POST', headers: ADMIN, body: '{}', code: 'not_cancellable' });
  await call(404, '/api/admin/bills/B-no-such-bill/cancel', { method: 'POST', headers: ADMIN, body: '{}', code: 'not_found' });
  await call(401, adminCancel, { method: 'POST', headers: { ...JSON_TYPE, ...wrongAdmin }, body: '{}', code: 'unauthorized' });
  // A bill's history and notices, replays, the webhook endpoint, bound customers.
  const getAdmin = { headers: { Authorization: ADMIN.Authorization } };
  await call(200, `/api/admin/bills/${pending.billId}`, getAdmin);
  await call(404, '/api/admin/bills/B-no-such-bill', { ...getAdmin, code: 'not_found' });
  await h.internals.noticeWorker.runOnce();
  await call(200, `/api/admin/notices?state=delivered&from=${new Date(0).toISOString()}&limit=10`, getAdmin);
  await call(400, '/api/admin/notices?from=soon', { ...getAdmin, code: 'invalid_request' });
  await call(200, `/api/admin/notices/msg_${pending.billId}/replay`, { method: 'POST', headers: ADMIN, body: '{}' });
  await call(404, '/api/admin/notices/msg_none/replay', { method: 'POST', headers: ADMIN, body: '{}', code: 'not_found' });
  await call(200, '/api/admin/notices/replay?from=0', { method: 'POST', headers: ADMIN, body: '{}' });
  await call(400, '/api/admin/notices/replay', { method: 'POST', headers: ADMIN, body: '{}', code: 'invalid_request' });
  await call(200, '/api/admin/webhook', getAdmin);
  await call(200, '/api/admin/webhook/enable', { method: 'POST', headers: ADMIN, body: '{}' });
  await call(200, '/api/admin/customers', { method: 'POST', headers: ADMIN, body: JSON.stringify({ ...customer, customerKey: 'ada' }) });
  await call(200, '/api/admin/customers?limit=5', getAdmin);
  // …and off without ADMIN_TOKEN.
  for (const path of ['/api/admin/bills', '/api/admin/customers', `/api/admin/bills/${pending.billId}/cancel`]) {
    await call(404, path, { method: 'POST', headers: ADMIN, body: '{}', base: prismOff.url, code: 'not_found' });
  }

  // The service's callback.
  const stored = (await h.store.getByBillId(pending.billId))!;
  const callbackPath = `/api/hooks/callback/${stored.merchantReference}/${stored.hookToken}`;
  await call(200, callbackPath, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ billId: pending.billId, status: 4 }) });
  await call(400, callbackPath, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ billId: 'B-another' }), code: 'bill_mismatch' });
  await call(404, `/api/hooks/callback/${stored.merchantReference}/${'A'.repeat(43)}`, { method: 'POST', headers: JSON_TYPE, body: '{}', code: 'not_found' });
  await call(413, callbackPath, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(h.config.bodyLimitBytes + 1), code: 'payload_too_large' });
  // Before its create answer: kept as news and acknowledged.
  await call(200, `/api/hooks/callback/${inFlight.bill.merchantReference}/${inFlight.bill.hookToken}`, { method: 'POST', headers: JSON_TYPE, body: '{}' });
  down.reads = true;
  await call(503, callbackPath, { method: 'POST', headers: JSON_TYPE, body: '{}', code: 'store_unavailable' });
  down.reads = false;
  // A read failing for another reason is no outage: the app's own 500, and no store_unavailable counted.
  down.broken = true;
  await call(500, callbackPath, { method: 'POST', headers: JSON_TYPE, body: '{}', code: 'internal_error' });

  // The customer's return: Prism follows the 303 to RETURN_URL, so that one is checked in process only.
  const returnPath = `/api/hooks/return/${stored.merchantReference}/${await returnToken(stored.hookToken)}`;
  await call(500, returnPath, { code: 'internal_error' });
  down.broken = false;
  const back = await call(303, returnPath, { base: h.url, headers: STARTED_HERE });
  const to = new URL(back.res.headers.get('location')!);
  assert.equal(`${to.origin}${to.pathname}`, 'https://shop.example/thanks');
  assert.equal(to.searchParams.get('outcome'), 'cancelled');
  // Another device: the BFF's own page.
  const page = await call(200, returnPath);
  assert.match(page.res.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(page.body, /Payment cancelled/);
  const notFound = await call(404, `/api/hooks/return/${stored.merchantReference}/${'A'.repeat(43)}`);
  assert.match(notFound.res.headers.get('content-type') ?? '', /^text\/html/);

  await h.sandbox.idle();
  const covered = Object.fromEntries([...seen].map(([id, statuses]) => [id, [...statuses].sort((a, b) => a - b)]));
  assert.deepEqual(covered, EXPECTED, 'operations × statuses seen');
  const documented = Object.values((document as unknown as OpenApiDocument).paths).flatMap((item) => Object.values(item).map((o) => o.operationId));
  assert.deepEqual(documented.filter((id) => !seen.has(id)), [], 'documented operations never exercised');
});

