// Orders and trust (issue 13): an order id opens nothing without the merchant's ticket, an order is
// paid once, and the merchant's notice says which order it paid.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { CheckoutError } from '../../../../server/domain/errors.js';
import type { BillNotice } from '../../../../server/domain/bill-view.js';
import { orderTicket, verifyOrderTicket } from '../../../../server/domain/orders/order-ticket.js';
import type { CreatedBillView } from '../../../../contract/bill-view.js';
import { startHarness, TEST_ADMIN_TOKEN, TEST_TICKET_SECRET } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { serveOn } from '../../support/servers.js';

const json = { 'Content-Type': 'application/json' };

async function post(h: Harness, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await h.request('/api/bills', { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

/** A shop whose orders the test can reprice; counts how often the BFF asked. */
function shop(prices: Record<string, string>) {
  const asked: string[] = [];
  return {
    asked,
    prices,
    resolveOrder: async (orderId: string) => {
      asked.push(orderId);
      const amount = prices[orderId];
      return amount === undefined ? null : { amount };
    },
  };
}

const withTickets = { ORDER_TICKET_SECRET: TEST_TICKET_SECRET, CLIENT_AMOUNT_MIN: '', CLIENT_AMOUNT_MAX: '' };

test('an order ticket is HMAC-SHA256 over "<orderId>.<expiresAtMs>", as any backend language mints it', async () => {
  const now = 1_800_000_000_000;
  const ticket = await orderTicket('order-1042', TEST_TICKET_SECRET, 60_000, now);
  const expires = now + 60_000;
  // The contract, computed independently with node:crypto.
  const sig = createHmac('sha256', TEST_TICKET_SECRET).update(`order-1042.${expires}`).digest('base64url');
  assert.equal(ticket, `${expires}.${sig}`);
  assert.equal(await verifyOrderTicket('order-1042', ticket, TEST_TICKET_SECRET, now), true);
  assert.equal(await verifyOrderTicket('order-1043', ticket, TEST_TICKET_SECRET, now), false, 'another order');
  assert.equal(await verifyOrderTicket('order-1042', ticket, `${TEST_TICKET_SECRET}x`, now), false, 'another secret');
  assert.equal(await verifyOrderTicket('order-1042', ticket, TEST_TICKET_SECRET, expires), false, 'expired');
  assert.equal(await verifyOrderTicket('order-1042', `${expires + 1}.${sig}`, TEST_TICKET_SECRET, now), false, 'a later expiry');
  // The last character of 43 base64url characters carries two spare bits: one spelling only.
  const last = sig.at(-1)!;
  const sibling = String.fromCharCode(last.charCodeAt(0) ^ 1);
  assert.equal(await verifyOrderTicket('order-1042', `${expires}.${sig.slice(0, -1)}${sibling}`, TEST_TICKET_SECRET, now), false);
  await assert.rejects(orderTicket('o', TEST_TICKET_SECRET, 0), RangeError);
});

test('hijack: a third party with the order id and no or a wrong ticket gets 403 and no token; the bill is untouched', async (t) => {
  const orders = shop({ 'order-1042': '42.00', 'order-7': '7.00' });
  const h = await startHarness(t, { env: withTickets, hooks: { resolveOrder: orders.resolveOrder } });
  const customer = await h.create({ orderId: 'order-1042', orderTicket: await h.ticket('order-1042') });
  assert.equal(customer.billAmount, '42.00');
  assert.equal(orders.asked.length, 1);

  const stolen = customer.token;
  const attempts = [
    {},
    { orderTicket: '' },
    { orderTicket: 'not-a-ticket' },
    { orderTicket: await h.ticket('order-7') },
    { orderTicket: await orderTicket('order-1042', 'some-other-secret-0123456789abcdefgh', 600_000, h.clock.now()) },
    { orderTicket: await h.ticket('order-1042', 1) }, // expires 1 ms from now…
  ];
  h.clock.advance(1); // …and that moment has come
  const answers = new Set<string>();
  for (const extra of attempts) {
    const res = await post(h, { orderId: 'order-1042', ...extra }, { 'Idempotency-Key': `thief-${answers.size}` });
    assert.equal(res.status, 403, JSON.stringify(extra));
    assert.equal((JSON.parse(res.text) as { error: { code: string } }).error.code, 'order_ticket_invalid');
    assert.ok(!res.text.includes(stolen) && !res.text.includes(customer.billId));
    answers.add(res.text);
  }
  // An order that does not exist answers the very same 403: nothing is learnt about orders.
  answers.add((await post(h, { orderId: 'no-such-order' })).text);
  assert.equal(answers.size, 1);
  assert.equal(orders.asked.length, 1, 'the order was never looked up for them');
  assert.equal(h.sandbox.stats().calls.create, 1);
  assert.equal(h.sandbox.stats().calls.cancel, 0);
  const read = await h.request(`/api/bills/${customer.billId}?token=${customer.token}`);
  assert.equal(((await read.json()) as { outcome: string }).outcome, 'pending');
  // The customer, with the ticket, still gets their bill back.
  const again = await h.create({ orderId: 'order-1042', orderTicket: await h.ticket('order-1042') });
  assert.equal(again.billId, customer.billId);
});

test('without ORDER_TICKET_SECRET against a real service, order creates need a resolveOrder hook, which gets the request', async (t) => {
  const refused = await startHarness(t, { env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN } });
  const res = await post(refused, { orderId: 'order-1' });
  assert.equal(res.status, 403);
  assert.equal((JSON.parse(res.text) as { error: { code: string } }).error.code, 'order_ticket_invalid');

  // The merchant's hook authorizes from the browser's own request (a session cookie here).
  const h = await startHarness(t, {
    hooks: {
      async resolveOrder(orderId, { request }) {
        if (request.headers.get('cookie') !== 'session=alice') throw new CheckoutError('forbidden', 'order_not_yours', 'Sign in to pay this order.');
        return orderId === 'order-1' ? { amount: '10' } : null;
      },
    },
  });
  const anonymous = await post(h, { orderId: 'order-1' });
  assert.equal(anonymous.status, 403);
  assert.equal((JSON.parse(anonymous.text) as { error: { code: string } }).error.code, 'order_not_yours');
  const alice = await post(h, { orderId: 'order-1' }, { Cookie: 'session=alice' });
  assert.equal(alice.status, 201);
});

test('one order, one payment: a create for a paid order answers that paid bill (200), never a new one', async (t) => {
  const orders = shop({ 'order-5': '5.00' });
  const h = await startHarness(t, { env: withTickets, hooks: { resolveOrder: orders.resolveOrder } });
  const first = await h.create({ orderId: 'order-5', orderTicket: await h.ticket('order-5') });
  h.sandbox.pay(first.billId);
  await h.sandbox.idle();

  const again = await post(h, { orderId: 'order-5', orderTicket: await h.ticket('order-5') }, { 'Idempotency-Key': 'second-tab' });
  assert.equal(again.status, 200);
  const view = JSON.parse(again.text) as CreatedBillView;
  assert.equal(view.billId, first.billId);
  assert.equal(view.outcome, 'paid');
  assert.equal(view.token, first.token, 'the ticket holder may watch it');
  assert.equal(h.sandbox.stats().calls.create, 1);
});

test('an open bill is reused only while the order amount holds; otherwise it is cancelled at the service and replaced', async (t) => {
  const orders = shop({ 'order-9': '10.00' });
  const h = await startHarness(t, { env: withTickets, hooks: { resolveOrder: orders.resolveOrder } });
  const ticket = await h.ticket('order-9');
  const a = await h.create({ orderId: 'order-9', orderTicket: ticket });
  const same = await h.create({ orderId: 'order-9', orderTicket: ticket });
  assert.equal(same.billId, a.billId);
  assert.equal(orders.asked.length, 2, 'resolved again on every create');

  orders.prices['order-9'] = '250.00';
  const b = await h.create({ orderId: 'order-9', orderTicket: ticket });
  assert.notEqual(b.billId, a.billId);
  assert.equal(b.billAmount, '250.00');
  assert.equal((await h.upstream.requeryBill(a.billId)).statusName, 'Cancelled');
  assert.equal((await h.store.getByBillId(a.billId))!.outcome, 'cancelled');
  const old = await h.request(`/api/bills/${a.billId}?token=${a.token}`);
  assert.equal(((await old.json()) as { outcome: string }).outcome, 'cancelled');
  assert.equal(h.sandbox.stats().calls.create, 2);
  await h.sandbox.idle();
});

test('a late payment of a replaced bill is marked duplicatePayment in its notice and in the admin rows', async (t) => {
  const notices: BillNotice[] = [];
  const orders = shop({ 'order-3': '10.00' });
  const h = await startHarness(t, {
    env: { ...withTickets, ADMIN_TOKEN: TEST_ADMIN_TOKEN },
    hooks: { resolveOrder: orders.resolveOrder, onFinal: (bill) => void notices.push(bill) },
    // The service accepts the cancel of the old bill but does not carry it out (or not yet).
    sandbox: { faults: { cancelNoOpRate: 1 } },
  });
  const ticket = await h.ticket('order-3');
  const a = await h.create({ orderId: 'order-3', orderTicket: ticket });
  orders.prices['order-3'] = '12.00';
  const b = await h.create({ orderId: 'order-3', orderTicket: ticket });
  assert.notEqual(a.billId, b.billId);

  h.sandbox.pay(b.billId);
  await h.sandbox.idle();
  h.sandbox.pay(a.billId); // the customer paid the old bill too, from another tab
  await h.sandbox.idle();
  await h.internals.noticeWorker.runOnce();
  const byBill = new Map(notices.map((n) => [n.billId, n]));
  assert.equal(byBill.get(b.billId)!.duplicatePayment, false);
  assert.equal(byBill.get(b.billId)!.orderAmount, '12.00');
  assert.equal(byBill.get(a.billId)!.duplicatePayment, true);
  assert.equal(byBill.get(a.billId)!.orderAmount, '10.00');
  for (const n of notices) {
    assert.equal(n.orderId, 'order-3');
    assert.equal(n.outcome, 'paid');
    assert.equal(n.livemode, true, 'a service reached through BILL_API_BASE_URL is live');
  }
  // A create for the order now answers its first payment.
  const again = await post(h, { orderId: 'order-3', orderTicket: ticket });
  assert.equal(again.status, 200);
  assert.equal((JSON.parse(again.text) as CreatedBillView).billId, b.billId);

  const res = await h.request('/api/admin/bills', {
    method: 'POST', headers: { ...json, Authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, body: '{}',
  });
  type Row = { billId: string; local: Record<string, unknown> | null };
  const rows = new Map(((await res.json()) as { lists: Row[] }).lists.map((r) => [r.billId, r.local]));
  const shown = (billId: string) => {
    const { outcome, notified, orderId, orderAmount, duplicatePayment } = rows.get(billId) ?? {};
    return { outcome, notified, orderId, orderAmount, duplicatePayment };
  };
  assert.deepEqual(shown(a.billId), { outcome: 'paid', notified: true, orderId: 'order-3', orderAmount: '10.00', duplicatePayment: true });
  assert.deepEqual(shown(b.billId), { outcome: 'paid', notified: true, orderId: 'order-3', orderAmount: '12.00', duplicatePayment: false });
});

test('notices tell the order: the webhook body carries orderId, orderAmount, and livemode false on the embedded sandbox', async (t) => {
  const received: { type: string; livemode: boolean; data: BillNotice }[] = [];
  const merchant = await serveOn(async (req) => {
    received.push(JSON.parse(await req.text()) as (typeof received)[number]);
    return new Response(null, { status: 204 });
  });
  t.after(() => merchant.close());
  const webhookSecret = `whsec_${Buffer.from('a-webhook-secret-of-32-bytes!!!!').toString('base64')}`;
  const h = await startHarness(t, {
    embedded: true,
    env: { MERCHANT_WEBHOOK_URL: `${merchant.url}/hooks`, MERCHANT_WEBHOOK_SECRET: webhookSecret },
    hooks: { resolveOrder: async (id) => (id === 'demo-mug-1' ? { amount: '12.50', currency: 'USD' } : null) },
  });
  assert.equal(h.config.embeddedSandbox, true);
  // On the embedded sandbox with no ORDER_TICKET_SECRET an order needs no ticket: the demo.
  const bill = await h.create({ orderId: 'demo-mug-1' });
  h.sandbox.pay(bill.billId);
  await h.sandbox.idle();
  await h.internals.noticeWorker.runOnce();
  assert.equal(received.length, 1);
  const [notice] = received;
  assert.equal(notice!.type, 'bill.final');
  assert.equal(notice!.livemode, false);
  assert.deepEqual(
    { orderId: notice!.data.orderId, orderAmount: notice!.data.orderAmount, livemode: notice!.data.livemode, duplicatePayment: notice!.data.duplicatePayment },
    { orderId: 'demo-mug-1', orderAmount: '12.50', livemode: false, duplicatePayment: false },
  );
  assert.equal(notice!.data.billId, bill.billId);
  assert.equal(notice!.data.outcome, 'paid');
});

test('an order whose currency differs from the bill the service made is refused, and the bill withdrawn', async (t) => {
  const h = await startHarness(t, {
    env: withTickets,
    hooks: { resolveOrder: async () => ({ amount: '10', currency: 'EUR' }) },
  });
  const res = await post(h, { orderId: 'order-eur', orderTicket: await h.ticket('order-eur') });
  assert.equal(res.status, 502);
  assert.equal((JSON.parse(res.text) as { error: { code: string } }).error.code, 'upstream_mismatch');
  assert.equal(h.internals.alerts.counts().create_answer_mismatch, 1);
  const [made] = (await h.upstream.listBills({})).lists;
  assert.equal(made!.statusName, 'Cancelled');
  await h.sandbox.idle();
});
