// WAL checkpoints on a connection of their own, in a worker thread. Every SQLite driver here
// (sqlite/driver.ts) is synchronous: an automatic checkpoint runs inside whichever commit crosses
// the threshold and holds the event loop while it copies the WAL into the database and fsyncs it
// (170–660 ms seen on this project's virtual disk, every ~10 s under a few dozen writes a second).
// A PASSIVE checkpoint elsewhere does not block the writer. Not too often either: the checkpoint's
// fsync of the database file slows the writer's own WAL fsyncs while it runs (every 1 s measured
// worse than every 5 s).
import { Worker } from 'node:worker_threads';
import type { CheckpointResult, CheckpointWorkerData } from './checkpoint-worker.js';
import type { SqliteDriverName } from './driver.js';

/**
 * The worker: the file beside this module, in its language. Compiled, the .js; from the TypeScript
 * sources (tests, `tsx`), the .ts behind tsx's loader, which a worker thread does not inherit from
 * its parent (where tsx does not load, as under Deno, the runtime is trusted to run TypeScript
 * itself). The URL is made from this module's own at run time, never written out: a bundler then
 * neither copies the worker without the modules it imports nor looks for a source file the
 * package does not ship. In their bundles Turbopack and webpack point import.meta.url at the
 * module's file in node_modules, so a bundled store still starts its worker there (the framework
 * test checks it); a bundle that has no such path (null) runs SQLite's own checkpoints.
 */
function startWorker(workerData: CheckpointWorkerData): Worker | null {
  const self = new URL(import.meta.url);
  self.search = '';
  self.hash = '';
  const beside = /^(.+\/)checkpointer\.(js|ts)$/.exec(self.href);
  if (!beside) return null;
  const [, dir, language] = beside;
  const worker = `${dir}checkpoint-worker.${language}`;
  if (language === 'js') return new Worker(new URL(worker), { workerData });
  const loader = `import('tsx/esm/api').then(({ register }) => register(), () => undefined).then(() => import(${JSON.stringify(worker)}))`;
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
  if (!worker) {
    onFailure(`the checkpoint worker is not beside ${import.meta.url} (a bundle of its own)`);
    return { close: async () => undefined };
  }
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
