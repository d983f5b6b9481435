// Chaos (issue 41): a seeded random schedule of a real gateway's faults (resets after the bill was
// made, 429s and an edge's 503 page on create, cancels refused, a list that refuses our filter,
// records dated 7 h ahead) over many orders on two BFF instances sharing one PostgreSQL, each
// customer following the element's retry rules. Checked against the sandbox's own ledger: at no
// moment two payable bills for one order; every order payable again within a bound once the
// service recovers; no bill a customer was given withdrawn before its lifetime plus the grace;
// every final bill notified exactly once. It prints its seed; CHAOS_SEED=<n> replays one, and
// CHAOS_ORDERS=<n> sets the size (default 200).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BillNotice } from '../../../../server/domain/bill-view.js';
import { serviceReference } from '../../../../server/domain/status/answer-check.js';
import type { LedgerEntry } from '../../../../sandbox/sandbox.js';
import { startHarness, TEST_TICKET_SECRET, type Harness } from '../../support/harness.js';
import { startPg } from '../../support/pg.js';
import { seeded } from '../../../sandbox/support/harness.js';
import { createBudget } from '../../../../server/upstream/budget.js';

const ORDERS = Number(process.env.CHAOS_ORDERS ?? 200);
const SEED = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const GRACE_MS = 60_000;
const LIFETIME_MS = 900_000;
const PRICE = '42.00';

interface Answer {
  status: number;
  code: string | null;
  retryAfter: string | null;
  billId: string | null;
}

test(`chaos: ${ORDERS} orders on two instances under a seeded schedule of gateway faults (seed ${SEED})`, { timeout: 600_000 }, async (t) => {
  console.log(`chaos seed ${SEED} (replay with CHAOS_SEED=${SEED})`);
  const random = seeded(SEED);
  const pg = await startPg();
  t.after(() => pg.stop());
  const databaseUrl = await pg.createDatabase();
  const notices: BillNotice[] = [];
  const env = {
    NODE_ENV: 'production', RETURN_URL: 'https://shop.example/thanks', ORDER_TICKET_SECRET: TEST_TICKET_SECRET,
    CLIENT_AMOUNT_MIN: '', CLIENT_AMOUNT_MAX: '', DATABASE_URL: databaseUrl, BILL_EXPIRY_GRACE_MS: String(GRACE_MS),
    CREATE_RATE_LIMIT_PER_MINUTE: '1000000',
  };
  const hooks = { resolveOrder: async () => ({ amount: PRICE }), onFinal: (bill: BillNotice) => void notices.push(bill) };
  // Pacing toward the service has its own tests (upstream-budget, service-budget): here a budget
  // that does not slow down keeps the schedule's real time short, so refusals say Retry-After: 0.
  const fast = () => createBudget({ maxRps: null, startRps: 10_000, minRps: 10_000 });
  const first = await startHarness(t, { env, hooks, budget: fast(), sandbox: { billLifetimeMs: LIFETIME_MS, callbackRetryDelayMs: 10 } });
  const second = await startHarness(t, { env, hooks, budget: fast(), shareWith: first });
  const instances: Harness[] = [first, second];
  const { sandbox, clock } = first;
  const handedOut = new Set<string>();
  const stuck: string[] = [];

  async function post(h: Harness, orderId: string, key: string): Promise<Answer> {
    const res = await h.request('/api/bills', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify({ orderId, orderTicket: await h.ticket(orderId) }),
    });
    const body = (await res.json()) as { billId?: string; error?: { code: string } };
    return { status: res.status, code: body.error?.code ?? null, retryAfter: res.headers.get('retry-after'), billId: body.billId ?? null };
  }

  /** The element's rules: same key after a 409 create_in_progress or a 503 with Retry-After; a new key once after create_failed. */
  async function customer(orderId: string, tries = 8): Promise<string | null> {
    let key = `key-${orderId}-${Math.floor(random() * 1e9)}`;
    let renewed = false;
    for (let i = 0; i < tries; i++) {
      // A reload may land on either instance.
      const answer = await post(instances[random() < 0.5 ? 0 : 1]!, orderId, key);
      if (answer.billId && (answer.status === 201 || answer.status === 200)) {
        handedOut.add(answer.billId);
        return answer.billId;
      }
      if (answer.code === 'create_failed' && !renewed) {
        renewed = true;
        key = `key-${orderId}-renewed`;
        continue;
      }
      const again = (answer.status === 409 && answer.code === 'create_in_progress') || (answer.status === 503 && answer.retryAfter !== null);
      if (!again) throw new Error(`order ${orderId}: the customer was refused: ${JSON.stringify(answer)}`);
      clock.advance(Number(answer.retryAfter ?? '2') * 1000);
    }
    return null;
  }

  /** A fault, now and then, for the next creates (queues are taken by whichever request comes first). */
  function scheduleFaults(): void {
    const r = random();
    if (r < 0.12) sandbox.setFaults({ createResetAfterMade: 1 + (random() < 0.3 ? 1 : 0) + (random() < 0.1 ? 1 : 0) });
    else if (r < 0.2) sandbox.setFaults({ refusals: { create: [{ status: 429, retryAfterS: 0 }] } });
    else if (r < 0.25) sandbox.setFaults({ refusals: { create: [{ status: 503, html: true }] } });
    else if (r < 0.32) sandbox.setFaults({ refusals: { cancel: Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({ status: 429, retryAfterS: 0 })) } });
    else if (r < 0.34) sandbox.setFaults({ listRefusedFilters: ['merchantReference'] });
    else if (r < 0.4) sandbox.setFaults({ listRefusedFilters: [] });
    else if (r < 0.44) sandbox.setFaults({ recordDateTimeOffsetMs: random() < 0.5 ? 25_200_000 : 0 });
  }

  /**
   * Lets every notice delivery under way finish before the clock jumps: a jump past the notice lease
   * (NOTICE_LEASE_MS) mid-delivery would hand it to the other instance, a second delivery that only
   * a stalled process could cause in real time (at-least-once past the lease, by design).
   */
  async function quiet(): Promise<void> {
    await sandbox.idle();
    await Promise.all(instances.map((h) => h.refreshed()));
    for (const h of instances) await h.internals.noticeWorker.runOnce();
  }

  /** Moves the shared clock once nothing is under way. */
  async function advance(ms: number): Promise<void> {
    await quiet();
    clock.advance(ms);
  }

  async function reconcile(): Promise<void> {
    for (const h of instances) await h.internals.reconciler.runOnce();
    await Promise.all(instances.map((h) => h.refreshed()));
  }

  for (let i = 0; i < ORDERS; i++) {
    scheduleFaults();
    const orderId = `chaos-${i}`;
    const billId = await customer(orderId);
    if (billId === null) stuck.push(orderId);
    else if (random() < 0.5) {
      try {
        sandbox.pay(billId);
      } catch {
        // Already final at the service (an orphan's cancel raced it): nothing to pay.
      }
    }
    if (i % 10 === 9) {
      await advance(Math.floor(random() * 120_000));
      await reconcile();
    }
  }

  // The service recovers. Within the bound (the longest lifetime plus the grace, and a pass), every
  // order is payable again: a create answers a bill.
  sandbox.resetFaults();
  for (let step = 0; step < 4; step++) {
    await advance((LIFETIME_MS + GRACE_MS) / 3);
    await reconcile();
  }
  sandbox.sweep();
  await sandbox.idle();
  const unpaid: string[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const orderId = `chaos-${i}`;
    if (await first.store.findPaidByOrderId(orderId)) continue;
    unpaid.push(orderId);
    assert.ok(await customer(orderId, 3), `order ${orderId} is payable again once the service recovered (seed ${SEED})`);
  }

  // Everything ends: the rest is paid or expires, the reconcilers ask until every bill is final.
  for (const orderId of unpaid) {
    if (random() < 0.5) continue;
    const current = await first.store.findCurrentByOrderId(orderId);
    if (current?.billId) sandbox.pay(current.billId);
  }
  for (let step = 0; step < 6; step++) {
    await advance(LIFETIME_MS + GRACE_MS);
    sandbox.sweep();
    await sandbox.idle();
    await reconcile();
  }
  await sandbox.idle();
  for (let pass = 0; pass < 5; pass++) for (const h of instances) await h.internals.noticeWorker.runOnce();

  const ledger = sandbox.ledger();
  const refsOf = new Map<string, string>();
  for (let i = 0; i < ORDERS; i++) {
    for (const bill of await first.store.findBillsByOrder(`chaos-${i}`, 'equal', 100)) refsOf.set(serviceReference(bill.merchantReference), `chaos-${i}`);
  }

  // 1. At no moment two payable bills for one order: their payable spans [made, ended or expired) never overlap.
  const spans = new Map<string, { bill: LedgerEntry; from: number; to: number }[]>();
  for (const bill of ledger) {
    const orderId = refsOf.get(bill.merchantReference);
    assert.ok(orderId, `every bill at the service is one of an order's (${bill.billId}, seed ${SEED})`);
    const ended = bill.history[1]?.at ?? Infinity;
    const list = spans.get(orderId) ?? [];
    list.push({ bill, from: bill.createdAt, to: Math.min(ended, bill.expiredOn) });
    spans.set(orderId, list);
  }
  for (const [orderId, list] of spans) {
    list.sort((a, b) => a.from - b.from);
    for (let k = 1; k < list.length; k++) {
      assert.ok(list[k]!.from >= list[k - 1]!.to,
        `order ${orderId}: ${list[k - 1]!.bill.billId} and ${list[k]!.bill.billId} were payable at once (seed ${SEED})`);
    }
  }

  // 2. No bill a customer was given was withdrawn before its lifetime plus the grace.
  for (const bill of ledger) {
    const end = bill.history[1];
    if (!handedOut.has(bill.billId) || end?.status !== 'cancelled') continue;
    assert.ok(end.at >= bill.expiredOn + GRACE_MS, `${bill.billId} was withdrawn ${bill.expiredOn + GRACE_MS - end.at} ms early (seed ${SEED})`);
  }

  // 3. Every bill the service made is known to the BFF, final there as at the service, and notified exactly once.
  const counts = new Map<string, number>();
  for (const notice of notices) counts.set(notice.billId, (counts.get(notice.billId) ?? 0) + 1);
  for (const bill of ledger) {
    const stored = await first.store.getByBillId(bill.billId);
    assert.ok(stored, `the BFF keeps ${bill.billId} (seed ${SEED})`);
    assert.equal(stored.isFinal, true, `${bill.billId} is final in the BFF (seed ${SEED})`);
    assert.equal(counts.get(bill.billId), 1, `${bill.billId} notified once (seed ${SEED})`);
  }
  const paidOrders = new Set(ledger.filter((b) => b.history[1]?.status === 'paid').map((b) => refsOf.get(b.merchantReference)));
  console.log(`chaos: ${ORDERS} orders, ${ledger.length} bills at the service, ${paidOrders.size} orders paid, ` +
    `${handedOut.size} bills handed out, ${stuck.length} customers waiting before recovery, creates ${JSON.stringify(sandbox.stats().calls)}`);
});
