// The merchant's operations over real HTTP: a paid order found by its id, its history, the webhook
// delivery log, 410 Gone, secret rotation checked by the npm `standardwebhooks` library, replays of
// one notice and of a time range, and a customer bound once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type {
  AdminBillDetail, AdminBillList, BoundCustomerView, CustomerList, NoticeList, NoticeReplayed, NoticesReplayed,
  WebhookEndpointView,
} from '../../../../contract/admin.js';
import type { CreatedBillView } from '../../../../contract/bill-view.js';
import { startHarness, TEST_ADMIN_TOKEN, TEST_TICKET_SECRET } from '../../support/harness.js';
import type { Harness, HarnessOptions } from '../../support/harness.js';
import { serveOn } from '../../support/servers.js';

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;
const admin = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'Content-Type': 'application/json' };

interface Delivery {
  headers: Record<string, string>;
  body: string;
}

/** The merchant's webhook endpoint: answers the given statuses in turn, then 200 with a long body. */
async function merchant(t: TestContext, statuses: number[] = []) {
  const deliveries: Delivery[] = [];
  const waiting: (() => void)[] = [];
  const served = await serveOn(async (req) => {
    deliveries.push({ headers: Object.fromEntries(req.headers), body: await req.text() });
    waiting.splice(0).forEach((resolve) => resolve());
    const status = statuses.shift() ?? 200;
    return new Response(status === 200 ? `accepted ${'x'.repeat(400)}` : `no: ${status}`, { status });
  });
  t.after(() => served.close());
  return {
    url: `${served.url}/webhooks`,
    deliveries,
    /** Resolves once `count` deliveries have arrived. */
    async received(count: number): Promise<void> {
      while (deliveries.length < count) await new Promise<void>((resolve) => waiting.push(resolve));
    },
  };
}

async function start(t: TestContext, webhookUrl: string, env: Record<string, string> = {}, options: HarnessOptions = {}) {
  return startHarness(t, {
    ...options,
    env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, MERCHANT_WEBHOOK_URL: webhookUrl, MERCHANT_WEBHOOK_SECRET: secret(), ...env },
  });
}

async function call<T>(h: Harness, path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const res = await h.request(`/api/admin${path}`, { ...init, headers: { ...admin, ...init.headers } });
  return { status: res.status, body: (await res.json()) as T };
}

/** A bill paid at the sandbox, its callback handled (so it is final and its notice queued). */
async function paid(h: Harness, body: Record<string, unknown> = { amount: '12.50' }): Promise<CreatedBillView> {
  const bill = await h.create(body);
  h.sandbox.pay(bill.billId);
  await h.sandbox.idle();
  return bill;
}

/** Lets the notice pass started by the bill becoming final finish, then runs one more. */
const pass = (h: Harness) => h.internals.noticeWorker.runOnce();

test('a delivery log after 500, 500, 200: three attempts with status, time, duration and the first 200 bytes', async (t) => {
  const shop = await merchant(t, [500, 500]);
  const h = await start(t, shop.url);
  const bill = await paid(h);
  await shop.received(1);
  await pass(h);
  h.clock.advance(7_000); // past 5 s + 20 %
  await pass(h);
  h.clock.advance(7 * 60_000); // past 5 min + 20 %
  await pass(h);
  assert.equal(shop.deliveries.length, 3);
  assert.equal(new Set(shop.deliveries.map((d) => d.headers['webhook-id'])).size, 1, 'one webhook-id on every retry');

  const { status, body } = await call<NoticeList>(h, `/notices?billId=${bill.billId}`);
  assert.equal(status, 200);
  const [notice] = body.notices.filter((n) => n.channel === 'webhook');
  assert.ok(notice);
  assert.equal(notice.id, shop.deliveries[0]!.headers['webhook-id']);
  assert.equal(notice.state, 'delivered');
  assert.deepEqual(notice.log.map((a) => [a.number, a.httpStatus, a.ok, a.replay]), [[1, 500, false, false], [2, 500, false, false], [3, 200, true, false]]);
  assert.deepEqual(notice.log.map((a) => a.response), ['no: 500', 'no: 500', `accepted ${'x'.repeat(191)}`]);
  assert.equal(Buffer.byteLength(notice.log[2]!.response!), 200);
  assert.ok(notice.log.every((a) => a.durationMs >= 0 && Number.isInteger(a.durationMs)));
  assert.ok(notice.log[1]!.at - notice.log[0]!.at >= 4_000 && notice.log[2]!.at - notice.log[1]!.at >= 4 * 60_000);
  assert.equal(notice.log[0]!.error, 'HTTP 500');

  // The state filter and the bill's own view agree.
  assert.deepEqual((await call<NoticeList>(h, '/notices?state=delivered')).body.notices.map((n) => n.id), [notice.id]);
  assert.deepEqual((await call<NoticeList>(h, '/notices?state=failed')).body.notices, []);
  const bad = await call<{ error: { code: string } }>(h, '/notices?from=yesterday');
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'invalid_request');
});

test("an order's bill: found by the order id, its history says how the status was learned", async (t) => {
  const shop = await merchant(t);
  const prices: Record<string, string> = { 'order-1042': '42.00', 'order-2042': '7.50' };
  const h = await start(t, shop.url, { ORDER_TICKET_SECRET: TEST_TICKET_SECRET, CLIENT_AMOUNT_MIN: '', CLIENT_AMOUNT_MAX: '' }, {
    hooks: { resolveOrder: async (orderId) => (prices[orderId] ? { amount: prices[orderId]! } : null) },
  });
  const bill = await paid(h, { orderId: 'order-1042', orderTicket: await h.ticket('order-1042') });
  await h.create({ orderId: 'order-2042', orderTicket: await h.ticket('order-2042') });

  const search = (value: string, matchType = 'equal') => call<AdminBillList>(h, '/bills', {
    method: 'POST', body: JSON.stringify({ filters: [{ name: 'orderId', value, matchType }], paging: { index: 1, size: 10 } }),
  });
  const found = await search('order-1042');
  assert.equal(found.status, 200);
  assert.deepEqual(found.body.lists.map((r) => r.billId), [bill.billId]);
  const row = found.body.lists[0]!;
  assert.equal(row.local?.orderId, 'order-1042');
  assert.equal(row.local?.outcome, 'paid');
  assert.equal(row.local?.finalReason, 'callback');
  assert.equal(row.local?.notice, 'delivered');
  assert.equal((await search('042', 'like')).body.total, 2);
  assert.equal((await search('order-9')).body.total, 0);

  const detail = await call<AdminBillDetail>(h, `/bills/${bill.billId}`);
  assert.equal(detail.status, 200);
  assert.deepEqual(detail.body.history.map((e) => [e.kind, e.reason, e.outcome]), [['created', null, null], ['status', 'callback', 'paid']]);
  assert.equal(detail.body.notices[0]?.log.length, 1);
  assert.equal((await call(h, '/bills/nope')).status, 404);
});

test('410 Gone disables the endpoint: nothing more is sent until it is re-enabled, then everything waiting goes', async (t) => {
  const shop = await merchant(t, [410]);
  const h = await start(t, shop.url);
  const first = await paid(h);
  await shop.received(1);
  await pass(h);
  const off = await call<WebhookEndpointView>(h, '/webhook');
  assert.equal(off.body.enabled, false);
  assert.match(off.body.disabledReason ?? '', /410/);

  const second = await paid(h);
  h.clock.advance(60 * 60_000);
  assert.equal(await pass(h), 0, 'nothing is claimed while disabled');
  assert.equal(shop.deliveries.length, 1);
  const refused = await call<{ error: { code: string } }>(h, `/notices/msg_${second.billId}/replay`, { method: 'POST' });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error.code, 'endpoint_disabled');

  const on = await call<WebhookEndpointView>(h, '/webhook/enable', { method: 'POST' });
  assert.equal(on.body.enabled, true);
  await pass(h);
  await shop.received(3);
  assert.deepEqual(new Set(shop.deliveries.slice(1).map((d) => d.headers['webhook-id'])), new Set([`msg_${first.billId}`, `msg_${second.billId}`]));
  const states = (await call<NoticeList>(h, '/notices')).body.notices.map((n) => n.state);
  assert.deepEqual(states, ['delivered', 'delivered']);
});

test('two secrets sign each notice: the standardwebhooks library verifies it with either one alone', async (t) => {
  const shop = await merchant(t);
  const [fresh, old] = [secret(), secret()];
  const h = await start(t, shop.url, { MERCHANT_WEBHOOK_SECRET: `${fresh} ${old}` });
  await paid(h);
  await shop.received(1);
  const { headers, body } = shop.deliveries[0]!;
  assert.equal(headers['webhook-signature']!.split(' ').length, 2);
  for (const key of [fresh, old]) {
    const payload = new Webhook(key).verify(body, headers) as { type: string };
    assert.equal(payload.type, 'bill.final');
  }
  assert.throws(() => new Webhook(secret()).verify(body, headers), 'a third secret does not verify');
  assert.equal((await call<WebhookEndpointView>(h, '/webhook')).body.secrets, 2);
  assert.doesNotMatch(JSON.stringify(h.logs) + h.bodies.join(''), new RegExp(`${fresh.slice(6, 30)}|${old.slice(6, 30)}`.replace(/[+/]/g, '\\$&')));
});

test('replay: one notice, and every failed one in a time range, with the same webhook-id, signed afresh', async (t) => {
  const shop = await merchant(t, [500, 500]);
  const key = secret();
  const h = await start(t, shop.url, { MERCHANT_WEBHOOK_SECRET: key });
  const a = await paid(h);
  await shop.received(1);
  await pass(h);
  const b = await paid(h);
  await shop.received(2);
  await pass(h);
  assert.deepEqual(shop.deliveries.map((d) => d.headers['webhook-id']), [`msg_${a.billId}`, `msg_${b.billId}`]);

  // Both failed once; a range that holds both replays both, outside their retry schedule.
  const to = h.clock.now() + 1;
  h.clock.advance(1_000);
  const range = await call<NoticesReplayed>(h, `/notices/replay?from=${new Date(to - 60_000).toISOString()}&to=${to}`, { method: 'POST' });
  assert.equal(range.status, 200);
  assert.equal(range.body.replayed, 2);
  await pass(h);
  await shop.received(4);
  assert.deepEqual(new Set(shop.deliveries.slice(2).map((d) => d.headers['webhook-id'])), new Set([`msg_${a.billId}`, `msg_${b.billId}`]));
  for (const d of shop.deliveries.slice(2)) {
    assert.equal(d.headers['webhook-timestamp'], String(Math.floor(h.clock.now() / 1000)), 'signed at the replay');
    new Webhook(key).verify(d.body, d.headers);
  }
  assert.equal((await call<NoticesReplayed>(h, `/notices/replay?from=0&to=${to}`, { method: 'POST' })).body.replayed, 0, 'delivered now');

  // One delivered notice, replayed: the answer shows the new attempt.
  h.clock.advance(1_000);
  const one = await call<NoticeReplayed>(h, `/notices/msg_${a.billId}/replay`, { method: 'POST' });
  assert.equal(one.status, 200);
  assert.equal(shop.deliveries.length, 5);
  assert.equal(shop.deliveries[4]!.headers['webhook-id'], `msg_${a.billId}`);
  assert.deepEqual(one.body.notice.log.map((x) => [x.number, x.replay, x.ok]), [[1, false, false], [2, true, true], [3, true, true]]);
  assert.equal(one.body.notice.attempts, 1, 'replays are counted apart from the schedule');
  assert.equal(one.body.notice.replayAt, null);
  assert.equal((await call(h, '/notices/msg_nope/replay', { method: 'POST' })).status, 404);
  assert.equal((await call(h, '/notices/replay', { method: 'POST' })).status, 400, 'a range needs from');
});

test('bind a customer once: twenty concurrent binds of one key make one call to the service', async (t) => {
  const shop = await merchant(t);
  const h = await start(t, shop.url);
  const calls = () => h.sandbox.stats().calls.bind;
  const before = calls();
  const bind = (body: Record<string, unknown>) => call<BoundCustomerView>(h, '/customers', { method: 'POST', body: JSON.stringify(body) });
  const customer = { customerKey: 'user-1042', name: 'Ana', email: 'ana@example.com' };
  const answers = await Promise.all(Array.from({ length: 20 }, () => bind(customer)));
  assert.equal(calls() - before, 1);
  assert.ok(answers.every((a) => a.status === 200));
  assert.equal(new Set(answers.map((a) => a.body.customerId)).size, 1);
  assert.deepEqual(answers.map((a) => a.body.bound).sort(), ['new', ...Array<string>(19).fill('existing')].sort());

  const again = await bind({ ...customer, email: 'other@example.com' });
  assert.equal(again.body.customerId, answers[0]!.body.customerId, 'the key, not the details, names the customer');
  assert.equal(again.body.bound, 'existing');
  assert.equal(calls() - before, 1);

  const list = await call<CustomerList>(h, '/customers');
  assert.deepEqual(list.body.customers.map((c) => [c.customerKey, c.customerId]), [['user-1042', answers[0]!.body.customerId]]);

  // Without a key nothing is remembered: each bind reaches the service.
  await bind({ name: 'Bo', phone: '+1 555 0100' });
  await bind({ name: 'Bo', phone: '+1 555 0100' });
  assert.equal(calls() - before, 3);
  const invalid = await bind({ customerKey: '', name: 'x' });
  assert.equal(invalid.status, 400);
});
