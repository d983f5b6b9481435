// The faults run: requery failing or hanging, callbacks dropped, duplicated, delayed and
// reordered, while bills are paid, declined, cancelled or left to expire. Afterwards each stored
// outcome is compared with the service's truth, each final bill's notices are counted, and every
// view a simulated widget received is checked against that truth.
import type { TestContext } from 'node:test';
import type { BillView, CreatedBillView, Outcome } from '../../contract/bill-view.js';
import { outcomeOf } from '../../server/domain/status/outcome.js';
import { startHarness, TEST_ADMIN_TOKEN, TEST_KEY, TEST_SECRET } from '../server/support/harness.js';
import { seeded } from '../sandbox/support/harness.js';
import { eachLimited, within } from './support/figures.js';
import { noticeProblems, startMerchant, WEBHOOK_SECRET } from './support/merchant.js';
import { createRecorder, findLeaks } from './support/record.js';
import { createWatcher, wrongViews } from './support/watchers.js';
import type { Watcher } from './support/watchers.js';

export type Fate = 'pay' | 'decline' | 'cancel' | 'expire';
const FATE_OUTCOME: Record<Fate, Outcome> = { pay: 'paid', decline: 'failed', cancel: 'cancelled', expire: 'expired' };

export interface FaultRunOptions {
  bills: number;
  seed: number;
}

export interface FaultFigures {
  bills: number;
  fates: Record<Fate, number>;
  faults: { requeryErrors: number; requeryHangs: number; callbacksDropped: number; callbacksDuplicated: number; callbackAttempts: number };
  reconcilePasses: number;
  viewsSeen: number;
  wrongOutcomes: string[];
  noticesLost: string[];
  noticesDuplicated: string[];
  wrongViews: string[];
  watcherErrors: string[];
  leaks: string[];
  /** Notices replayed from the admin after the run: each must reach the merchant once more, with its webhook-id. */
  replays: number;
  /** Replayed bills whose replay did not arrive exactly once with the same id, and bills delivered again unasked. */
  replayProblems: string[];
}

export async function runFaultScenario(t: TestContext, o: FaultRunOptions): Promise<FaultFigures> {
  const rand = seeded(o.seed);
  const recorder = createRecorder();
  const merchant = await startMerchant(t);
  const hooks = new Map<string, number>();
  let requeryErrors = 0;
  let requeryHangs = 0;
  const h = await startHarness(t, {
    env: {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      MERCHANT_WEBHOOK_URL: merchant.url,
      MERCHANT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      CREATE_RATE_LIMIT_PER_MINUTE: '1000000',
      MAX_SSE_CONNECTIONS: '100000',
      MAX_SSE_PER_CLIENT: '100000',
    },
    hooks: {
      onFinal: (view: BillView) => void hooks.set(view.billId, (hooks.get(view.billId) ?? 0) + 1),
    },
    sandbox: { random: seeded(o.seed + 1), callbackRetryDelayMs: 20 },
    upstreamHttp: (real) => async (url, request) => {
      const res = await real(url, request);
      if (url.includes('/v1/bill/requery')) {
        if (res.status === 500) requeryErrors++;
        if (res.status === 503) requeryHangs++;
      }
      return res;
    },
  });
  const api = (path: string, init?: RequestInit) => recorder.fetch(`${h.url}${path}`, init);

  const bills: CreatedBillView[] = [];
  await eachLimited(Array.from({ length: o.bills }), 8, async () => {
    const amount = `${1 + Math.floor(rand() * 499)}.${String(Math.floor(rand() * 100)).padStart(2, '0')}`;
    const res = await api('/api/bills', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ amount }),
    });
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
    bills.push((await res.json()) as CreatedBillView);
  });

  const fates = new Map<string, Fate>();
  const fateCount: Record<Fate, number> = { pay: 0, decline: 0, cancel: 0, expire: 0 };
  for (const b of bills) {
    const r = rand();
    const fate: Fate = r < 0.35 ? 'pay' : r < 0.55 ? 'decline' : r < 0.75 ? 'cancel' : 'expire';
    fates.set(b.billId, fate);
    fateCount[fate]++;
  }

  const watchers: Watcher[] = bills.map((b, i) => createWatcher(h.url, b, i % 2 === 0 ? 'sse' : 'poll', recorder.fetch));
  t.after(() => Promise.all(watchers.map((w) => w.stop())));
  const pollAll = () => eachLimited(watchers, 32, (w) => w.poll());
  await pollAll();

  h.sandbox.setFaults({
    errorRate: { requery: 0.15 },
    timeoutRate: { requery: 0.15 },
    hangMs: 25,
    callbackDropRate: 0.2,
    callbackDuplicateRate: 0.25,
    callbackDelayMs: [0, 40],
    callbackReorderWindowMs: 15,
  });

  const acting = bills.filter((b) => fates.get(b.billId) !== 'expire');
  for (let i = acting.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [acting[i], acting[j]] = [acting[j]!, acting[i]!];
  }
  const cancelErrors: string[] = [];
  for (let i = 0; i < acting.length; i += 10) {
    await Promise.all(acting.slice(i, i + 10).map(async (b) => {
      const fate = fates.get(b.billId);
      if (fate === 'pay') h.sandbox.pay(b.billId);
      else if (fate === 'decline') h.sandbox.decline(b.billId);
      else {
        const res = await api(`/api/bills/${b.billId}/cancel?token=${encodeURIComponent(b.token)}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
        const text = await res.text();
        if (res.status !== 200) cancelErrors.push(`cancel ${b.billId}: ${res.status} ${text}`);
      }
    }));
    h.clock.advance(500);
    await pollAll();
  }

  // Past every bill's expiredOn on the service's clock: the rest expire there.
  h.clock.advance(16 * 60_000);
  h.sandbox.sweep();
  await h.sandbox.idle();
  await pollAll();

  let reconcilePasses = 0;
  for (; reconcilePasses < 200; reconcilePasses++) {
    const stored = await Promise.all(bills.map((b) => h.store.getByBillId(b.billId)));
    if (stored.every((s) => s?.isFinal)) break;
    h.clock.advance(h.config.reconcileIntervalMs + 1);
    await h.internals.reconciler.runOnce();
  }
  await pollAll();
  const stuck = await within(Promise.all(watchers.map((w) => w.closed())).then(() => [] as string[]), 15_000,
    'SSE streams still open after every bill was final').catch((e: Error) => [e.message]);

  while ((await h.internals.noticeWorker.runOnce()) > 0) { /* until the outbox is empty */ }

  const stats = h.sandbox.stats();
  h.sandbox.resetFaults();
  const wrongOutcomes: string[] = [];
  const wrong: string[] = [];
  const finals: string[] = [];
  for (const b of bills) {
    const truthRecord = await h.upstream.requeryBill(b.billId);
    const truth = outcomeOf(truthRecord, h.config.statuses);
    const stored = await h.store.getByBillId(b.billId);
    if (truth !== FATE_OUTCOME[fates.get(b.billId)!]) wrongOutcomes.push(`${b.billId}: service says ${truth}, fate ${fates.get(b.billId)}`);
    if (stored?.outcome !== truth || stored.status !== truthRecord.status) {
      wrongOutcomes.push(`${b.billId}: stored ${stored?.outcome}/${stored?.status}, service ${truth}/${truthRecord.status}`);
    }
    if (stored?.isFinal) finals.push(b.billId);
  }
  for (const w of watchers) {
    const truth = outcomeOf(await h.upstream.requeryBill(w.billId), h.config.statuses);
    wrong.push(...wrongViews(w, truth));
    if (w.final() === null) wrong.push(`${w.billId} (${w.kind}): never showed the final state`);
  }

  const hookDeliveries = new Map([...hooks].map(([id, n]) => [id, Array.from({ length: n }, () => 'hook')]));
  const hookProblems = noticeProblems(finals, hookDeliveries, 'onFinal');
  const webhookProblems = noticeProblems(finals, merchant.deliveries, 'webhook');

  // Replays are the merchant's to ask for and are counted apart: the same webhook-id once more, nothing else.
  const before = new Map([...merchant.deliveries].map(([billId, ids]) => [billId, [...ids]]));
  const replayed = finals.slice(0, 10);
  for (const billId of replayed) {
    const res = await h.request(`/api/admin/notices/msg_${encodeURIComponent(billId)}/replay`, {
      method: 'POST', headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
    });
    if (res.status !== 200) throw new Error(`replay of ${billId} answered ${res.status}: ${await res.text()}`);
  }
  const replayProblems: string[] = [];
  for (const [billId, ids] of merchant.deliveries) {
    const had = before.get(billId) ?? [];
    const added = ids.slice(had.length);
    const wanted = replayed.includes(billId) ? had.slice(0, 1) : [];
    if (JSON.stringify(added) !== JSON.stringify(wanted)) replayProblems.push(`${billId}: replays ${JSON.stringify(added)}, expected ${JSON.stringify(wanted)}`);
  }

  const firstAttempts = new Map<string, number>();
  for (const a of stats.callbacks) if (a.attempt === 1) firstAttempts.set(a.billId, (firstAttempts.get(a.billId) ?? 0) + 1);
  const leaks = findLeaks([...recorder.texts(), ...h.logs, ...h.bodies], [TEST_KEY, TEST_SECRET, WEBHOOK_SECRET])
    .map((l) => `${l.secret} as ${l.form} in ${l.where}`);

  return {
    bills: bills.length,
    fates: fateCount,
    faults: {
      requeryErrors,
      requeryHangs,
      callbacksDropped: stats.callbacks.filter((a) => a.outcome === 'dropped').length,
      callbacksDuplicated: [...firstAttempts.values()].reduce((n, c) => n + c - 1, 0),
      callbackAttempts: stats.callbacks.length,
    },
    reconcilePasses,
    viewsSeen: watchers.reduce((n, w) => n + w.views.length, 0),
    wrongOutcomes,
    noticesLost: [...hookProblems.lost, ...webhookProblems.lost],
    noticesDuplicated: [...hookProblems.duplicated, ...webhookProblems.duplicated],
    wrongViews: [...wrong, ...stuck],
    watcherErrors: [...watchers.flatMap((w) => w.errors), ...cancelErrors],
    leaks,
    replays: replayed.length,
    replayProblems,
  };
}
