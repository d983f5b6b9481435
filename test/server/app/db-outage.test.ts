// PostgreSQL stopped under a running BFF (server/main.ts on a throwaway cluster, the sandbox over
// real HTTP): reads of bills the process has seen answer from its memory, everything else 503
// with Retry-After, nothing 500; once PostgreSQL is back, every payment made meanwhile is found
// and the merchant is notified of each exactly once. No sleeps: every wait is for an event or a
// condition, under a generous deadline. Then which driver errors are such outages (both stores).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { BillView, CreatedBillView } from '../../../contract/bill-view.js';
import { StoreUnavailableError } from '../../../server/store/errors.js';
import { pgUnavailable } from '../../../server/store/postgres/store.js';
import { createSqliteStore, sqliteUnavailable } from '../../../server/store/sqlite/store.js';
import { openSqlite } from '../../../server/store/sqlite/driver.js';
import { startFleet } from '../support/pg-fleet.js';
import type { Fleet } from '../support/pg-fleet.js';
import { readSse } from '../support/sse.js';

const DEADLINE_MS = 30_000;
const JSON_TYPE = { 'Content-Type': 'application/json' };

/** Resolves once `check` answers true, asking again after each turn of the event loop's timers. */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = performance.now() + DEADLINE_MS;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

interface Answer {
  what: string;
  status: number;
  retryAfter: string | null;
  code: string | null;
  body: string;
}

describe('PostgreSQL stopped under a running BFF', () => {
  let fleet: Fleet;
  let base: string;
  /** Every answer the BFF gave while PostgreSQL was down: the test's own requests and the service's callbacks. */
  const duringOutage: Answer[] = [];
  /** The service's callback attempts, by callback URL: the answers the BFF gave. */
  const callbackAnswers = new Map<string, number[]>();
  /** Callbacks of these bills are lost on their way (the service believes them delivered). */
  const lostCallbacks = new Set<string>();
  let down = false;
  let backUp!: () => void;
  const isBack = new Promise<void>((resolve) => (backUp = resolve));

  // The service's callbacks go through here: while PostgreSQL is down, the first attempt of each
  // reaches the BFF (which must answer 503), and the sandbox's retries wait until it is back, so
  // that a retry, not the clock, carries the payment once the database answers again.
  const callbackFetch: typeof fetch = async (input, init) => {
    const url = String(input);
    const body = JSON.parse(String(init?.body ?? '{}')) as { billId?: string };
    if (body.billId !== undefined && lostCallbacks.has(body.billId)) return new Response('lost', { status: 200 });
    const tries = callbackAnswers.get(url) ?? [];
    callbackAnswers.set(url, tries);
    if (down && tries.length > 0) await isBack;
    const wasDown = down;
    const res = await fetch(input, init);
    tries.push(res.status);
    if (wasDown) duringOutage.push({ what: `callback ${body.billId}`, status: res.status, retryAfter: null, code: null, body: '' });
    return res;
  };

  before(async () => {
    fleet = await startFleet({
      instances: 1,
      // 0: no cached bill is fresh, so every read during the outage asks the store first and
      // falls back to what the process last saw. The reconciler stays out of the way: callbacks and
      // polls find the payments.
      env: { REFRESH_WINDOW_MS: '0', RECONCILE_INTERVAL_MS: '3600000' },
      sandbox: { fetch: callbackFetch },
    });
    base = fleet.instances[0]!.url;
  });
  after(async () => {
    backUp();
    await fleet?.stop();
  });

  async function call(what: string, path: string, init: RequestInit = {}): Promise<Answer> {
    const res = await fetch(`${base}${path}`, init);
    const body = await res.text();
    let code: string | null = null;
    try {
      code = (JSON.parse(body) as { error?: { code?: string } }).error?.code ?? null;
    } catch {
      // Not JSON.
    }
    const answer = { what, status: res.status, retryAfter: res.headers.get('retry-after'), code, body };
    if (down) duringOutage.push(answer);
    return answer;
  }
  const create = (headers: Record<string, string> = {}) =>
    call('create', '/api/bills', { method: 'POST', headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify({ amount: '12.50' }) });
  const read = (bill: { billId: string; token: string }, token = bill.token) =>
    call(`read ${bill.billId}`, `/api/bills/${bill.billId}?token=${encodeURIComponent(token)}`);
  const view = (answer: Answer) => JSON.parse(answer.body) as BillView;

  it('reads of known bills answer from memory, the rest and creates 503 with Retry-After, nothing 500; then every payment is found and notified once', async () => {
    // Bills read before the outage (this process knows them) and bills it never read.
    const known: CreatedBillView[] = [];
    const unread: CreatedBillView[] = [];
    for (let i = 0; i < 8; i++) {
      const made = await create();
      assert.equal(made.status, 201, made.body);
      (i < 6 ? known : unread).push(JSON.parse(made.body) as CreatedBillView);
    }
    // A read answers what is known at once and requeries behind it (the window is 0): read each
    // bill until it shows the status its requery stored. A requery may still be in flight when
    // the store goes away; the bill is still answered as last seen.
    const before = new Map<string, BillView>();
    for (const bill of known) {
      await until(`${bill.billId} requeried`, async () => {
        const answer = await read(bill);
        assert.equal(answer.status, 200, answer.body);
        assert.equal(view(answer).outcome, 'pending');
        before.set(bill.billId, view(answer));
        return view(answer).status !== null;
      });
    }
    assert.equal((await call('healthz', '/healthz')).status, 200);

    // The outage. `fast` ends every session with 57P01 and refuses new connections.
    await fleet.pg.halt('fast');
    down = true;

    const health = await call('healthz', '/healthz');
    assert.equal(health.status, 503);
    assert.equal(health.code, 'store_unavailable');

    for (const bill of known) {
      const answer = await read(bill);
      assert.equal(answer.status, 200, `${answer.what}: ${answer.body}`);
      assert.deepEqual(view(answer), before.get(bill.billId), `${answer.what}: the view last seen`);
    }
    // The token is still checked against the bill last seen.
    const forged = await read(known[0]!, 'A'.repeat(43));
    assert.equal(forged.status, 404, forged.body);
    // A stream of a known bill opens on the bill last seen.
    const stream = await fetch(`${base}/api/bills/${known[1]!.billId}/events?token=${known[1]!.token}`);
    duringOutage.push({ what: 'events', status: stream.status, retryAfter: null, code: null, body: '' });
    assert.equal(stream.status, 200);
    const sse = readSse(stream);
    assert.deepEqual(await sse.next(), before.get(known[1]!.billId));
    await sse.cancel();

    // What this process never read, or that does not exist, it cannot tell: 503, try again.
    for (const answer of [
      await read(unread[0]!),
      await call('read unknown id', `/api/bills/no-such-bill?token=${'A'.repeat(43)}`),
      await create(),
      await create({ 'Idempotency-Key': 'outage-create-1' }),
    ]) {
      assert.equal(answer.status, 503, `${answer.what}: ${answer.body}`);
      assert.equal(answer.code, 'store_unavailable', answer.what);
      assert.equal(answer.retryAfter, '5', `${answer.what}: Retry-After`);
      // The driver's error (host, port, what the operator should do) stays in the log.
      assert.doesNotMatch(answer.body, /ECONNREFUSED|57P01|127\.0\.0\.1|postgres/i, answer.what);
    }

    // A customer back from paying gets a page that tries again by itself, not JSON.
    const back = await call('return', `/api/hooks/return/${known[0]!.merchantReference}/${'A'.repeat(43)}`);
    assert.equal(back.status, 503, back.body);
    assert.equal(back.retryAfter, '5');
    assert.match(back.body, /^<!doctype html>.*http-equiv="refresh" content="5"/s);

    // Payments while the database is down: callbacks answered 503 (the service retries); one
    // callback is lost on its way and must be found without it.
    const paid = [known[0]!, known[1]!, known[2]!, known[3]!, unread[0]!];
    lostCallbacks.add(known[3]!.billId);
    for (const bill of paid) fleet.sandbox.pay(bill.billId);
    const delivered = () => [...callbackAnswers.values()].filter((tries) => tries.length > 0).length;
    await until('a first callback attempt of each payment (not the lost one)', () => delivered() === paid.length - 1);
    for (const tries of callbackAnswers.values()) assert.deepEqual(tries, [503], 'a callback while the store is down');
    // Known bills still read as last seen (pending): nothing is stored while the store is down.
    for (const bill of known) assert.equal(view(await read(bill)).outcome, 'pending');

    assert.deepEqual(duringOutage.filter((a) => a.status >= 500 && a.status !== 503), [], 'no 500 (nor any other 5xx than 503)');
    assert.ok(duringOutage.length >= 20, `${duringOutage.length} answers during the outage`);

    // PostgreSQL back: the sandbox's held retries go through.
    await fleet.pg.resume();
    down = false;
    backUp();
    await until('/healthz answers 200', async () => (await call('healthz', '/healthz')).status === 200);

    // Every payment is found: by its callback's retry, or (the lost one) by a read's requery.
    for (const bill of paid) {
      await until(`${bill.billId} reads paid`, async () => {
        const answer = await read(bill);
        assert.equal(answer.status, 200, answer.body);
        return view(answer).outcome === 'paid';
      });
    }
    for (const bill of [known[4]!, known[5]!, unread[1]!]) assert.equal(view(await read(bill)).outcome, 'pending');
    for (const [url, tries] of callbackAnswers) assert.equal(tries.at(-1), 200, `${url}: ${tries.join(', ')}`);
    const create201 = await create();
    assert.equal(create201.status, 201, create201.body);

    // Each payment is told to the merchant once: every notice delivered (so none is sent again),
    // the service done with its callbacks, one webhook each.
    const paidIds = new Set(paid.map((b) => b.billId));
    await fleet.deliveriesUntil((d) => paidIds.size === new Set(d.map((x) => x.billId).filter((id) => paidIds.has(id))).size);
    await fleet.sandbox.idle();
    const db = new pg.Client(fleet.databaseUrl);
    await db.connect();
    try {
      await until('every notice delivered', async () => {
        const { rows } = await db.query<{ n: string }>(`SELECT COUNT(*) AS n FROM notices WHERE state <> 'delivered'`);
        return Number(rows[0]!.n) === 0;
      });
      const { rows } = await db.query<{ bill_id: string; channel: string; state: string }>('SELECT bill_id, channel, state FROM notices ORDER BY bill_id');
      assert.deepEqual(rows.map((r) => r.bill_id).sort(), [...paidIds].sort(), 'one notice per paid bill');
    } finally {
      await db.end();
    }
    const perBill = new Map<string, number>();
    for (const d of fleet.deliveries) perBill.set(d.billId, (perBill.get(d.billId) ?? 0) + 1);
    assert.deepEqual(Object.fromEntries(perBill), Object.fromEntries([...paidIds].map((id) => [id, 1])), 'one webhook per payment');

    const child = fleet.instances[0]!.child;
    assert.equal(child.process.exitCode, null, 'the BFF kept running');
    assert.doesNotMatch(child.output(), /"unhandled error"/, 'nothing was answered 500');
    // The operator is told what happened and what to check, from the store's classification.
    assert.match(child.output(), /PostgreSQL refused the connection \(ECONNREFUSED\)|The connection to PostgreSQL was cut|57P01/);
  });
});

describe('store failures that are outages, and those that are not', () => {
  const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

  it('PostgreSQL: refused, cut, timed out, shut down or restarting connections are StoreUnavailableError with a fix', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', syscall: 'connect' });
    const cases: [unknown, RegExp][] = [
      [refused, /refused the connection \(ECONNREFUSED\).*start it, or fix DATABASE_URL/],
      // Node tries every address of a host name and reports them together.
      [Object.assign(new AggregateError([refused, refused]), { code: 'ECONNREFUSED' }), /refused the connection/],
      [Object.assign(new Error('connect ENOENT /run/postgresql/.s.PGSQL.5432'), { code: 'ENOENT', syscall: 'connect' }), /refused the connection/],
      [Object.assign(new Error('getaddrinfo ENOTFOUND db'), { code: 'ENOTFOUND' }), /host cannot be reached.*DNS/],
      [new Error('timeout exceeded when trying to connect'), /did not answer in time.*pool/],
      [new Error('Connection terminated due to connection timeout', { cause: new Error('Connection terminated unexpectedly') }), /did not answer in time/],
      [new Error('Connection terminated unexpectedly'), /was cut.*server's log/],
      [Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), /was cut/],
      [pgError('57P01', 'terminating connection due to administrator command'), /57P01 admin_shutdown/],
      [pgError('57P02'), /57P02 crash_shutdown/],
      [pgError('57P03', 'the database system is starting up'), /57P03 cannot_connect_now/],
      [pgError('08006'), /SQLSTATE 08006/],
      [pgError('53300'), /53300 too_many_connections.*max_connections/],
    ];
    for (const [error, fix] of cases) {
      const classified = pgUnavailable(error);
      assert.ok(classified instanceof StoreUnavailableError, String(error));
      assert.match(classified.message, fix);
      assert.equal(classified.cause, error);
    }
    // A query's own failure, or a configuration one, is not an outage: no 503 hides it.
    for (const error of [pgError('23505'), pgError('42P01'), pgError('28P01'), pgError('40P01'), new Error('boom'), null, 'text']) {
      assert.equal(pgUnavailable(error), null, String(error));
    }
  });

  it('SQLite: a file locked past busy_timeout is a StoreUnavailableError; a closed store too; other errors are not', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'db-outage-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'store.sqlite');
    const store = createSqliteStore(path, { busyTimeoutMs: 20, checkpointIntervalMs: 0 });
    await store.migrate();
    const bill = (n: number) => ({
      merchantReference: `ref-${n}`, orderId: null, idempotencyKey: null, amount: '1.00', orderAmount: null, orderCurrency: null,
      token: `tok-${n}`, hookToken: `hook-${n}`, createdAt: 1,
    });
    // Another process holds the write lock.
    const other = openSqlite(path);
    other.exec('BEGIN IMMEDIATE');
    await assert.rejects(store.insertBill(bill(1)), (e: Error) =>
      e instanceof StoreUnavailableError && /locked by another connection longer than busy_timeout \(20 ms, SQLITE_BUSY\)/.test(e.message));
    other.exec('ROLLBACK');
    other.close();
    assert.equal((await store.insertBill(bill(1))).inserted, true);
    // A constraint is the caller's business, not an outage.
    await assert.rejects(store.insertBill({ ...bill(2), merchantReference: 'ref-1' }), (e: Error) => !(e instanceof StoreUnavailableError));
    assert.equal(sqliteUnavailable(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }))?.message.includes('failed a read or a write'), true);
    assert.equal(sqliteUnavailable(Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT_UNIQUE' })), null);
    await store.close();
    await assert.rejects(store.getByBillId('B1'), (e: Error) => e instanceof StoreUnavailableError && /shutting down/.test(e.message));
  });
});
