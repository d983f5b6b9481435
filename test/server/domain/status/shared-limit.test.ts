// BILL_API_SHARED_MAX_RPS: the service's limit divided among the instances alive on one PostgreSQL.
// First the beat alone (a fake interval), then two and three apps on one throwaway cluster with a
// short beat: each budget's rate follows the live instances, after a clean stop and after a death.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createBillCheckout } from '../../../../server/app.js';
import type { BillCheckout } from '../../../../server/app.js';
import { loadConfig } from '../../../../server/config.js';
import { createSharedLimit } from '../../../../server/domain/status/shared-limit.js';
import { createLogger } from '../../../../server/log.js';
import { nodeHmacSha256 } from '../../../../server/platform/node/hmac.js';
import { createPostgresStore } from '../../../../server/store/postgres/store.js';
import type { Store } from '../../../../server/store/types.js';
import type { Budget } from '../../../../server/upstream/budget.js';
import { createBillApi, loadSigner } from '../../../../server/upstream/index.js';
import { startPg } from '../../support/pg.js';
import type { PgCluster } from '../../support/pg.js';

describe('the beat (createSharedLimit)', () => {
  it('sets limit ÷ live after each beat, keeps the last share while beats fail (told once), and leaves on stop', async () => {
    const counts: (number | Error)[] = [1, 2, new Error('db down'), new Error('db down'), 3];
    const shares: number[] = [];
    const errors: unknown[] = [];
    const withins: number[] = [];
    let tick: (() => void) | null = null;
    let left = 0;
    const limit = createSharedLimit({
      limit: 300,
      intervalMs: 100,
      beat: async (withinMs) => {
        withins.push(withinMs);
        const next = counts.shift()!;
        if (next instanceof Error) throw next;
        return next;
      },
      leave: async () => {
        left += 1;
      },
      setMaxRps: (rps) => shares.push(rps),
      onError: (error) => errors.push(error),
      setInterval: (callback) => {
        tick = callback;
        return 1;
      },
      clearInterval: () => {
        tick = null;
      },
    });
    assert.equal(limit.live(), null);
    await limit.first();
    assert.equal(limit.live(), 1);
    limit.start();
    const beat = async () => {
      tick!();
      await new Promise((resolve) => setImmediate(resolve));
    };
    for (let i = 0; i < 4; i++) await beat();
    assert.deepEqual(shares, [300, 150, 100]);
    assert.equal(limit.live(), 3);
    assert.equal(errors.length, 1, 'one warning per run of failures');
    assert.deepEqual(new Set(withins), new Set([300]), 'alive: seen within three beats');
    await limit.stop();
    assert.equal(tick, null);
    assert.equal(left, 1);
  });
});

describe('the default beat', () => {
  it('beats every 0.5 s (a survivor takes a dead share before news queues) and counts out after 6 s (a live stall is no death)', async () => {
    let every = 0;
    const withins: number[] = [];
    const limit = createSharedLimit({
      limit: 300,
      beat: async (withinMs) => {
        withins.push(withinMs);
        return 1;
      },
      leave: async () => undefined,
      setMaxRps: () => undefined,
      setInterval: (_callback, ms) => {
        every = ms;
        return 1;
      },
      clearInterval: () => undefined,
    });
    limit.start();
    await limit.first();
    assert.equal(every, 500);
    assert.deepEqual(withins, [6_000]);
    await limit.stop();
  });
});

describe('BILL_API_SHARED_MAX_RPS on PostgreSQL: each budget follows the live instances', () => {
  const BEAT_MS = 100;
  let cluster: PgCluster;
  const running: { app: BillCheckout; store: Store }[] = [];
  after(async () => {
    for (const { app, store } of running) {
      await app.stop().catch(() => undefined);
      await store.close().catch(() => undefined);
    }
    await cluster?.stop();
  });

  /** An app as serve.ts builds it, on `schema`; `dies`: its stop leaves its row behind, as a SIGKILL does. */
  async function instance(schema: string, options: { dies?: boolean } = {}) {
    const config = loadConfig({
      DATABASE_URL: cluster.url, BILL_API_SHARED_MAX_RPS: '100', RECONCILE_INTERVAL_MS: '3600000', STATUS_SWEEP_MS: '0',
    });
    const pgStore = createPostgresStore(cluster.url, { schema });
    await pgStore.migrate();
    const store: Store = options.dies
      ? { ...pgStore, events: { ...pgStore.events!, instanceLeave: async () => undefined } }
      : pgStore;
    const signer = await loadSigner(config.upstream.signer, (p) => import(p), nodeHmacSha256,
      { privateKeyPem: null, partnerId: null, channelId: null, tokenPath: null });
    const upstream = createBillApi(config.upstream, { signer, pageBase: config.pageBase });
    const app = createBillCheckout({ config, upstream, store, log: createLogger({ write: () => undefined }), instanceBeatMs: BEAT_MS });
    running.push({ app, store: pgStore });
    return { app, budget: upstream.budget!, store: pgStore };
  }

  /** Resolves once the budget grants `rps`; fails after `withinMs` with what it grants. */
  async function rateBecomes(budget: Budget, rps: number, withinMs = 5_000): Promise<number> {
    const started = performance.now();
    for (;;) {
      if (budget.state().rps === rps) return performance.now() - started;
      if (performance.now() - started > withinMs) assert.fail(`the budget grants ${budget.state().rps}/s, not ${rps}/s, after ${withinMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, BEAT_MS / 5));
    }
  }

  it('alone: the whole limit once counted; two: 50 each; one dies: the other 100 within a few beats; a clean stop: at its next beat', async () => {
    cluster = await startPg();
    const schema = await cluster.createSchema();
    const a = await instance(schema);
    assert.equal(a.budget.state().rps, 50, 'before the first count: half the limit');
    await a.app.ready();
    assert.equal(a.budget.state().rps, 100, 'counted before it serves: alone');
    a.app.start();

    const b = await instance(schema, { dies: true });
    await b.app.ready();
    assert.equal(b.budget.state().rps, 50, 'counted itself and the one beside it');
    b.app.start();
    await rateBecomes(a.budget, 50);
    assert.match(await a.app.metrics.registry.metrics(), /bill_checkout_upstream_instances 2/);

    // b stops beating and leaves its row behind (a kill): a counts it out after three beats.
    await b.app.stop();
    const afterDeath = await rateBecomes(a.budget, 100);
    assert.ok(afterDeath < 20 * BEAT_MS, `${Math.round(afterDeath)} ms after the death`);

    const c = await instance(schema);
    await c.app.ready();
    c.app.start();
    assert.equal(c.budget.state().rps, 50);
    await rateBecomes(a.budget, 50);
    // A clean stop removes c's row: a takes the whole limit at its next beat.
    await c.app.stop();
    const afterStop = await rateBecomes(a.budget, 100);
    assert.ok(afterStop < 10 * BEAT_MS, `${Math.round(afterStop)} ms after the clean stop`);
    assert.match(await a.app.metrics.registry.metrics(), /bill_checkout_upstream_instances 1/);
  });

  it("an instance whose LISTEN session is gone (a killed process's) is counted out at the next beat, however fresh its row", async () => {
    const schema = await cluster.createSchema();
    const a = createPostgresStore(cluster.url, { schema });
    await a.migrate();
    const b = createPostgresStore(cluster.url, { schema });
    after(() => Promise.all([a.close(), b.close()]));
    // Within a minute: no row ages out during the test, only a session may end.
    const ALIVE_MS = 60_000;
    const unlisten = await b.events!.listen('bc_test_alive', () => undefined);
    await b.events!.instanceBeat!(ALIVE_MS);
    assert.equal(await a.events!.instanceBeat!(ALIVE_MS), 2, 'b beat with its session open');
    // b's session ends, as PostgreSQL ends a killed process's the moment its socket closes; b's row stays.
    await unlisten();
    let live = 2;
    for (let beat = 0; beat < 200 && live === 2; beat++) live = await a.events!.instanceBeat!(ALIVE_MS);
    assert.equal(live, 1, "b is counted out once PostgreSQL has ended its session, not three beats later");
  });
});
