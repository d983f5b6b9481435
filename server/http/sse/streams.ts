import type { SseSink } from './sse-transport.js';
import type { BillView } from '../../../contract/bill-view.js';

/**
 * Open SSE streams: caps on all of them (MAX_SSE_CONNECTIONS) and on one client's
 * (MAX_SSE_PER_CLIENT), so that one client's flood leaves room for everybody else; and a way to end
 * them all on stop.
 */
export interface StreamRegistry {
  /** Registers a stream's closer and returns its release, or which cap is reached. */
  open(client: string, close: () => void): (() => void) | 'all-busy' | 'client-busy';
  size(): number;
  closeAll(): void;
}

export function createStreamRegistry(max: number, perClient: number): StreamRegistry {
  const closers = new Set<() => void>();
  const byClient = new Map<string, number>();
  return {
    open(client, close) {
      if (closers.size >= max) return 'all-busy';
      const held = byClient.get(client) ?? 0;
      if (held >= perClient) return 'client-busy';
      byClient.set(client, held + 1);
      const entry = () => close();
      closers.add(entry);
      return () => {
        if (!closers.delete(entry)) return;
        const left = (byClient.get(client) ?? 1) - 1;
        if (left > 0) byClient.set(client, left);
        else byClient.delete(client);
      };
    },
    size: () => closers.size,
    closeAll() {
      for (const close of [...closers]) close();
    },
  };
}

const encoder = new TextEncoder();
const KEEP_ALIVE = encoder.encode(': keep-alive\n\n');
// One frame per published view, shared by all its watchers (the hub hands each the same object).
const frames = new WeakMap<BillView, Uint8Array>();

/** The `event: status` frame of a view; `json` when it is already serialized. */
export function statusFrame(view: BillView, json?: string): Uint8Array {
  let frame = frames.get(view);
  if (!frame) {
    frame = encoder.encode(`event: status\ndata: ${json ?? JSON.stringify(view)}\n\n`);
    frames.set(view, frame);
  }
  return frame;
}

const sameStatus = (a: BillView, b: BillView) =>
  a.status === b.status && a.outcome === b.outcome && a.isFinal === b.isFinal &&
  a.dateTime === b.dateTime && a.statusName === b.statusName;

export interface StatusStream {
  /** Sends a view unless it says what the last one said; ends after a final one. */
  push(view: BillView): void;
  /** Ends the stream from our side (shutdown). */
  close(): void;
  /** The client went away. */
  cancel(): void;
}

export interface StatusStreamOptions {
  sink: SseSink;
  first: BillView;
  firstJson?: string;
  heartbeatMs: number;
  /** Called once, however the stream ends (final sent, closed, or the client went away). */
  onEnd(): void;
}

/**
 * Server-Sent Events of one bill's status: the first event at once, then one per change, ended
 * after the final one. Frames are written as they come: no per-watcher task or wake-up.
 */
export function statusStream({ sink, first, firstJson, heartbeatMs, onEnd }: StatusStreamOptions): StatusStream {
  let last = first;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let ended = false;
  const stop = () => {
    if (ended) return false;
    ended = true;
    clearInterval(heartbeat);
    return true;
  };
  const end = (frame?: Uint8Array) => {
    if (!stop()) return;
    sink.end(frame);
    onEnd();
  };
  if (first.isFinal) {
    end(statusFrame(first, firstJson));
  } else {
    sink.write(statusFrame(first, firstJson));
    heartbeat = setInterval(() => sink.write(KEEP_ALIVE), heartbeatMs);
  }
  return {
    push(view) {
      if (ended || sameStatus(view, last)) return;
      last = view;
      if (view.isFinal) end(statusFrame(view));
      else sink.write(statusFrame(view));
    },
    close: () => end(),
    cancel() {
      if (stop()) onEnd();
    },
  };
}
