// One order, one current bill, across BFF instances on one PostgreSQL (issue 32): creates of one
// order reaching two instances at once make one bill, whatever their clocks say of its expiry;
// the order's next bill is made only once the service calls the first final.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedBillView } from '../../../contract/bill-view.js';
import { orderTicket } from '../../../server/domain/orders/order-ticket.js';
import { startFleet } from '../support/pg-fleet.js';
import type { Fleet } from '../support/pg-fleet.js';
import { serveOn } from '../support/servers.js';
import type { Served } from '../support/servers.js';
import { TEST_TICKET_SECRET } from '../support/harness.js';

describe('one order, one bill, on two instances', () => {
  let fleet: Fleet;
  let shop: Served;
  before(async () => {
    // The merchant's order lookup (ORDER_LOOKUP_URL): every order costs 25.00.
    shop = await serveOn(() => Response.json({ amount: '25.00' }));
    fleet = await startFleet({
      env: { NODE_ENV: 'production', RETURN_URL: 'https://shop.example/thanks', ORDER_TICKET_SECRET: TEST_TICKET_SECRET, ORDER_LOOKUP_URL: shop.url, RECONCILE_INTERVAL_MS: '3600000' },
      // A service whose clock runs 20 min behind: by the BFF's clock, its bills expire before they are made.
      sandbox: { clockOffsetMs: -1_200_000 },
    });
  });
  after(async () => {
    await fleet?.stop();
    await shop?.close();
  });

  async function create(instance: number, orderId: string) {
    const res = await fetch(`${fleet.instances[instance]!.url}/api/bills`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ orderId, orderTicket: await orderTicket(orderId, TEST_TICKET_SECRET, 600_000) }),
    });
    return { status: res.status, body: (await res.json()) as CreatedBillView };
  }

  it('eight creates at once on both instances: one bill at the service, every answer that bill', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => create(i % 2, 'order-7001')));
    assert.deepEqual(answers.map((a) => a.status), Array(8).fill(201), JSON.stringify(answers.map((a) => a.body)));
    assert.equal(new Set(answers.map((a) => a.body.billId)).size, 1);
    assert.equal(fleet.sandbox.stats().calls.create, 1);
    // Again later, on either instance: the same bill (pending at the service, payable by its clock).
    for (const instance of [0, 1]) assert.equal((await create(instance, 'order-7001')).body.billId, answers[0]!.body.billId);
    assert.equal(fleet.sandbox.stats().calls.create, 1);
  });

  it("the order's next bill only once the service calls the first final; its payment answers from then on", async () => {
    const first = await create(0, 'order-7002');
    fleet.sandbox.decline(first.body.billId);
    const second = await create(1, 'order-7002');
    assert.equal(second.status, 201);
    assert.notEqual(second.body.billId, first.body.billId);
    fleet.sandbox.pay(second.body.billId);
    const paid = await create(0, 'order-7002');
    assert.equal(paid.status, 200);
    assert.deepEqual([paid.body.billId, paid.body.outcome], [second.body.billId, 'paid']);
  });
});
