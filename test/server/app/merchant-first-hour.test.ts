// The merchant's first hour (issue 33): what a merchant's own code hands the BFF is checked and
// named when it is wrong, and the amounts the merchant gave come back as the merchant wrote them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { BillNotice } from '../../../server/domain/bill-view.js';
import type { OrderAmount } from '../../../server/domain/orders/order-lookup.js';
import { startHarness, TEST_ADMIN_TOKEN, TEST_TICKET_SECRET } from '../support/harness.js';
import { serveOn } from '../support/servers.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const withTickets = { ORDER_TICKET_SECRET: TEST_TICKET_SECRET, CLIENT_AMOUNT_MIN: '', CLIENT_AMOUNT_MAX: '' };

test('resolveOrder answering null is an unknown order (404); undefined or {} is the hook\'s mistake, said in the log, never a stack', async (t) => {
  const answers: Record<string, unknown> = { 'order-null': null, 'order-undefined': undefined, 'order-empty': {}, 'order-float': { amount: 'twelve' } };
  const h = await startHarness(t, {
    env: withTickets,
    hooks: { resolveOrder: async (orderId) => answers[orderId] as OrderAmount | null },
  });
  const create = async (orderId: string) => {
    const res = await h.request('/api/bills', {
      method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ orderId, orderTicket: await h.ticket(orderId) }),
    });
    return { status: res.status, body: (await res.json()) as { error: { code: string; message: string } } };
  };
  assert.deepEqual(await create('order-null'), { status: 404, body: { error: { code: 'order_not_found', message: 'No such order.' } } });
  for (const orderId of ['order-undefined', 'order-empty', 'order-float']) {
    const { status, body } = await create(orderId);
    assert.equal(status, 502, orderId);
    assert.equal(body.error.code, 'order_lookup_invalid');
    const line = h.logs.find((l) => l.includes(JSON.stringify(orderId).slice(1, -1)) && l.includes('"level":"error"'));
    assert.ok(line, `a log line about ${orderId}`);
    assert.match(line, /the resolveOrder hook answered/);
    assert.match(line, /return \{amount: decimal text/);
    assert.doesNotMatch(line, /TypeError|at .*\.ts/);
  }
  assert.equal(h.sandbox.stats().calls.create, 0);
});

test('"12.50" stays "12.50": in the create answer, the admin API, the webhook and onFinal', async (t) => {
  const received: { data: BillNotice }[] = [];
  const webhookSecret = `whsec_${Buffer.from('a-webhook-secret-of-32-bytes!!!!').toString('base64')}`;
  const merchant = await serveOn(async (req) => {
    const body = await req.text();
    received.push(new Webhook(webhookSecret).verify(body, Object.fromEntries(req.headers)) as { data: BillNotice });
    return new Response(null, { status: 204 });
  });
  t.after(() => merchant.close());
  const finals: BillNotice[] = [];
  const h = await startHarness(t, {
    env: { ...withTickets, ADMIN_TOKEN: TEST_ADMIN_TOKEN, MERCHANT_WEBHOOK_URL: `${merchant.url}/hooks`, MERCHANT_WEBHOOK_SECRET: webhookSecret },
    hooks: { resolveOrder: async () => ({ amount: '12.50' }), onFinal: (bill) => void finals.push(bill) },
  });
  const bill = await h.create({ orderId: 'order-1250', orderTicket: await h.ticket('order-1250') });
  assert.equal(bill.billAmount, '12.50');
  // The service itself answers 12.5 (a JSON number): the same amount, so the merchant's text is kept.
  assert.equal((await h.upstream.requeryBill(bill.billId)).billAmount, '12.5');
  h.sandbox.pay(bill.billId);
  await h.sandbox.idle();
  while (received.length === 0 || finals.length === 0) await h.internals.noticeWorker.runOnce();
  for (const notice of [received[0]!.data, finals[0]!]) {
    assert.deepEqual([notice.billAmount, notice.orderAmount, notice.outcome], ['12.50', '12.50', 'paid']);
  }
  const read = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
  assert.equal(((await read.json()) as { billAmount: string }).billAmount, '12.50');
  const admin = await h.request(`/api/admin/bills/${bill.billId}`, { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  const detail = (await admin.json()) as { bill: { billAmount: string }; local: { orderAmount: string } };
  assert.deepEqual([detail.bill.billAmount, detail.local.orderAmount], ['12.50', '12.50']);
});
