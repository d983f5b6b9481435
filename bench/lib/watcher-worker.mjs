// One worker thread of a watcher pool (client.mjs's `watcherPool`): it holds a share of the SSE
// watchers, each a raw socket, and reads them with as little work as it can: no HTTP parsing after
// the head, no string per chunk. A watcher is open once its first status frame arrived (the head's
// end and a blank line after it); it has "got it" when a chunk holds `marker` (the final frame's
// bytes, e.g. `"outcome":"paid"`). The time of that chunk goes to a shared Float64Array, read by
// the main thread without a message per watcher; `counts` says how many times each watcher saw it.
import { Buffer } from 'node:buffer';
import net from 'node:net';
import process from 'node:process';
import { parentPort, workerData } from 'node:worker_threads';

const arrivals = new Float64Array(workerData.arrivals);
const counts = new Int32Array(workerData.counts);
const heads = new Int32Array(workerData.heads);
const sockets = new Map();
const HEAD_END = Buffer.from('\r\n\r\n');
const FRAME_END = Buffer.from('\n\n');
const monoMs = () => Number(process.hrtime.bigint()) / 1e6;

function open(i, { port, hostname, path }, marker) {
  return new Promise((resolve, reject) => {
    let opened = false;
    let head = null; // the bytes until the first frame is complete
    let tail = null; // the last bytes of the previous chunk, should the marker straddle two
    const socket = net.connect(port, hostname);
    socket.setNoDelay(true);
    sockets.set(i, socket);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`);
    socket.on('error', (error) => {
      if (!opened) reject(error);
    });
    socket.on('data', (chunk) => {
      const at = monoMs();
      if (!opened) {
        head = head ? Buffer.concat([head, chunk]) : chunk;
        const end = head.indexOf(HEAD_END);
        if (end < 0) return;
        if (head.toString('latin1', 9, 12) !== '200') {
          socket.destroy();
          reject(new Error(`events answered ${head.toString('latin1', 0, head.indexOf('\r\n'))}`));
          return;
        }
        if (head.indexOf(FRAME_END, end + 4) < 0) return;
        opened = true;
        heads[i] = end + 4;
        const first = head;
        head = null;
        resolve(first);
        return;
      }
      let found = chunk.indexOf(marker) >= 0;
      if (!found && tail) found = Buffer.concat([tail, chunk.subarray(0, marker.length)]).indexOf(marker) >= 0;
      if (found) {
        if (counts[i]++ === 0) arrivals[i] = at;
        tail = null;
      } else {
        tail = chunk.subarray(Math.max(0, chunk.length - marker.length + 1));
      }
    });
  });
}

parentPort.on('message', async ({ cmd, from, to, url, marker, concurrency }) => {
  try {
    if (cmd === 'open') {
      const target = new URL(url);
      const where = { port: Number(target.port), hostname: target.hostname, path: target.pathname + target.search };
      const bytes = Buffer.from(marker);
      let next = from;
      let sample = null;
      const lane = async () => {
        while (next < to) {
          const i = next++;
          const first = await open(i, where, bytes);
          sample ??= first.toString('latin1');
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, to - from) }, lane));
      parentPort.postMessage({ ok: true, sample });
    } else if (cmd === 'close') {
      for (const socket of sockets.values()) socket.destroy();
      sockets.clear();
      parentPort.postMessage({ ok: true });
    }
  } catch (error) {
    parentPort.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
