// The worker thread of sqlite/checkpointer.ts: its own connection to the database file, on the
// store's driver, a PASSIVE checkpoint on each 'checkpoint' message, the result posted back.
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite } from './driver.js';
import type { SqliteDriverName } from './driver.js';

export type CheckpointResult = { ok: true; frames: number; copied: number } | { ok: false; error: string };
export interface CheckpointWorkerData {
  path: string;
  driver: SqliteDriverName;
}

const port = parentPort;
if (!port) throw new Error('checkpoint-worker runs as a worker thread (see checkpointer.ts)');
const { path, driver } = workerData as CheckpointWorkerData;
const db = openSqlite(path, { driver });
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = FULL');
port.on('message', (message: unknown) => {
  if (message !== 'checkpoint') return;
  let result: CheckpointResult;
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    result = { ok: true, frames: row?.log ?? 0, copied: row?.checkpointed ?? 0 };
  } catch (error) {
    result = { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(result);
});
