// The crash run: the faults run against server/main.ts in its own process, killed with SIGKILL at
// random moments and restarted on the same port and database. The same must hold afterwards.
import type { TestContext } from 'node:test';
import { createBillApi, loadSigner } from '../../server/upstream/index.js';
import { loadConfig } from '../../server/config.js';
import { outcomeOf } from '../../server/domain/status/outcome.js';
import { openStore } from '../../server/store/open-store.js';
import type { CreatedBillView, Outcome } from '../../contract/bill-view.js';
import { seeded } from '../sandbox/support/harness.js';
import type { Fate } from './faults.js';
import { CHILD_KEY, CHILD_SECRET, startChildWorld } from './support/child-world.js';
import { eachLimited, within } from './support/figures.js';
import { noticeProblems, startMerchant, WEBHOOK_SECRET } from './support/merchant.js';
import { createRecorder, findLeaks } from './support/record.js';
import { createWatcher, wrongViews } from './support/watchers.js';

const FATE_OUTCOME: Record<Fate, Outcome> = { pay: 'paid', decline: 'failed', cancel: 'cancelled', expire: 'expired' };

export interface CrashRunOptions {
  bills: number;
  kills: number;
  seed: number;
  /** The BFF's database (default: a SQLite file of the run), e.g. a throwaway PostgreSQL's. */
  databaseUrl?: string;
}

export interface CrashFigures {
  bills: number;
  kills: number;
  callbacksToDeadBff: number;
  callbacksDropped: number;
  webhookRedeliveries: number;
  wrongOutcomes: string[];
  noticesLost: string[];
  noticesDuplicated: string[];
  wrongViews: string[];
  leaks: string[];
}

export async function runCrashScenario(t: TestContext, o: CrashRunOptions): Promise<CrashFigures> {
  const rand = seeded(o.seed);
  let offset = 0;
  const merchant = await startMerchant(t);
  const recorder = createRecorder();
  const world = await startChildWorld(t, {
    BILL_API_TIMEOUT_MS: '1000',
    BILL_API_RETRIES: '1',
    CREATE_RATE_LIMIT_PER_MINUTE: '1000000',
    MAX_SSE_PER_CLIENT: '100000',
    MERCHANT_WEBHOOK_URL: merchant.url,
    MERCHANT_WEBHOOK_SECRET: WEBHOOK_SECRET,
    NOTICE_LEASE_MS: '1000',
    RECONCILE_INTERVAL_MS: '300',
    REFRESH_WINDOW_MS: '200',
    ...(o.databaseUrl ? { DATABASE_URL: o.databaseUrl } : {}),
  }, { now: () => Date.now() + offset, random: seeded(o.seed + 1), callbackRetryDelayMs: 150 });
  const { base, sandbox, env } = world;
  let kills = 0;
  const crash = async () => {
    await world.restart();
    kills++;
  };

  const bills: CreatedBillView[] = [];
  await eachLimited(Array.from({ length: o.bills }), 4, async () => {
    const res = await recorder.fetch(`${base}/api/bills`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ amount: `${1 + Math.floor(rand() * 400)}.25` }),
    });
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
    bills.push((await res.json()) as CreatedBillView);
  });
  const fates = new Map<string, Fate>();
  for (const b of bills) {
    const r = rand();
    fates.set(b.billId, r < 0.35 ? 'pay' : r < 0.55 ? 'decline' : r < 0.75 ? 'cancel' : 'expire');
  }
  const watchers = bills.map((b, i) => createWatcher(base, b, i % 2 === 0 ? 'sse' : 'poll', recorder.fetch));
  t.after(() => Promise.all(watchers.map((w) => w.stop())));
  const pollAll = () => eachLimited(watchers, 16, (w) => w.poll());

  sandbox.setFaults({
    errorRate: { requery: 0.15 }, timeoutRate: { requery: 0.15 }, hangMs: 25,
    callbackDropRate: 0.2, callbackDuplicateRate: 0.25, callbackDelayMs: [0, 200], callbackReorderWindowMs: 15,
  });

  const acting = bills.filter((b) => fates.get(b.billId) !== 'expire');
  const rounds = Math.ceil(acting.length / 10);
  const killAt = new Map<number, number>();
  for (let k = 0; k < o.kills; k++) {
    const round = Math.floor(((k + rand()) * rounds) / o.kills);
    killAt.set(round, (killAt.get(round) ?? 0) + 1);
  }
  const cancels: CreatedBillView[] = [];
  const cancel = async (b: CreatedBillView) => {
    try {
      const res = await recorder.fetch(`${base}/api/bills/${b.billId}/cancel?token=${encodeURIComponent(b.token)}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
      await res.text();
      if (res.status !== 200 && res.status !== 409) cancels.push(b);
    } catch {
      cancels.push(b); // The BFF was down: the customer presses cancel again.
    }
  };
  for (let r = 0; r < rounds; r++) {
    const chunk = acting.slice(r * 10, r * 10 + 10);
    const acts = Promise.all(chunk.map((b) => {
      const fate = fates.get(b.billId);
      if (fate === 'pay') sandbox.pay(b.billId);
      else if (fate === 'decline') sandbox.decline(b.billId);
      else return cancel(b);
      return undefined;
    }));
    // Killed while cancels, callbacks and notices are in flight.
    for (let k = killAt.get(r) ?? 0; k > 0; k--) await crash();
    await acts;
    await pollAll();
  }
  while (cancels.length > 0) await cancel(cancels.shift()!);

  offset += 16 * 60_000;
  sandbox.sweep();
  await within(merchant.until(bills.length), 90_000, 'not every bill was notified');
  await sandbox.idle();
  await pollAll();
  await within(Promise.all(watchers.map((w) => w.closed())), 15_000, 'SSE streams still open');
  await world.child.kill('SIGTERM');

  const stats = sandbox.stats();
  sandbox.resetFaults();
  const config = loadConfig(env);
  const upstream = createBillApi(config.upstream, { signer: await loadSigner(config.upstream.signer, (p) => import(p)), pageBase: 1 });
  const store = await openStore(config.databaseUrl);
  const wrongOutcomes: string[] = [];
  const wrong: string[] = [];
  const finals: string[] = [];
  try {
    for (const b of bills) {
      const record = await upstream.requeryBill(b.billId);
      const truth = outcomeOf(record, config.statuses);
      const stored = await store.getByBillId(b.billId);
      if (truth !== FATE_OUTCOME[fates.get(b.billId)!]) wrongOutcomes.push(`${b.billId}: service ${truth}, fate ${fates.get(b.billId)}`);
      if (stored?.outcome !== truth || stored.status !== record.status) wrongOutcomes.push(`${b.billId}: stored ${stored?.outcome}, service ${truth}`);
      if (stored?.isFinal) finals.push(b.billId);
      const w = watchers.find((x) => x.billId === b.billId)!;
      wrong.push(...wrongViews(w, truth));
    }
  } finally {
    await store.close();
  }
  const problems = noticeProblems(finals, merchant.deliveries, 'webhook', false);
  const printed = world.outputs.map((out) => out());
  const leaks = findLeaks([...recorder.texts(), ...printed], [CHILD_KEY, CHILD_SECRET, WEBHOOK_SECRET]).map((l) => `${l.secret} as ${l.form} in ${l.where}`);
  return {
    bills: bills.length,
    kills,
    callbacksToDeadBff: stats.callbacks.filter((a) => a.outcome === 'network-error').length,
    callbacksDropped: stats.callbacks.filter((a) => a.outcome === 'dropped').length,
    webhookRedeliveries: [...merchant.deliveries.values()].reduce((n, ids) => n + ids.length - 1, 0),
    wrongOutcomes,
    noticesLost: problems.lost,
    noticesDuplicated: problems.duplicated,
    wrongViews: wrong,
    leaks,
  };
}
