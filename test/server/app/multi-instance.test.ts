// Two BFF processes (server/main.ts) on one PostgreSQL behind a balancer, with the sandbox:
// they behave as one. Figures are printed as `multi.* …` lines.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { BillView, CreatedBillView } from '../../../contract/bill-view.js';
import { startFleet } from '../support/pg-fleet.js';
import type { Fleet } from '../support/pg-fleet.js';
import { readSse } from '../support/sse.js';

const WINDOW_MS = 250;
const SWEEP_MS = 200;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

describe('several BFF instances on one PostgreSQL', () => {
  let fleet: Fleet;
  let db: pg.Client;
  before(async () => {
    fleet = await startFleet({
      env: { REFRESH_WINDOW_MS: String(WINDOW_MS), RECONCILE_INTERVAL_MS: '3600000', STATUS_SWEEP_MS: String(SWEEP_MS) },
    });
    db = new pg.Client(fleet.databaseUrl);
    await db.connect();
  });
  after(async () => {
    await db?.end();
    await fleet?.stop();
  });

  const on = (i: number) => fleet.instances[i]!.url;
  async function create(base: string, body: Record<string, unknown> = { amount: '12.50' }, headers: Record<string, string> = {}) {
    const res = await fetch(`${base}/api/bills`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as CreatedBillView };
  }
  async function created(base: string): Promise<CreatedBillView> {
    const r = await create(base);
    assert.equal(r.status, 201);
    return r.body;
  }

  it('watchers on both instances see a payment whose callback reached one, within 100 ms', async () => {
    const lags: number[] = [];
    for (let n = 0; n < 12; n++) {
      const bill = await created(on(n % 2));
      const watchers = await Promise.all([0, 0, 1, 1].map(async (i) => {
        const res = await fetch(`${on(i)}/api/bills/${bill.billId}/events?token=${bill.token}`);
        const sse = readSse(res);
        assert.equal((await sse.next())?.outcome, 'pending');
        return sse;
      }));
      const seen = watchers.map(async (sse) => {
        let view: BillView | null;
        do view = await sse.next(); while (view && view.outcome === 'pending');
        const at = performance.now();
        await sse.cancel();
        return { at, outcome: view?.outcome };
      });
      fleet.sandbox.pay(bill.billId);
      const got = await Promise.all(seen);
      assert.deepEqual(got.map((g) => g.outcome), ['paid', 'paid', 'paid', 'paid']);
      lags.push(Math.max(...got.map((g) => g.at)) - Math.min(...got.map((g) => g.at)));
    }
    console.log(`multi.cross_instance_ms p50=${percentile(lags, 50).toFixed(2)} max=${Math.max(...lags).toFixed(2)} n=${lags.length}`);
    // Without the other instance's notice a watcher would learn it at its next refresh (up to
    // WINDOW_MS, 250 ms): most of twelve would lag past 100 ms. A loaded machine may stretch one.
    const sorted = [...lags].sort((a, b) => a - b);
    assert.ok(sorted[sorted.length - 2]! <= 100, `second slowest ${sorted.at(-2)} ms: ${lags.map(Math.round).join(' ')}`);
  });

  it('a watcher whose instance lost its LISTEN connection still sees a payment stored by the other meanwhile', async () => {
    const bill = await created(on(0));
    const sse = readSse(await fetch(`${on(1)}/api/bills/${bill.billId}/events?token=${bill.token}`));
    assert.equal((await sse.next())?.outcome, 'pending');
    // Every LISTEN connection is cut: the NOTIFY of the payment below reaches no other instance.
    const cut = await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %'`);
    assert.ok(cut.rowCount! >= 2, `cut ${cut.rowCount} LISTEN connections`);
    fleet.sandbox.setFaults({ callbackDropRate: 1 });
    fleet.sandbox.pay(bill.billId);
    fleet.sandbox.setFaults({ callbackDropRate: 0 });
    const { rows } = await db.query<{ merchant_reference: string; hook_token: string }>(
      'SELECT merchant_reference, hook_token FROM bills WHERE bill_id = $1', [bill.billId]);
    const callback = await fetch(`${on(0)}/api/hooks/callback/${rows[0]!.merchant_reference}/${rows[0]!.hook_token}`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ billId: bill.billId }),
    });
    assert.equal(callback.status, 200);
    // Instance 1 listens again by itself and catches its watchers up from the store.
    let view: BillView | null;
    do view = await sse.next(); while (view && view.outcome === 'pending');
    assert.equal(view?.outcome, 'paid');
    await sse.cancel();
  });

  it('a payment committed by an instance that died before announcing it reaches the other\'s watchers at its next sweep', { timeout: 15_000 }, async () => {
    const bill = await created(on(0));
    const sse = readSse(await fetch(`${on(1)}/api/bills/${bill.billId}/events?token=${bill.token}`));
    assert.equal((await sse.next())?.outcome, 'pending');
    // What an instance's applyStatus commits (bc_apply_status, migrations 5 and 7), without the
    // NOTIFY it sends only after the commit: the instance was SIGKILLed in between.
    const at = Date.now();
    const { rows } = await db.query<{ changed: boolean }>(
      `SELECT changed FROM bc_apply_status($1, 2, 'paid', 'paid', $2, $2, 'callback', ARRAY[]::text[], ARRAY[]::text[])`, [bill.billId, at]);
    assert.equal(rows[0]?.changed, true);
    // No message, no requery (the service's own callback never came): only the sweep tells instance 1.
    let view: BillView | null;
    do view = await sse.next(); while (view && view.outcome === 'pending');
    assert.equal(view?.outcome, 'paid');
    await sse.cancel();
  });

  it('100 concurrent creates with one Idempotency-Key spread over both make one bill', async () => {
    const creates = fleet.sandbox.stats().calls.create;
    const bills = Number((await db.query('SELECT count(*) AS n FROM bills')).rows[0].n);
    const headers = { 'Idempotency-Key': 'multi-same-key-1' };
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => create(on(i % 2), { amount: '25.00' }, headers)));
    const ok = answers.filter((a) => a.status === 201);
    assert.ok(ok.length >= 1);
    assert.ok(answers.every((a) => a.status === 201 || a.status === 409), `statuses ${[...new Set(answers.map((a) => a.status))]}`);
    const after = await Promise.all([create(on(0), { amount: '25.00' }, headers), create(on(1), { amount: '25.00' }, headers)]);
    const ids = new Set([...ok, ...after].map((a) => a.body.billId));
    assert.deepEqual(after.map((a) => a.status), [201, 201]);
    assert.equal(ids.size, 1);
    assert.equal(fleet.sandbox.stats().calls.create - creates, 1);
    assert.equal(Number((await db.query('SELECT count(*) AS n FROM bills')).rows[0].n) - bills, 1);
  });

  it('duplicate callbacks spread over both give one merchant notice', async () => {
    const bill = await created(fleet.url);
    const { rows } = await db.query('SELECT merchant_reference, hook_token FROM bills WHERE bill_id = $1', [bill.billId]);
    const path = `/api/hooks/callback/${rows[0].merchant_reference}/${rows[0].hook_token}`;
    fleet.sandbox.pay(bill.billId);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => fetch(on(i % 2) + path, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ billId: bill.billId }),
    }).then((r) => r.status)));
    assert.deepEqual(new Set(answers), new Set([200]));
    await fleet.deliveriesUntil((d) => d.some((x) => x.billId === bill.billId));
    await fleet.sandbox.idle();
    // The receiver answered before the worker records the delivery: wait for that row change.
    let notices;
    do notices = await db.query('SELECT channel, attempts, delivered_at FROM notices WHERE bill_id = $1', [bill.billId]);
    while (notices.rows[0]?.delivered_at === null);
    assert.equal(notices.rows.length, 1);
    assert.equal(notices.rows[0].attempts, 1, 'claimed once among both instances');
    assert.ok(notices.rows[0].delivered_at !== null);
    assert.equal(fleet.deliveries.filter((d) => d.billId === bill.billId).length, 1);
  });

  it('many watchers polling on both instances cost about one requery per bill per window', async () => {
    const bills = await Promise.all([0, 1, 0, 1].map((i) => created(on(i))));
    const before = fleet.sandbox.stats().requeryByBill;
    const durationMs = 8 * WINDOW_MS;
    const start = performance.now();
    let reads = 0;
    await Promise.all(bills.flatMap((bill) => [0, 1].flatMap((i) => Array.from({ length: 4 }, async () => {
      while (performance.now() - start < durationMs) {
        const res = await fetch(`${on(i)}/api/bills/${bill.billId}?token=${bill.token}`);
        assert.equal(res.status, 200);
        await res.arrayBuffer();
        reads++;
      }
    }))));
    const elapsed = performance.now() - start;
    const afterStats = fleet.sandbox.stats().requeryByBill;
    const perBill = bills.map((b) => (afterStats[b.billId] ?? 0) - (before[b.billId] ?? 0));
    const windows = elapsed / WINDOW_MS;
    const perWindow = Math.max(...perBill) / windows;
    console.log(`multi.requeries_per_bill_per_window=${perWindow.toFixed(2)} instances=2 reads=${reads} requeries=${perBill.join(',')} windows=${windows.toFixed(1)}`);
    for (const n of perBill) assert.ok(n <= Math.ceil(windows) + 2, `${n} requeries in ${windows.toFixed(1)} windows`);
  });

  it('killing one instance with SIGKILL while callbacks arrive loses nothing', async () => {
    const bills = await Promise.all(Array.from({ length: 8 }, () => created(fleet.url)));
    fleet.sandbox.setFaults({ callbackDelayMs: [0, 300] });
    const firstDelivered = new Promise<void>((resolve) => {
      fleet.sandbox.events.addEventListener('callback', (e) => {
        if ((e as CustomEvent<{ outcome: string }>).detail.outcome === 'ok') resolve();
      });
    });
    for (const bill of bills) fleet.sandbox.pay(bill.billId);
    await firstDelivered;
    await fleet.instances[1]!.child.kill('SIGKILL');
    await fleet.sandbox.idle();
    const ids = new Set(bills.map((b) => b.billId));
    await fleet.deliveriesUntil((d) => [...ids].every((id) => d.some((x) => x.billId === id)));
    const { rows } = await db.query('SELECT bill_id, outcome FROM bills WHERE bill_id = ANY($1::text[])', [[...ids]]);
    assert.deepEqual(rows.map((r) => r.outcome), bills.map(() => 'paid'));
    for (const id of ids) {
      assert.equal(new Set(fleet.deliveries.filter((d) => d.billId === id).map((d) => d.webhookId)).size, 1, id);
    }
    const status = await fetch(`${fleet.url}/api/bills/${bills[0]!.billId}?token=${bills[0]!.token}`);
    assert.equal(((await status.json()) as BillView).outcome, 'paid', 'the survivor serves every bill');
  });
});
