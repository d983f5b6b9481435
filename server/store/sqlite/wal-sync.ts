// Makes SQLite commits durable off the event loop. Every SQLite driver is synchronous: at
// synchronous=FULL every commit fsyncs the WAL inside the call and holds the event loop for the
// disk's flush, about 1 ms usually but 50–320 ms at times on this project's virtual disk, and
// every SSE watcher and poll waits behind it. So the connection runs at synchronous=NORMAL
// (a commit writes its WAL frames and returns) and each write waits here for an fdatasync of the
// WAL that started after its commit, on the runtime's thread pool (libuv's, Bun's, Tokio's). One sync covers every commit before
// it, so writers arriving while a sync runs share the next one (group commit).
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StoreSyncError } from '../errors.js';

export interface WalSync {
  /** Resolves once every commit made before this call is on disk; rejects once a sync failed. */
  durable(): Promise<void>;
  /** The failure that stopped this store's writes, if any. */
  readonly failure: StoreSyncError | null;
  close(): Promise<void>;
}

export interface WalSyncOptions {
  /** Flushes the WAL file (default: fdatasync). */
  sync?: (file: FileHandle) => Promise<void>;
}

interface Round {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: StoreSyncError) => void;
}

function round(): Round {
  let resolve!: () => void;
  let reject!: (error: StoreSyncError) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A failure is also reported to the writers awaiting it; this only keeps it from being "unhandled".
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export function createWalSync(walPath: string, options: WalSyncOptions = {}): WalSync {
  const sync = options.sync ?? ((file: FileHandle) => file.datasync());
  let file: Promise<FileHandle> | null = null;
  let running: Round | null = null;
  let next: Round | null = null;
  let failure: StoreSyncError | null = null;

  // Opened at the first sync, after a commit, when the WAL surely exists. SQLite keeps the same
  // file while any connection is open (it resets it after a checkpoint, never replaces it), and
  // the store's own connection is open until close().
  const openWal = async (): Promise<FileHandle> => {
    const handle = await open(walPath, 'r+');
    // A new file's directory entry must reach the disk too (SQLite syncs it only in FULL mode).
    const dir = await open(dirname(walPath), 'r').catch(() => null);
    await dir?.sync().catch(() => undefined);
    await dir?.close();
    return handle;
  };

  const start = (r: Round) => {
    running = r;
    (async () => {
      file ??= openWal();
      await sync(await file);
    })().then(() => {
      running = null;
      r.resolve();
      if (next) {
        const queued = next;
        next = null;
        start(queued);
      }
    }, (error: unknown) => {
      // The kernel may have dropped the pages it could not write: what is on disk is unknown.
      // Like PostgreSQL after a failed fsync, stop rather than answer writes as durable.
      failure = new StoreSyncError(
        `SQLite's WAL (${walPath}) could not be synced to disk: ${error instanceof Error ? error.message : String(error)}. ` +
        'The store refuses writes from now on and /healthz fails; check the disk, then restart the process.',
      );
      running = null;
      r.reject(failure);
      next?.reject(failure);
      next = null;
    });
  };

  return {
    durable() {
      if (failure) return Promise.reject(failure);
      // A sync already running may have started before this caller's commit: wait for the next.
      if (running) return (next ??= round()).promise;
      const r = round();
      start(r);
      return r.promise;
    },
    get failure() {
      return failure;
    },
    async close() {
      await next?.promise.catch(() => undefined);
      await running?.promise.catch(() => undefined);
      const handle = await file?.catch(() => null);
      await handle?.close();
    },
  };
}
