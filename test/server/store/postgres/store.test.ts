// The PostgreSQL store: the Store contract unchanged, the requery claim, exclusive work and the
// status decision (status-change.ts) on both stores, then what only PostgreSQL has (concurrent
// pools, migrations, LISTEN/NOTIFY).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openStore } from '../../../../server/store/open-store.js';
import { createPostgresStore } from '../../../../server/store/postgres/store.js';
import { PG_MIGRATIONS } from '../../../../server/store/postgres/migrations.js';
import { createSqliteStore } from '../../../../server/store/sqlite/store.js';
import { decideStatus } from '../../../../server/store/status-change.js';
import type { ApplyStatusInput, Store } from '../../../../server/store/types.js';
import { createdBill, newBill, statusRecord, storeContract } from '../store-contract.js';
import { startPg } from '../../support/pg.js';
import type { PgCluster } from '../../support/pg.js';

const T0 = 1_800_000_000_000;
const cluster: PgCluster = await startPg();
after(() => cluster.stop());

async function pgStore(): Promise<{ store: Store; schema: string }> {
  const schema = await cluster.createSchema();
  return { store: createPostgresStore(cluster.url, { schema }), schema };
}

storeContract('postgres', async () => {
  const { store } = await pgStore();
  return { store, cleanup: () => store.close() };
});

async function createdIn(store: Store, billId: string): Promise<void> {
  const bill = newBill();
  await store.insertBill(bill);
  await store.completeCreate(bill.merchantReference, createdBill(bill.merchantReference, billId), T0);
}

const sqliteDir = await mkdtemp(join(tmpdir(), 'store-claims-'));
after(() => rm(sqliteDir, { recursive: true, force: true }));
let sqliteFiles = 0;

for (const [name, make] of [
  ['sqlite', async () => createSqliteStore(join(sqliteDir, `c-${++sqliteFiles}.sqlite`))],
  ['postgres', async () => (await pgStore()).store],
] as const) {
  describe(`Store requery claims and exclusive work: ${name}`, () => {
    it('gives the right to requery once per window, none while a claim is held, none for a final bill', async (t) => {
      const store = await make();
      t.after(() => store.close());
      await store.migrate();
      await createdIn(store, 'C1');
      assert.equal(await store.claimRefresh('C1', T0, 1000, 500), true, 'never checked');
      assert.equal(await store.claimRefresh('C1', T0 + 10, 1000, 500), false, 'held');
      assert.equal(await store.claimRefresh('C1', T0 + 10, 0, 500), false, 'news waits for a held claim too');
      await store.releaseRefresh('C1', T0 + 500);
      await store.applyStatus({ billId: 'C1', record: statusRecord('C1', 1, T0), outcome: 'pending', checkedAt: T0 + 20 }, []);
      assert.equal(await store.claimRefresh('C1', T0 + 30, 1000, 500), false, 'checked within the window');
      assert.equal(await store.claimRefresh('C1', T0 + 30, 0, 500), true, 'news: whatever the age');
      assert.equal(await store.claimRefresh('C1', T0 + 529, 0, 500), false);
      assert.equal(await store.claimRefresh('C1', T0 + 530, 0, 500), true, 'an expired claim is taken over');
      await store.releaseRefresh('C1', T0 + 30 + 500); // a stale release does not free the new claim
      assert.equal(await store.claimRefresh('C1', T0 + 600, 0, 500), false);
      await store.releaseRefresh('C1', T0 + 1030);
      assert.equal(await store.claimRefresh('C1', T0 + 1020, 1000, 500), true, 'window passed');
      await store.releaseRefresh('C1', T0 + 1520);
      await store.applyStatus({ billId: 'C1', record: statusRecord('C1', 2, T0 + 2), outcome: 'paid', checkedAt: T0 + 1100 }, []);
      assert.equal(await store.claimRefresh('C1', T0 + 9000, 0, 500), false, 'final');
      assert.equal(await store.claimRefresh('missing', T0, 0, 500), false);
    });

    it('claims asked for in one moment (a failover\'s reconnecting watchers): each bill taken once, by the first to ask', async (t) => {
      const store = await make();
      t.after(() => store.close());
      await store.migrate();
      for (const id of ['M1', 'M2', 'M3']) await createdIn(store, id);
      await store.claimRefresh('M3', T0, 0, 500);
      const taken = await Promise.all([
        store.claimRefresh('M1', T0 + 10, 1000, 500), store.claimRefresh('M2', T0 + 10, 1000, 500),
        store.claimRefresh('M1', T0 + 10, 1000, 500), store.claimRefresh('M3', T0 + 10, 0, 500), store.claimRefresh('nobody', T0 + 10, 0, 500),
      ]);
      assert.deepEqual(taken, [true, true, false, false, false]);
      await Promise.all([store.releaseRefresh('M1', T0 + 510), store.releaseRefresh('M2', T0 + 510), store.releaseRefresh('M3', T0 + 1)]);
      const again = await Promise.all(['M1', 'M2', 'M3'].map((id) => store.claimRefresh(id, T0 + 20, 0, 500)));
      assert.deepEqual(again, [true, true, false], 'released together, a stale release freeing nothing');
    });

    it('runs exclusive work once at a time under one name', async (t) => {
      const store = await make();
      t.after(() => store.close());
      await store.migrate();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const first = store.exclusive('pass', async () => {
        await gate;
        return 1;
      });
      assert.deepEqual(await store.exclusive('pass', async () => 2), { ran: false });
      assert.deepEqual(await store.exclusive('other', async () => 3), { ran: true, value: 3 });
      release();
      assert.deepEqual(await first, { ran: true, value: 1 });
      assert.deepEqual(await store.exclusive('pass', async () => 4), { ran: true, value: 4 });
    });
  });
  describe(`Store applyStatus as status-change.ts decides it: ${name}`, () => {
    /** Applies `input` to the stored bill and holds the answer, the stored row and the history to decideStatus's. */
    async function applyAsDecided(store: Store, input: ApplyStatusInput, duplicate = false) {
      const before = (await store.getByBillId(input.billId))!;
      const history = await store.billHistory(before.merchantReference);
      const decision = decideStatus(before, input);
      const result = await store.applyStatus(input, ['webhook']);
      const after = (await store.getByBillId(input.billId))!;
      const historyAfter = await store.billHistory(before.merchantReference);
      if (decision.kind === 'final_already') {
        assert.deepEqual(result, { bill: before, changed: false, becameFinal: false });
        assert.deepEqual(after, before);
        assert.deepEqual(historyAfter, history);
      } else if (decision.kind === 'stale') {
        assert.deepEqual(result, { bill: decision.bill, changed: false, becameFinal: false });
        assert.deepEqual(after, decision.bill);
        assert.deepEqual(historyAfter, history);
      } else {
        const bill = duplicate ? { ...decision.bill, duplicatePayment: true } : decision.bill;
        assert.deepEqual(result, { bill, changed: decision.changed, becameFinal: decision.becameFinal });
        assert.deepEqual(after, bill);
        assert.deepEqual(historyAfter, decision.event ? [...history, decision.event] : history);
        assert.equal((await store.noticesFor([input.billId])).length, decision.becameFinal || before.isFinal ? 1 : 0);
      }
      return decision.kind;
    }
    const input = (billId: string, status: number, dateTime: number, outcome: ApplyStatusInput['outcome'], checkedAt: number,
      reason?: ApplyStatusInput['reason']): ApplyStatusInput => ({ billId, record: statusRecord(billId, status, dateTime), outcome, checkedAt, ...(reason ? { reason } : {}) });

    it('stores each status, stale or not, then nothing once final, as decided', async (t) => {
      const store = await make();
      t.after(() => store.close());
      await store.migrate();
      await createdIn(store, 'D1');
      const steps: [string, ApplyStatusInput, string][] = [
        ['a first status', input('D1', 1, T0 + 10, 'pending', T0 + 11, 'poll'), 'store'],
        ['the same again', input('D1', 1, T0 + 10, 'pending', T0 + 12, 'stream'), 'store'],
        ['a newer dateTime', input('D1', 1, T0 + 15, 'pending', T0 + 16), 'store'],
        ['an older pending status', input('D1', 3, T0 + 14, 'pending', T0 + 17, 'callback'), 'stale'],
        ['a new statusName', { ...input('D1', 1, T0 + 15, 'pending', T0 + 18), record: { ...statusRecord('D1', 1, T0 + 15), statusName: 'Awaiting' } }, 'store'],
        ['final, though older', input('D1', 2, T0 + 12, 'paid', T0 + 19, 'callback'), 'store'],
        ['after final', input('D1', 4, T0 + 30, 'cancelled', T0 + 31, 'cancel'), 'final_already'],
      ];
      for (const [what, step, kind] of steps) assert.equal(await applyAsDecided(store, step), kind, what);
      assert.equal((await store.getByBillId('D1'))?.statusVersion, 4);
    });

    it('marks a second payment of an order a duplicate, as decided', async (t) => {
      const store = await make();
      t.after(() => store.close());
      await store.migrate();
      for (const billId of ['O1', 'O2']) {
        const bill = newBill({ orderId: `order-dup-${name}` });
        assert.equal((await store.insertBill(bill)).inserted, true);
        await store.completeCreate(bill.merchantReference, createdBill(bill.merchantReference, billId), T0);
        assert.equal(await applyAsDecided(store, input(billId, 2, T0 + 5, 'paid', T0 + 6, 'callback'), billId === 'O2'), 'store');
      }
      assert.equal((await store.findPaidByOrderId(`order-dup-${name}`))?.billId, 'O1');
    });
  });
}

describe('PostgreSQL store', () => {
  let schema: string;
  let stores: Store[];
  before(async () => {
    schema = await cluster.createSchema();
    stores = Array.from({ length: 4 }, () => createPostgresStore(cluster.url, { schema, max: 4 }));
  });
  after(() => Promise.all(stores.map((s) => s.close())));

  it('migrates once from several pools at once, and keeps amounts as text', async () => {
    await Promise.all(stores.map((s) => s.migrate()));
    const raw = new pg.Client({ connectionString: cluster.url, options: `-c search_path=${schema}` });
    await raw.connect();
    try {
      const versions = (await raw.query('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version);
      assert.deepEqual(versions, PG_MIGRATIONS.map((m) => m.version));
      await stores[0]!.insertBill(newBill({ amount: '0.10', merchantReference: 'amount-text' }));
      const { rows } = await raw.query(`SELECT amount, pg_typeof(amount)::text AS t FROM bills WHERE merchant_reference = 'amount-text'`);
      assert.deepEqual(rows[0], { amount: '0.10', t: 'text' });
    } finally {
      await raw.end();
    }
  });

  it('many pools inserting the same idempotency keys at once make one bill per key', async () => {
    const keys = 20;
    const results = await Promise.all(stores.flatMap((s, w) => Array.from({ length: keys }, (_, k) =>
      s.insertBill(newBill({ merchantReference: `race-${w}-${k}`, idempotencyKey: `race-key-${k}` })))));
    for (let k = 0; k < keys; k++) {
      const holders = new Set(results.filter((r) => r.bill.idempotencyKey === `race-key-${k}`).map((r) => r.bill.merchantReference));
      assert.equal(holders.size, 1, `race-key-${k}`);
    }
    assert.equal(results.filter((r) => r.inserted).length, keys);
  });

  it('a final status stays final and queues one notice, with applies racing on several pools', async () => {
    await createdIn(stores[0]!, 'R1');
    const results = await Promise.all(stores.map((s, i) =>
      s.applyStatus({ billId: 'R1', record: statusRecord('R1', 2, T0 + i), outcome: 'paid', checkedAt: T0 + 10 }, ['webhook'])));
    assert.equal(results.filter((r) => r.becameFinal).length, 1);
    const claims = await Promise.all(stores.map((s) => s.claimNotices('webhook', T0 + 20, 1000, 10)));
    assert.equal(claims.flat().length, 1, 'one claim among the pools');
  });

  it('claims a requery once among pools racing for it', async () => {
    await createdIn(stores[0]!, 'R2');
    const won = await Promise.all(stores.flatMap((s) => [s, s].map(() => s.claimRefresh('R2', T0, 1000, 5000))));
    assert.equal(won.filter(Boolean).length, 1);
  });

  it('runs exclusive work in one pool at a time', async () => {
    let inside = 0;
    let most = 0;
    const runs = await Promise.all(stores.map((s) => s.exclusive('reconcile', async () => {
      most = Math.max(most, ++inside);
      await new Promise<void>((resolve) => setImmediate(resolve));
      inside--;
    })));
    assert.equal(most, 1);
    assert.ok(runs.filter((r) => r.ran).length >= 1);
  });

  it('delivers NOTIFY payloads to listeners in other pools, in order', async () => {
    const got: string[] = [];
    let done!: () => void;
    const all = new Promise<void>((resolve) => (done = resolve));
    const stop = await stores[1]!.events!.listen('test_channel', (p) => {
      got.push(p);
      if (got.length === 3) done();
    });
    for (const p of ['a', 'b', 'c']) await stores[2]!.events!.notify('test_channel', p);
    await all;
    await stop();
    assert.deepEqual(got, ['a', 'b', 'c']);
  });

  it('counts the instances alive (BILL_API_SHARED_MAX_RPS), forgets one that left or went silent, and removes long-dead rows', async () => {
    const raw = new pg.Client({ connectionString: cluster.url, options: `-c search_path=${schema}` });
    await raw.connect();
    try {
      const beat = (i: number, withinMs = 6_000) => stores[i]!.events!.instanceBeat!(withinMs);
      assert.equal(await beat(0), 1, 'alone: itself');
      assert.equal(await beat(1), 2);
      assert.equal(await beat(2), 3);
      assert.equal(await beat(0), 3, 'a beat again counts no one twice');
      // Every row 10 s old (stamped on the database's clock): only the one beating now counts.
      await raw.query('UPDATE bc_instances SET seen_at = seen_at - 10000');
      assert.equal(await beat(0), 1, 'the others went silent');
      assert.equal(await beat(1), 2);
      await stores[0]!.events!.instanceLeave!();
      assert.equal(await beat(1), 1, 'a clean stop leaves at once');
      // Rows silent for longer than ten windows (at least a minute) are removed by the next beat.
      await raw.query('UPDATE bc_instances SET seen_at = seen_at - 120000');
      assert.equal(await beat(3, 1000), 1);
      const { rows } = await raw.query('SELECT count(*)::int AS n FROM bc_instances');
      assert.equal(rows[0].n, 1);
    } finally {
      await raw.end();
    }
  });

  it('announces each status change once it is committed, and nothing for an unchanged status', async () => {
    const { store, schema } = await pgStore();
    try {
      await store.migrate();
      await createdIn(store, 'N1');
      const { channel, from } = store.events!.statusAnnouncements!;
      assert.equal(channel, `bill_status_${schema}`);
      const heard: unknown[] = [];
      let next!: () => void;
      const stop = await stores[0]!.events!.listen(channel, (p) => {
        heard.push(JSON.parse(p));
        next();
      });
      const announced = () => new Promise<void>((resolve) => (next = resolve));
      let told = announced();
      await store.applyStatus({ billId: 'N1', record: statusRecord('N1', 1, T0), outcome: 'pending', checkedAt: T0 + 1 }, []);
      await told;
      // Unchanged: nothing is told. Then paid: told, with the version a reader of the bill sees.
      await store.applyStatus({ billId: 'N1', record: statusRecord('N1', 1, T0 + 5), outcome: 'pending', checkedAt: T0 + 6 }, []);
      told = announced();
      const paid = await store.applyStatus({ billId: 'N1', record: statusRecord('N1', 2, T0 + 10), outcome: 'paid', checkedAt: T0 + 11 }, ['webhook']);
      await told;
      await stop();
      assert.deepEqual(heard, [
        { from, changes: [{ billId: 'N1', version: 1 }] },
        { from, changes: [{ billId: 'N1', version: paid.bill.statusVersion }] },
      ]);
      assert.equal((await store.getByBillId('N1'))?.statusVersion, paid.bill.statusVersion);
    } finally {
      await store.close();
    }
  });

  it('records the attempts of notices finished together in one batch, each numbered after its own', async () => {
    const { store } = await pgStore();
    try {
      await store.migrate();
      const ids = ['F1', 'F2', 'F3'];
      for (const id of ids) {
        await createdIn(store, id);
        await store.applyStatus({ billId: id, record: statusRecord(id, 2, T0), outcome: 'paid', checkedAt: T0 + 1 }, ['webhook']);
      }
      const claimed = await store.claimNotices('webhook', T0 + 2, 60_000, 10);
      assert.deepEqual(claimed.map((n) => n.bill?.billId).sort(), ids, 'each notice comes with its bill');
      const attempt = (ok: boolean) => ({ at: T0 + 3, durationMs: 4, ok, replay: false, httpStatus: ok ? 204 : 500, response: null, error: ok ? null : 'HTTP 500' });
      // Finished at once, so the second and third wait for the first write and go together; each gets its own answer.
      const results = await Promise.all(claimed.map((n, i) => store.finishNoticeAttempt(n, { attempt: attempt(i !== 1), nextAttemptAt: T0 + 5_000 })));
      assert.deepEqual(results.map((r) => [r.noticeId, r.number, r.ok]), claimed.map((n, i) => [n.id, 1, i !== 1]));
      const again = await store.claimNotices('webhook', T0 + 5_000, 60_000, 10);
      assert.deepEqual(again.map((n) => n.id), [claimed[1]!.id], 'the failed one is due again');
      const second = await store.finishNoticeAttempt(again[0]!, { attempt: attempt(true), nextAttemptAt: null });
      assert.equal(second.number, 2);
      assert.deepEqual((await store.noticesFor(ids)).map((n) => n.state), ['delivered', 'delivered', 'delivered']);
    } finally {
      await store.close();
    }
  });

  it('stores the status changes of one moment in one call, each with its own answer, an unknown bill failing alone', async () => {
    const { store } = await pgStore();
    try {
      await store.migrate();
      const ids = ['G1', 'G2', 'G3', 'G4'];
      const refs = new Map<string, string>();
      for (const id of ids) {
        await createdIn(store, id);
        refs.set(id, (await store.getByBillId(id))!.merchantReference);
      }
      const committed: string[] = [];
      // Submitted in one turn of the event loop: one call of bc_apply_statuses.
      const outcomes = await Promise.allSettled([
        store.applyStatus({ billId: 'G1', record: statusRecord('G1', 1, T0), outcome: 'pending', checkedAt: T0 + 1 }, []),
        store.applyStatus({ billId: 'G3', record: statusRecord('G3', 2, T0), outcome: 'paid', checkedAt: T0 + 1 }, ['webhook'],
          (r) => committed.push(r.bill.billId!)),
        store.applyStatus({ billId: 'NOPE', record: statusRecord('NOPE', 2, T0), outcome: 'paid', checkedAt: T0 + 1 }, ['webhook']),
        store.applyStatus({ billId: 'G2', record: statusRecord('G2', 2, T0), outcome: 'paid', checkedAt: T0 + 1 }, ['webhook']),
        store.applyStatus({ billId: 'G2', record: statusRecord('G2', 2, T0 + 1), outcome: 'paid', checkedAt: T0 + 2 }, ['webhook']),
      ]);
      const [g1, g3, nope, g2, g2again] = outcomes;
      assert.equal(g1.status === 'fulfilled' && g1.value.changed, true);
      assert.equal(g3.status === 'fulfilled' && g3.value.becameFinal, true);
      assert.deepEqual(committed, ['G3'], 'onCommitted told');
      assert.equal(nope.status === 'rejected' && (nope.reason as Error).name, 'BillNotFoundError');
      // One bill twice in one batch: applied in the order submitted, the second sees the first.
      assert.equal(g2.status === 'fulfilled' && g2.value.becameFinal, true);
      assert.equal(g2again.status === 'fulfilled' && !g2again.value.changed && !g2again.value.becameFinal, true);
      const notices = await store.noticesFor(['G2', 'G3']);
      assert.deepEqual(notices.map((n) => n.billId), ['G2', 'G3'], 'one notice each');
      // Reads by reference asked for together: each its own bill, or null.
      const read = await Promise.all([...ids.map((id) => store.getByReference(refs.get(id)!)), store.getByReference('nobody')]);
      assert.deepEqual(read.map((b) => b?.billId ?? null), [...ids, null]);
      assert.deepEqual(read.slice(0, 4).map((b) => b!.outcome), ['pending', 'paid', 'paid', 'pending']);
      // And by bill id (a failover's reconnecting watchers), a bill asked for twice answered to both.
      const byId = await Promise.all([...ids, 'G2', 'nobody'].map((id) => store.getByBillId(id)));
      assert.deepEqual(byId.map((b) => b?.billId ?? null), [...ids, 'G2', null]);
      assert.deepEqual(byId.map((b) => b?.outcome ?? null), ['pending', 'paid', 'paid', 'pending', 'paid', null]);
    } finally {
      await store.close();
    }
  });

  it('keeps serving the callback path after a newer instance adds a column to bills (a rolling upgrade)', async () => {
    // One connection, so that every call below runs on the statements that connection prepared.
    const upgraded = await cluster.createSchema();
    const running = createPostgresStore(cluster.url, { schema: upgraded, max: 1 });
    try {
      await running.migrate();
      await createdIn(running, 'U1');
      const ref = (await running.getByBillId('U1'))!.merchantReference;
      assert.equal((await running.getByReference(ref))?.billId, 'U1');
      await running.applyStatus({ billId: 'U1', record: statusRecord('U1', 1, T0), outcome: 'pending', checkedAt: T0 + 1 }, ['webhook']);
      // What a later release's migration would do while this instance still runs.
      const raw = new pg.Client({ connectionString: cluster.url, options: `-c search_path=${upgraded}` });
      await raw.connect();
      await raw.query('ALTER TABLE bills ADD COLUMN added_later TEXT');
      await raw.end();
      assert.equal((await running.getByReference(ref))?.billId, 'U1', 'the read by reference');
      const [one, none] = await Promise.all([running.getByReference(ref), running.getByReference('nobody')]);
      assert.deepEqual([one?.billId, none], ['U1', null], 'the reads by reference asked for together');
      assert.equal((await running.getByBillId('U1'))?.merchantReference, ref, 'the read by bill id');
      const [byId, noId] = await Promise.all([running.getByBillId('U1'), running.getByBillId('nobody')]);
      assert.deepEqual([byId?.merchantReference, noId], [ref, null], 'the reads by bill id asked for together');
      await createdIn(running, 'U2');
      await createdIn(running, 'U3');
      const [paid, , paid3] = await Promise.all(['U1', 'U2', 'U3'].map((id) =>
        running.applyStatus({ billId: id, record: statusRecord(id, 2, T0 + 2), outcome: 'paid', checkedAt: T0 + 3 }, ['webhook'])));
      assert.equal(paid?.becameFinal, true, 'the status change');
      assert.equal(paid3?.becameFinal, true, 'the status changes stored together');
    } finally {
      await running.close();
    }
  });

  it('openStore opens postgres:// migrated, and a bad server fails without echoing the password', async () => {
    const store = await openStore(await cluster.createDatabase());
    try {
      assert.equal((await store.insertBill(newBill())).inserted, true);
    } finally {
      await store.close();
    }
    await assert.rejects(openStore('postgres://u:hunter22@127.0.0.1:1/x'), (err: Error) => {
      assert.doesNotMatch(err.message, /hunter22/);
      return true;
    });
  });
});
