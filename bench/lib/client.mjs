// HTTP clients of the BFF: create bills, and SSE watchers as raw requests (one socket each).
import http from 'node:http';
import { Buffer } from 'node:buffer';
import net from 'node:net';
import { eachLimited, monoMs } from './common.mjs';

/** Creates `count` bills through POST /api/bills; resolves to their CreatedBillViews. */
export async function createBills(bffUrl, count, concurrency = 16) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const bills = new Array(count);
  await eachLimited(Array.from({ length: count }, (_, i) => i), concurrency, async (i) => {
    const { status, body } = await request(`${bffUrl}/api/bills`, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '12.50' }),
    });
    if (status !== 201) throw new Error(`create answered ${status}: ${body}`);
    bills[i] = JSON.parse(body);
  });
  agent.destroy();
  return bills;
}

/** Methods a browser sends again on its own: the request changes nothing on the server. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS']);

/** When each kept-alive socket last finished an answer: how long it idled before its next request. */
const answeredAt = new WeakMap();

/**
 * One request; resolves to { status, body } (text), and `retried`: the first attempt's error when
 * it was sent twice (below). An error it rejects with carries `reusedSocket`, `idleMs` (how long
 * that kept-alive socket had been idle; null on a new one) and `answerBegan`.
 *
 * As a browser does it (Chromium and Firefox both): an idempotent request whose reused keep-alive
 * connection is closed or reset before any byte of the answer arrived is sent once more, on a new
 * connection. The server may close an idle connection just as the client reuses it (its keep-alive
 * timeout ran out while the client's event loop was busy): the request never reached it. Nothing
 * else is retried: a POST, an error on a new connection, or one after the answer began fails.
 */
export function request(url, options = {}) {
  const method = options.method ?? 'GET';
  return attempt(url, { ...options, method }).catch((error) => {
    if (!error.reusedSocket || error.answerBegan || !IDEMPOTENT.has(method) || !['ECONNRESET', 'EPIPE'].includes(error.code)) throw error;
    // `agent: false`: a connection of its own, as the agent's other idle sockets may be as stale.
    return attempt(url, { ...options, method, agent: false }).then((answer) => ({ ...answer, retried: error }));
  });
}

function attempt(url, { method, agent, headers = {}, body }) {
  return new Promise((resolve, reject) => {
    let idleMs = null;
    let socket = null;
    let readBefore = 0;
    const fail = (error) => reject(Object.assign(error, {
      reusedSocket: req.reusedSocket, idleMs, answerBegan: socket !== null && socket.bytesRead > readBefore,
    }));
    const req = http.request(url, { method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        if (socket) answeredAt.set(socket, monoMs());
        resolve({ status: res.statusCode, body: text });
      });
      res.on('error', fail);
    });
    req.on('socket', (s) => {
      socket = s;
      readBefore = s.bytesRead;
      const at = req.reusedSocket ? answeredAt.get(s) : undefined;
      if (at !== undefined) idleMs = monoMs() - at;
    });
    req.on('error', fail);
    req.end(body);
  });
}

/**
 * Opens an SSE watcher on `url` (its own socket). `onEvent(data, atMs)` gets each status event's
 * data; resolves once the first one arrived. Returns { close }. A raw socket with its own small
 * HTTP/1.1 reader rather than node:http: one process plays a thousand widgets, and the time it
 * spends per socket would otherwise be counted as the BFF's latency.
 */
export function watch(url, onEvent) {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    let opened = false;
    let head = true;
    let chunked = false;
    let pending = Buffer.alloc(0);
    let text = '';
    const socket = net.connect(Number(port), hostname);
    socket.setNoDelay(true);
    socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`);
    const fail = (error) => {
      socket.destroy();
      if (!opened) reject(error);
    };
    socket.on('error', fail);
    socket.on('data', (chunk) => {
      const at = monoMs();
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      if (head) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const lines = pending.toString('latin1', 0, end);
        const status = Number(lines.split(' ', 2)[1]);
        if (status !== 200) return fail(new Error(`events answered ${status}`));
        chunked = /^transfer-encoding: *chunked/im.test(lines);
        head = false;
        pending = pending.subarray(end + 4);
      }
      if (!chunked) {
        text += pending.toString('utf8');
        pending = Buffer.alloc(0);
      }
      while (chunked) {
        const line = pending.indexOf('\r\n');
        if (line < 0) break;
        const size = parseInt(pending.toString('latin1', 0, line), 16);
        if (size === 0 || pending.length < line + 4 + size) break;
        text += pending.toString('utf8', line + 2, line + 2 + size);
        pending = pending.subarray(line + 4 + size);
      }
      let end;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const message = text.slice(0, end);
        text = text.slice(end + 2);
        if (!/^event: ?status$/m.test(message)) continue;
        onEvent(message.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n'), at);
        if (!opened) {
          opened = true;
          resolve({ close: () => socket.destroy() });
        }
      }
    });
  });
}

/** Opens `n` watchers of `urlOf(i)`, `concurrency` connecting at a time. */
export async function openWatchers(n, urlOf, onEvent, concurrency = 200) {
  const watchers = new Array(n);
  await eachLimited(Array.from({ length: n }, (_, i) => i), concurrency, async (i) => {
    watchers[i] = await watch(urlOf(i), (data, at) => onEvent(i, data, at));
  });
  return watchers;
}

/**
 * A pool of SSE watchers spread over `workers` worker threads (watcher-worker.mjs), so that reading
 * ten thousand sockets is not one event loop's queue: each thread reads its share with no HTTP
 * parsing after the head and no string per chunk, and notes the time (CLOCK_MONOTONIC) of the chunk
 * that holds `marker` in a shared array, without a message per watcher. One pool serves round after
 * round: `open(n, url)`, then `arrivals` (0 until the watcher got the marker) and `counts` (how many
 * chunks held it: 1 each), `close()`; `terminate()` at the end.
 */
export async function watcherPool({ workers = 2, capacity, marker, concurrency = 200 }) {
  const { Worker } = await import('node:worker_threads');
  const arrivalsBuffer = new SharedArrayBuffer(8 * capacity);
  const countsBuffer = new SharedArrayBuffer(4 * capacity);
  const headsBuffer = new SharedArrayBuffer(4 * capacity);
  const threads = Array.from({ length: workers }, () => new Worker(new URL('./watcher-worker.mjs', import.meta.url), {
    workerData: { arrivals: arrivalsBuffer, counts: countsBuffer, heads: headsBuffer },
  }));
  const ask = (thread, message) => new Promise((resolve, reject) => {
    thread.once('message', (answer) => (answer.ok ? resolve(answer) : reject(new Error(answer.error))));
    thread.postMessage(message);
  });
  const pool = {
    arrivals: new Float64Array(arrivalsBuffer),
    counts: new Int32Array(countsBuffer),
    /** The bytes of the answer's head (status line and headers, with the blank line), per watcher. */
    heads: new Int32Array(headsBuffer),
    n: 0,
    /** Opens `n` watchers of `url`; resolves to one watcher's first bytes (head and first frame). */
    async open(n, url) {
      if (n > capacity) throw new Error(`the pool holds ${capacity} watchers, not ${n}`);
      pool.arrivals.fill(0, 0, n);
      pool.counts.fill(0, 0, n);
      pool.n = n;
      const per = Math.ceil(n / workers);
      const answers = await Promise.all(threads.map((thread, k) => ask(thread, {
        cmd: 'open', from: Math.min(n, k * per), to: Math.min(n, (k + 1) * per), url, marker, concurrency: Math.ceil(concurrency / workers),
      })));
      return answers.find((a) => a.sample)?.sample ?? null;
    },
    /** How many of the open watchers got the marker. */
    received() {
      let got = 0;
      for (let i = 0; i < pool.n; i++) if (pool.arrivals[i] > 0) got++;
      return got;
    },
    /** Resolves once every open watcher got the marker (checked every `everyMs`). */
    everyone(everyMs = 2) {
      return new Promise((resolve) => {
        const check = setInterval(() => {
          if (pool.received() === pool.n) {
            clearInterval(check);
            resolve();
          }
        }, everyMs);
      });
    },
    close: () => Promise.all(threads.map((thread) => ask(thread, { cmd: 'close' }))),
    terminate: () => Promise.all(threads.map((thread) => thread.terminate())),
  };
  return pool;
}
