// The merchant notice: exactly once per final bill, over a real HTTP receiver and real SQLite,
// time driven by an injected clock and runOnce() instead of timers.

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createLogger } from '../../../../server/log.js';
import { createNoticeWorker, defaultBackoff, noticeChannels, RESPONSE_EXCERPT_BYTES, RETRY_SCHEDULE_MS } from '../../../../server/domain/notify/notice-worker.js';
import { nodeHttpClient } from '../../../../server/platform/node/http-client.js';
import type { NoticeWorkerOptions, WebhookPayload } from '../../../../server/domain/notify/notice-worker.js';
import { verifyWebhook } from '../../../../server/domain/notify/webhook-signature.js';
import { createSqliteStore } from '../../../../server/store/sqlite/store.js';
import type { NoticeChannel, Store } from '../../../../server/store/types.js';
import type { BillView } from '../../../../contract/bill-view.js';
import { createdBill, newBill, statusRecord } from '../../store/store-contract.js';

const T0 = 1_800_000_000_000;
const SECRET_B64 = Buffer.from('a merchant webhook secret, 32 by').toString('base64');
const SECRET = `whsec_${SECRET_B64}`;

const dir = await mkdtemp(join(tmpdir(), 'notify-worker-'));
after(() => rm(dir, { recursive: true, force: true }));
let files = 0;
const tempPath = () => join(dir, `db-${++files}.sqlite`);

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A merchant's webhook endpoint on loopback that answers the given statuses in turn, then 200. */
async function receiver(t: TestContext, statuses: number[] = []) {
  const requests: Received[] = [];
  let arrived: () => void = () => undefined;
  const app = new Hono();
  app.post('/webhooks', async (c) => {
    requests.push({ headers: Object.fromEntries(c.req.raw.headers), body: await c.req.text() });
    arrived();
    const status = statuses.shift() ?? 200;
    return new Response(status === 302 ? null : 'ok', { status, headers: status === 302 ? { location: '/elsewhere' } : {} });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  await once(server, 'listening');
  t.after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    requests,
    next: () => new Promise<void>((resolve) => (arrived = resolve)),
  };
}

async function openStore(t: TestContext, path = tempPath()): Promise<Store> {
  const store = createSqliteStore(path);
  await store.migrate();
  t.after(() => store.close());
  return store;
}

/** A created bill made final by a paid requery, with notices on `channels`. */
async function paidBill(store: Store, channels: NoticeChannel[], at = T0) {
  const bill = newBill({ amount: '10.50' });
  await store.insertBill(bill);
  const billId = `B-${bill.merchantReference}`;
  await store.completeCreate(bill.merchantReference, createdBill(bill.merchantReference, billId), at);
  const result = await store.applyStatus({ billId, record: statusRecord(billId, 2, at), outcome: 'paid', checkedAt: at }, channels);
  return { billId, result, bill };
}

function clock(start = T0) {
  const c = { t: start, now: () => c.t };
  return c;
}

function expectedSignature(r: Received): string {
  const key = Buffer.from(SECRET_B64, 'base64');
  const mac = createHmac('sha256', key).update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`);
  return `v1,${mac.digest('base64')}`;
}

const quiet = (): NoticeWorkerOptions['log'] => createLogger({ write: () => undefined });

describe('notice worker: webhook', () => {
  it('retries a failing receiver with the same webhook-id and valid signatures, then never sends again', async (t) => {
    const store = await openStore(t);
    const hook = await receiver(t, [500, 503]);
    const time = clock(T0 + 10);
    const worker = createNoticeWorker({
      store, webhook: { url: hook.url, secret: SECRET }, now: time.now, log: quiet(),
      backoff: (attempt) => attempt * 1_000,
    });
    const { billId, bill } = await paidBill(store, ['webhook']);

    assert.equal(await worker.runOnce(), 1);
    assert.equal(hook.requests.length, 1);
    assert.equal(await worker.runOnce(), 0, 'not due again before its backoff');
    time.t += 999;
    assert.equal(await worker.runOnce(), 0);
    time.t += 1;
    assert.equal(await worker.runOnce(), 1);
    time.t += 2_000;
    assert.equal(await worker.runOnce(), 1);
    assert.equal(hook.requests.length, 3);

    const stamps = [T0 + 10, T0 + 1_010, T0 + 3_010];
    for (const [i, r] of hook.requests.entries()) {
      assert.equal(r.headers['webhook-id'], `msg_${billId}`);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers['webhook-timestamp'], String(Math.floor(stamps[i]! / 1000)));
      assert.equal(r.headers['webhook-signature'], expectedSignature(r));
      assert.equal(await verifyWebhook({
        secret: SECRET, id: r.headers['webhook-id']!, timestamp: r.headers['webhook-timestamp']!,
        signature: r.headers['webhook-signature']!, body: r.body, now: stamps[i]!,
      }), true);
    }
    assert.equal(new Set(hook.requests.map((r) => r.body)).size, 1, 'the same payload on every retry');

    const payload = JSON.parse(hook.requests[0]!.body) as WebhookPayload;
    assert.equal(payload.type, 'bill.final');
    assert.equal(payload.timestamp, new Date(T0).toISOString());
    assert.equal(payload.data.billId, billId);
    assert.equal(payload.data.outcome, 'paid');
    assert.equal(payload.data.isFinal, true);
    assert.equal(payload.data.billAmount, '10.50');
    assert.doesNotMatch(hook.requests[0]!.body, new RegExp(`${bill.token}|${bill.hookToken}`), 'no capability tokens');

    const [notice] = await store.noticesFor([billId]);
    assert.equal(notice?.deliveredAt, T0 + 3_010);
    assert.equal(notice?.attempts, 3);
    assert.equal(notice?.lastError, 'HTTP 503');
    time.t += 365 * 24 * 3_600_000;
    assert.equal(await worker.runOnce(), 0);
    assert.equal(hook.requests.length, 3);
  });

  it('treats a redirect as a failed delivery and does not follow it', async (t) => {
    const store = await openStore(t);
    const hook = await receiver(t, [302]);
    const time = clock(T0 + 10);
    const worker = createNoticeWorker({ store, webhook: { url: hook.url, secret: SECRET }, now: time.now, log: quiet(), backoff: () => 1 });
    const { billId } = await paidBill(store, ['webhook']);
    await worker.runOnce();
    assert.equal((await store.noticesFor([billId]))[0]?.deliveredAt, null);
    assert.equal(hook.requests.length, 1);
    time.t += 1;
    await worker.runOnce();
    assert.equal((await store.noticesFor([billId]))[0]?.deliveredAt, T0 + 11);
  });

  // Over both HTTP clients: fetch (the default) and nodeHttpClient cutting long answers (main.ts).
  for (const [via, http] of [['fetch', undefined], ['node:http', nodeHttpClient({ maxBytes: 1024, overLimit: 'cut' })]] as const) {
    it(`keeps the first ${RESPONSE_EXCERPT_BYTES} bytes of a merchant's long answer, a character cut in two left out, and counts it delivered (${via})`, async (t) => {
      const store = await openStore(t);
      // 199 ASCII bytes, then a 2-byte character across the cut, then a megabyte more.
      const long = `${'a'.repeat(RESPONSE_EXCERPT_BYTES - 1)}é${'b'.repeat(1024 * 1024)}`;
      const app = new Hono();
      app.post('/long', () => new Response(long, { status: 200 }));
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
      await once(server, 'listening');
      t.after(async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/long`;
      const worker = createNoticeWorker({ store, webhook: { url, secret: SECRET }, now: clock(T0 + 10).now, log: quiet(), ...(http ? { http } : {}) });
      const { billId } = await paidBill(store, ['webhook']);
      assert.equal(await worker.runOnce(), 1);
      const [notice] = await store.noticesFor([billId]);
      assert.equal(notice?.state, 'delivered');
      const [attempt] = await store.noticeAttempts([notice!.id]);
      assert.equal(attempt?.httpStatus, 200);
      assert.equal(attempt?.response, 'a'.repeat(RESPONSE_EXCERPT_BYTES - 1));
    });
  }

  it('gives up on a receiver that does not answer within timeoutMs, and retries later', async (t) => {
    const store = await openStore(t);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    t.after(() => release());
    const app = new Hono();
    app.post('/slow', async () => {
      await held;
      return new Response('late');
    });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await once(server, 'listening');
    t.after(async () => {
      release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
    const time = clock(T0 + 10);
    const worker = createNoticeWorker({ store, webhook: { url, secret: SECRET }, now: time.now, log: quiet(), timeoutMs: 100, backoff: () => 5_000 });
    const { billId } = await paidBill(store, ['webhook']);
    assert.equal(await worker.runOnce(), 1);
    const [notice] = await store.noticesFor([billId]);
    assert.equal(notice?.deliveredAt, null);
    assert.match(notice?.lastError ?? '', /TimeoutError|abort/i);
    assert.equal(notice?.nextAttemptAt, T0 + 5_010);
  });
});

describe('notice worker: exactly once', () => {
  it('three duplicate final statuses give one onFinal call and one webhook', async (t) => {
    const store = await openStore(t);
    const hook = await receiver(t);
    const time = clock(T0 + 10);
    const finals: BillView[] = [];
    const options = { onFinal: (view: BillView) => void finals.push(view), webhook: { url: hook.url, secret: SECRET } };
    const channels = noticeChannels(options);
    assert.deepEqual(channels, ['hook', 'webhook']);
    const worker = createNoticeWorker({ store, ...options, now: time.now, log: quiet() });

    const { billId } = await paidBill(store, channels);
    for (let i = 0; i < 2; i++) {
      const again = await store.applyStatus({ billId, record: statusRecord(billId, 2, T0 + i), outcome: 'paid', checkedAt: T0 + i }, channels);
      assert.equal(again.becameFinal, false);
    }
    for (let i = 0; i < 4; i++) {
      await worker.runOnce();
      time.t += 120_000;
    }
    assert.equal(finals.length, 1);
    assert.equal(finals[0]?.billId, billId);
    assert.equal(finals[0]?.outcome, 'paid');
    assert.equal(hook.requests.length, 1);
  });

  it('retries an onFinal hook that throws, then stops', async (t) => {
    const store = await openStore(t);
    const time = clock(T0 + 10);
    const calls: number[] = [];
    const worker = createNoticeWorker({
      store, webhook: null, now: time.now, log: quiet(), backoff: () => 1_000,
      onFinal: async () => {
        calls.push(time.t);
        if (calls.length === 1) throw new Error('merchant code broke');
      },
    });
    const { billId } = await paidBill(store, ['hook']);
    await worker.runOnce();
    time.t += 1_000;
    await worker.runOnce();
    time.t += 60_000;
    await worker.runOnce();
    assert.deepEqual(calls, [T0 + 10, T0 + 1_010]);
    const [notice] = await store.noticesFor([billId]);
    assert.equal(notice?.channel, 'hook');
    assert.equal(notice?.deliveredAt, T0 + 1_010);
    assert.equal(notice?.lastError, 'Error: merchant code broke');
  });

  it('gives up on an onFinal hook still running after timeoutMs, aborts its signal, and calls it again later', async (t) => {
    const store = await openStore(t);
    const time = clock(T0 + 10);
    const signals: AbortSignal[] = [];
    const worker = createNoticeWorker({
      store, webhook: null, now: time.now, log: quiet(), timeoutMs: 30, backoff: () => 1_000,
      onFinal: (_view, { signal }) => {
        signals.push(signal);
        // The first call hangs (a merchant's hook waiting on something that never comes).
        return signals.length === 1 ? new Promise<void>(() => undefined) : undefined;
      },
    });
    const { billId } = await paidBill(store, ['hook']);
    assert.equal(await worker.runOnce(), 1);
    const [failed] = await store.noticesFor([billId]);
    assert.equal(failed?.deliveredAt, null);
    assert.match(failed?.lastError ?? '', /onFinal did not finish within 30 ms/);
    assert.equal(signals[0]?.aborted, true);
    time.t += 1_000;
    await worker.runOnce();
    assert.equal(signals.length, 2);
    assert.equal(signals[1]?.aborted, false);
    assert.equal((await store.noticesFor([billId]))[0]?.deliveredAt, T0 + 1_010);
  });

  it('after a crash mid-delivery, a new worker on the reopened store delivers once the lease ends', async (t) => {
    const path = tempPath();
    const hook = await receiver(t);
    const time = clock(T0 + 10);

    const first = createSqliteStore(path);
    await first.migrate();
    const { billId } = await paidBill(first, ['webhook']);
    let tried: (id: string) => void = () => undefined;
    const triedId = new Promise<string>((resolve) => (tried = resolve));
    const crashing = createNoticeWorker({
      store: first, webhook: { url: hook.url, secret: SECRET }, now: time.now, log: quiet(), leaseMs: 60_000,
      // The process dies while the POST is in flight: it never answers.
      fetch: async (_url, init) => {
        tried(new Headers(init?.headers).get('webhook-id') ?? '');
        return new Promise<Response>(() => undefined);
      },
    });
    void crashing.runOnce();
    assert.equal(await triedId, `msg_${billId}`);
    await first.close();

    const second = await openStore(t, path);
    const worker = createNoticeWorker({ store: second, webhook: { url: hook.url, secret: SECRET }, now: time.now, log: quiet(), leaseMs: 60_000 });
    time.t += 59_999;
    assert.equal(await worker.runOnce(), 0, 'still leased by the crashed worker');
    time.t += 1;
    assert.equal(await worker.runOnce(), 1);
    assert.equal(hook.requests.length, 1);
    assert.equal(hook.requests[0]?.headers['webhook-id'], `msg_${billId}`);
    time.t += 3_600_000;
    assert.equal(await worker.runOnce(), 0);
    assert.equal(hook.requests.length, 1);
    assert.equal((await second.noticesFor([billId]))[0]?.attempts, 2);
  });
});

describe('notice worker: logs and timers', () => {
  it('never logs the webhook secret, even with no masking configured', async (t) => {
    const store = await openStore(t);
    const hook = await receiver(t, [500]);
    const lines: string[] = [];
    const time = clock(T0 + 10);
    const worker = createNoticeWorker({
      store, webhook: { url: hook.url, secret: SECRET }, now: time.now, backoff: () => 1,
      log: createLogger({ write: (line) => lines.push(line), level: 'debug' }),
    });
    const { billId } = await paidBill(store, ['webhook']);
    await worker.runOnce();
    time.t += 1;
    await worker.runOnce();
    assert.ok(lines.some((l) => l.includes('merchant notice failed')));
    assert.ok(lines.some((l) => l.includes('merchant notice delivered')));
    const stored = JSON.stringify(await store.noticesFor([billId]));
    for (const text of [...lines, stored]) {
      assert.ok(!text.includes(SECRET_B64), 'secret in a log line or stored error');
      assert.ok(!text.includes('whsec_'));
    }
  });

  it('start() delivers, kick() runs a pass soon, stop() waits for the pass in flight', async (t) => {
    const store = await openStore(t);
    const time = clock(T0 + 10);
    let entered: () => void = () => undefined;
    let release: () => void = () => undefined;
    const calls: string[] = [];
    const worker = createNoticeWorker({
      store, webhook: null, now: time.now, log: quiet(), pollIntervalMs: 3_600_000,
      onFinal: async (view) => {
        calls.push(view.billId);
        entered();
        await new Promise<void>((resolve) => (release = resolve));
      },
    });
    t.after(() => worker.stop());
    const first = await paidBill(store, ['hook']);
    const inFirst = new Promise<void>((resolve) => (entered = resolve));
    worker.start();
    await inFirst;
    release();

    const second = await paidBill(store, ['hook']);
    const inSecond = new Promise<void>((resolve) => (entered = resolve));
    worker.kick();
    await inSecond;
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await Promise.resolve();
    assert.equal(stopped, false, 'stop waits for the delivery in flight');
    release();
    await stopping;
    assert.deepEqual(calls, [first.billId, second.billId]);
    assert.ok((await store.noticesFor([second.billId]))[0]?.deliveredAt);
  });
});

describe('notice worker: helpers', () => {
  it('noticeChannels lists the enabled channels', () => {
    assert.deepEqual(noticeChannels({ webhook: null }), []);
    assert.deepEqual(noticeChannels({ onFinal: () => undefined, webhook: null }), ['hook']);
    assert.deepEqual(noticeChannels({ webhook: { url: 'https://m.example/h', secret: SECRET } }), ['webhook']);
  });

  it('the default schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 24 h, 24 h, each within ±20 %, then none', () => {
    const low = defaultBackoff(() => 0);
    const mid = defaultBackoff(() => 0.5);
    const high = defaultBackoff(() => 0.999_999);
    const hour = 3_600_000;
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map(mid), [5_000, 300_000, 1_800_000, 2 * hour, 5 * hour, 10 * hour, 10 * hour, 24 * hour, 24 * hour]);
    assert.deepEqual([1, 2].map(low), [4_000, 240_000]);
    assert.deepEqual([1, 2].map(high), [6_000, 360_000]);
    assert.equal(mid(10), null, 'ten tries, then the notice is failed');
    const total = RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    assert.ok(total > 3 * 24 * hour && total < 3.5 * 24 * hour, 'about three days');
  });
});
