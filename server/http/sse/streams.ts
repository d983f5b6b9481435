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
// One frame per published view, shared by all its watchers (the hub hands each the same object,
// always with the same version).
const frames = new WeakMap<BillView, Uint8Array>();
const openings = new WeakMap<BillView, { retryMs: number; frame: Uint8Array }>();

/**
 * The `event: status` frame of a view; `json` when it is already serialized. Its `id:` is
 * `version`, the stored bill's statusVersion: it grows with every change a frame can show and is
 * the same on every instance, so a reconnect may name it in Last-Event-ID to any of them.
 */
export function statusFrame(view: BillView, version: number, json?: string): Uint8Array {
  let frame = frames.get(view);
  if (!frame) {
    frame = encoder.encode(`id: ${version}\nevent: status\ndata: ${json ?? JSON.stringify(view)}\n\n`);
    frames.set(view, frame);
  }
  return frame;
}

/** The first frame of a stream: the view's frame, after `retry:` (the client's reconnect delay). */
export function openingFrame(view: BillView, version: number, retryMs: number, json?: string): Uint8Array {
  const cached = openings.get(view);
  if (cached?.retryMs === retryMs) return cached.frame;
  const retry = encoder.encode(`retry: ${retryMs}\n`);
  const status = statusFrame(view, version, json);
  const frame = new Uint8Array(retry.length + status.length);
  frame.set(retry);
  frame.set(status, retry.length);
  openings.set(view, { retryMs, frame });
  return frame;
}

export interface StatusStream {
  /** Sends a view unless its version was sent already (or a later one); ends after a final one. */
  push(view: BillView, version: number): void;
  /** Ends the stream from our side (shutdown). */
  close(): void;
  /** The client went away. */
  cancel(): void;
}

export interface StatusStreamOptions {
  sink: SseSink;
  first: BillView;
  /** The statusVersion of `first`. */
  firstVersion: number;
  firstJson?: string;
  heartbeatMs: number;
  /** Sent once, in the first frame: how long the client waits before it reconnects, ms. */
  retryMs: number;
  /** Called once, however the stream ends (final sent, closed, or the client went away). */
  onEnd(): void;
}

/**
 * Server-Sent Events of one bill's status: the first event at once, then one per change, ended
 * after the final one. Frames are written as they come: no per-watcher task or wake-up. A view
 * no newer than the last one sent (a late or repeated message) is skipped.
 */
export function statusStream({ sink, first, firstVersion, firstJson, heartbeatMs, retryMs, onEnd }: StatusStreamOptions): StatusStream {
  let lastVersion = firstVersion;
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
  const opening = openingFrame(first, firstVersion, retryMs, firstJson);
  if (first.isFinal) {
    end(opening);
  } else {
    sink.write(opening);
    heartbeat = setInterval(() => sink.write(KEEP_ALIVE), heartbeatMs);
  }
  return {
    push(view, version) {
      if (ended || version <= lastVersion) return;
      lastVersion = version;
      if (view.isFinal) end(statusFrame(view, version));
      else sink.write(statusFrame(view, version));
    },
    close: () => end(),
    cancel() {
      if (stop()) onEnd();
    },
  };
}
