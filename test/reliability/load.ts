// Load: many widgets (SSE and polling) watch bills on server/main.ts while the bills are paid.
// Zero errors; every watcher ends on the bill's true final state; latencies are printed.
import type { TestContext } from 'node:test';
import { nodeHttpClient } from '../../server/platform/node/http-client.js';
import type { CreatedBillView } from '../../contract/bill-view.js';
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
  pollIntervalMs: number;
  pollP50Ms: number;
  pollP99Ms: number;
  /** From the sandbox's pay to the SSE watchers' final view, ms. */
  finalEventP50Ms: number;
  finalEventP99Ms: number;
  errors: string[];
  wrong: string[];
}

/** The pacing of a load generator (never a wait for an outcome: those await the event itself). */
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

export async function runLoad(
  t: TestContext, o: { widgets: number; seconds: number; pollIntervalMs: number },
): Promise<LoadFigures> {
  const w = await startChildWorld(t, {
    CREATE_RATE_LIMIT_PER_MINUTE: '1000000',
    MAX_SSE_CONNECTIONS: String(o.widgets * 2),
    // Every widget is played from this one address.
    MAX_SSE_PER_CLIENT: String(o.widgets * 2),
    REFRESH_WINDOW_MS: '2000',
  });
  const billCount = Math.max(4, Math.ceil(o.widgets / 10));
  const bills: CreatedBillView[] = [];
  await eachLimited(Array.from({ length: billCount }), 8, async () => {
    const res = await fetch(`${w.base}/api/bills`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"amount":"7.00"}' });
    if (res.status !== 201) throw new Error(`create answered ${res.status}`);
    bills.push((await res.json()) as CreatedBillView);
  });
  // Polls go through node:http: this one process plays every widget, and undici's fetch would
  // make its own pauses (GC, CPU) the larger part of the latencies it reports.
  const pollHttp = nodeHttpClient();
  const pollFetch: typeof fetch = async (input) => {
    const answer = await pollHttp(String(input), { method: 'GET', headers: {}, body: undefined, signal: AbortSignal.timeout(30_000), redirect: 'manual' });
    return new Response(await answer.text(), { status: answer.status });
  };
  const watchers: Watcher[] = Array.from({ length: o.widgets }, (_, i) => i % 2 === 0
    ? createWatcher(w.base, bills[i % billCount]!, 'sse', fetch)
    : createWatcher(w.base, bills[i % billCount]!, 'poll', pollFetch));
  t.after(() => Promise.all(watchers.map((x) => x.stop())));
  const sse = watchers.filter((x) => x.kind === 'sse');
  const polling = watchers.filter((x) => x.kind === 'poll');

  const paidAt = new Map<string, number>();
  const finalSeen: number[] = [];
  // Payments start once every stream is open: the latencies are of widgets watching, not connecting.
  await within(Promise.all(sse.map((x) => x.watching())), 30_000, 'SSE watchers did not all open');
  const started = performance.now();
  const end = started + o.seconds * 1000;
  const pay = (bill: CreatedBillView) => {
    paidAt.set(bill.billId, performance.now());
    w.sandbox.pay(bill.billId);
  };
  // Polling widgets poll as the element does: every POLL_INTERVAL_MS, from a random moment on
  // (back-to-back polling measures the server's ceiling instead: bench/status-reads.mjs).
  const polls = Promise.all(polling.map(async (x) => {
    let at = started + Math.random() * o.pollIntervalMs;
    while (at < end) {
      await pause(at - performance.now());
      await x.poll();
      at += o.pollIntervalMs;
    }
  }));
  // The bills are paid evenly over the run, the last one before its end.
  const payEvery = (o.seconds * 1000 * 0.9) / billCount;
  for (let next = 0; next < billCount; next++) {
    await pause(started + next * payEvery - performance.now());
    pay(bills[next]!);
  }
  await polls;
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
    pollIntervalMs: o.pollIntervalMs,
    pollP50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
    pollP99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
    finalEventP50Ms: Math.round(percentile(finalSeen, 50)),
    finalEventP99Ms: Math.round(percentile(finalSeen, 99)),
    errors: watchers.flatMap((x) => x.errors),
    wrong,
  };
}
