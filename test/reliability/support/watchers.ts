// Simulated widgets: an SSE watcher or a polling one per bill, recording every BillView received.
import type { BillView } from '../../../contract/bill-view.js';
import { readSse } from '../../server/support/sse.js';

export interface Watcher {
  billId: string;
  token: string;
  kind: 'sse' | 'poll';
  views: BillView[];
  /** Requests that failed: network errors and unexpected answers. */
  errors: string[];
  /** Milliseconds per poll answer. */
  latencies: number[];
  /** Polls once (a polling watcher), or (re)opens the stream if it ended before a final view. */
  poll(): Promise<void>;
  /** Resolves when the stream ended (SSE) or at once (polling). */
  closed(): Promise<void>;
  /** Resolves with the first view received (the widget is watching). */
  watching(): Promise<void>;
  stop(): Promise<void>;
  final(): BillView | null;
  /** performance.now() when the first final view arrived. */
  finalAt(): number | null;
}

export function createWatcher(
  base: string, bill: { billId: string; token: string }, kind: 'sse' | 'poll', fetchFn: typeof fetch,
): Watcher {
  const views: BillView[] = [];
  const errors: string[] = [];
  const latencies: number[] = [];
  const path = `${base}/api/bills/${encodeURIComponent(bill.billId)}`;
  const query = `token=${encodeURIComponent(bill.token)}`;
  let stream: Promise<void> = Promise.resolve();
  let cancel: (() => Promise<void>) | null = null;
  let stopped = false;
  let live = false;
  let finalAt: number | null = null;
  let firstView!: () => void;
  const watching = new Promise<void>((resolve) => (firstView = resolve));
  const push = (view: BillView) => {
    firstView();
    if (view.isFinal && finalAt === null) finalAt = performance.now();
    views.push(view);
  };
  const final = () => views.findLast((v) => v.isFinal) ?? null;

  async function poll(): Promise<void> {
    const started = performance.now();
    try {
      const res = await fetchFn(`${path}?${query}`);
      const text = await res.text();
      latencies.push(performance.now() - started);
      if (res.status !== 200) {
        errors.push(`poll ${res.status} ${text.slice(0, 200)}`);
        return;
      }
      push(JSON.parse(text) as BillView);
    } catch (error) {
      errors.push(`poll ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  function open(): void {
    live = true;
    stream = (async () => {
      try {
        const res = await fetchFn(`${path}/events?${query}`, { headers: { Accept: 'text/event-stream' } });
        if (res.status !== 200) {
          errors.push(`sse ${res.status} ${(await res.text()).slice(0, 200)}`);
          return;
        }
        const reader = readSse(res);
        cancel = () => reader.cancel().catch(() => undefined);
        for (let view = await reader.next(); view; view = await reader.next()) push(view);
      } catch (error) {
        if (!stopped) errors.push(`sse ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        cancel = null;
        live = false;
      }
    })();
  }

  if (kind === 'sse') open();
  return {
    ...bill,
    kind,
    views,
    errors,
    latencies,
    async poll() {
      if (kind === 'poll') return poll();
      // A stream that ended without a final view (the BFF went away): a widget reconnects.
      if (!live && final() === null && !stopped) open();
    },
    closed: () => stream,
    watching: () => watching,
    async stop() {
      stopped = true;
      await cancel?.();
      await stream;
    },
    final,
    finalAt: () => finalAt,
  };
}

/** Views that claim a final state other than the truth, or move after a final one. */
export function wrongViews(w: Watcher, truth: string): string[] {
  const wrong: string[] = [];
  let seenFinal: BillView | null = null;
  for (const v of w.views) {
    if (v.billId !== w.billId) wrong.push(`${w.billId}: a view of ${v.billId}`);
    if (seenFinal && (!v.isFinal || v.outcome !== seenFinal.outcome)) {
      wrong.push(`${w.billId}: ${v.outcome} after final ${seenFinal.outcome}`);
    }
    if (v.isFinal) {
      if (v.outcome !== truth) wrong.push(`${w.billId}: showed final ${v.outcome}, truth ${truth}`);
      seenFinal = v;
    } else if (v.outcome !== 'pending') {
      wrong.push(`${w.billId}: outcome ${v.outcome} without isFinal`);
    }
  }
  return wrong;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
