// WAL checkpoints on a connection of their own, in a worker thread. better-sqlite3 is synchronous:
// an automatic checkpoint runs inside whichever commit crosses the threshold and holds the event
// loop while it copies the WAL into the database and fsyncs it (170–660 ms seen on this project's
// virtual disk, every ~10 s under a few dozen writes a second). A PASSIVE checkpoint elsewhere
// does not block the writer. Not too often either: the checkpoint's fsync of the database file
// slows the writer's own WAL fsyncs while it runs (every 1 s measured worse than every 5 s).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = FULL');
parentPort.on('message', (m) => {
  if (m !== 'checkpoint') return;
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, frames: r.log, copied: r.checkpointed });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: String(error && error.message || error) });
  }
});
`;

export interface Checkpointer {
  close(): Promise<void>;
}

export interface CheckpointerOptions {
  path: string;
  intervalMs: number;
  /** The worker failed or died: the caller should checkpoint by itself again. */
  onFailure(error: string): void;
  /** After each checkpoint: the WAL's frames, and how many of them are now in the database. */
  onCheckpoint?(result: { frames: number; copied: number }): void;
}

export function startCheckpointer({ path, intervalMs, onFailure, onCheckpoint }: CheckpointerOptions): Checkpointer {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { path, module: createRequire(import.meta.url).resolve('better-sqlite3') },
  });
  worker.unref();
  let failed = false;
  const fail = (error: string) => {
    if (failed) return;
    failed = true;
    clearInterval(timer);
    onFailure(error);
  };
  let busy = false;
  worker.on('message', (m: { ok: true; frames: number; copied: number } | { ok: false; error: string }) => {
    busy = false;
    if (m.ok) onCheckpoint?.({ frames: m.frames, copied: m.copied });
    else fail(m.error);
  });
  worker.on('error', (error) => fail(error.message));
  worker.on('exit', (code) => fail(`checkpoint worker exited (${code})`));
  // A checkpoint with nothing to copy costs the worker microseconds: no need to track writes.
  const timer = setInterval(() => {
    if (busy || failed) return;
    busy = true;
    worker.postMessage('checkpoint');
  }, intervalMs);
  timer.unref();
  return {
    async close() {
      failed = true;
      clearInterval(timer);
      await worker.terminate();
    },
  };
}
