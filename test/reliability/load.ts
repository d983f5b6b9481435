// Load: many widgets (SSE and polling) watch bills on server/main.ts while the bills are paid.
// Zero errors; every watcher ends on the bill's true final state; latencies are printed.
import type { TestContext } from 'node:test';
import type { CreatedBillView } from '../../widget/bill-view.js';
import { eachLimited, within } from './support/figures.js';
import { startChildWorld } from './support/child-world.js';
import { createWatcher, percentile, wrongViews } from './support/watchers.js';
import type { Watcher } from './support/watchers.js';

export interface LoadFigures {
  widgets: number;
  sse: number;
  polling: number;
  bills: number;
  seconds: number;
  polls: number;
  pollP50Ms: number;
  pollP99Ms: number;
  /** From the sandbox's pay to the SSE watchers' final view, ms. */
  finalEventP50Ms: number;
  finalEventP99Ms: number;
  errors: string[];
  wrong: string[];
}

export async function runLoad(t: TestContext, o: { widgets: number; seconds: number }): Promise<LoadFigures> {
  const w = await startChildWorld(t, {
    CREATE_RATE_LIMIT_PER_MINUTE: '1000000',
    MAX_SSE_CONNECTIONS: String(o.widgets * 2),
    REFRESH_WINDOW_MS: '2000',
  });
  const billCount = Math.max(4, Math.ceil(o.widgets / 10));
  const bills: CreatedBillView[] = [];
  await eachLimited(Array.from({ length: billCount }), 8, async () => {
    const res = await fetch(`${w.base}/api/bills`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"amount":"7.00"}' });
    if (res.status !== 201) throw new Error(`create answered ${res.status}`);
    bills.push((await res.json()) as CreatedBillView);
  });
  const watchers: Watcher[] = Array.from({ length: o.widgets }, (_, i) =>
    createWatcher(w.base, bills[i % billCount]!, i % 2 === 0 ? 'sse' : 'poll', fetch));
  t.after(() => Promise.all(watchers.map((x) => x.stop())));
  const sse = watchers.filter((x) => x.kind === 'sse');
  const polling = watchers.filter((x) => x.kind === 'poll');

  const paidAt = new Map<string, number>();
  const finalSeen: number[] = [];
  const started = performance.now();
  const end = started + o.seconds * 1000;
  let next = 0;
  // A bill is paid every round until the last round; widgets poll back to back until the end.
  const payEvery = (o.seconds * 1000) / billCount;
  while (performance.now() < end) {
    while (next < billCount && performance.now() - started >= next * payEvery * 0.9) {
      const bill = bills[next++]!;
      paidAt.set(bill.billId, performance.now());
      w.sandbox.pay(bill.billId);
    }
    await eachLimited(polling, 64, (x) => x.poll());
  }
  while (next < billCount) {
    const bill = bills[next++]!;
    paidAt.set(bill.billId, performance.now());
    w.sandbox.pay(bill.billId);
  }
  await within(Promise.all(sse.map(async (x) => {
    await x.closed();
    const at = paidAt.get(x.billId);
    const seen = x.finalAt();
    if (at !== undefined && seen !== null) finalSeen.push(seen - at);
  })), 30_000, 'SSE watchers did not all see the final state');
  await eachLimited(polling, 64, (x) => x.poll());

  const wrong = watchers.flatMap((x) => {
    const problems = wrongViews(x, 'paid');
    if (x.final()?.outcome !== 'paid') problems.push(`${x.billId} (${x.kind}): never showed paid`);
    return problems;
  });
  const latencies = polling.flatMap((x) => x.latencies);
  return {
    widgets: o.widgets, sse: sse.length, polling: polling.length, bills: billCount,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    polls: latencies.length,
    pollP50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
    pollP99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
    finalEventP50Ms: Math.round(percentile(finalSeen, 50)),
    finalEventP99Ms: Math.round(percentile(finalSeen, 99)),
    errors: watchers.flatMap((x) => x.errors),
    wrong,
  };
}
