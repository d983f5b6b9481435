// WAL checkpoints on a connection of their own, in a worker thread. Every SQLite driver here
// (sqlite-driver.ts) is synchronous: an automatic checkpoint runs inside whichever commit crosses
// the threshold and holds the event loop while it copies the WAL into the database and fsyncs it
// (170–660 ms seen on this project's virtual disk, every ~10 s under a few dozen writes a second).
// A PASSIVE checkpoint elsewhere does not block the writer. Not too often either: the checkpoint's
// fsync of the database file slows the writer's own WAL fsyncs while it runs (every 1 s measured
// worse than every 5 s).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CheckpointResult, CheckpointWorkerData } from './sqlite-checkpoint-worker.js';
import type { SqliteDriverName } from './sqlite-driver.js';

/**
 * The worker: the compiled JavaScript beside this file; from the TypeScript sources (tests, `tsx`),
 * the .ts file behind tsx's loader, which a worker thread does not inherit from its parent (where
 * tsx does not load, as under Deno, the runtime is trusted to run TypeScript itself).
 */
function startWorker(workerData: CheckpointWorkerData): Worker {
  const compiled = new URL('./sqlite-checkpoint-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return new Worker(compiled, { workerData });
  const source = new URL('./sqlite-checkpoint-worker.ts', import.meta.url).href;
  const loader = `import('tsx/esm/api').then(({ register }) => register(), () => undefined).then(() => import(${JSON.stringify(source)}))`;
  return new Worker(loader, { eval: true, workerData });
}

export interface Checkpointer {
  close(): Promise<void>;
}

export interface CheckpointerOptions {
  path: string;
  /** The store's own driver: the worker opens the file with the same one. */
  driver: SqliteDriverName;
  intervalMs: number;
  /** The worker failed or died: the caller should checkpoint by itself again. */
  onFailure(error: string): void;
  /** After each checkpoint: the WAL's frames, and how many of them are now in the database. */
  onCheckpoint?(result: { frames: number; copied: number }): void;
}

export function startCheckpointer({ path, driver, intervalMs, onFailure, onCheckpoint }: CheckpointerOptions): Checkpointer {
  const worker = startWorker({ path, driver });
  worker.unref();
  let failed = false;
  const fail = (error: string) => {
    if (failed) return;
    failed = true;
    clearInterval(timer);
    onFailure(error);
  };
  let busy = false;
  worker.on('message', (m: CheckpointResult) => {
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
