// The flash sale's load generator: N checkouts watched as the element watches them, from child
// processes (several: each holds at most WATCHERS_PER_PROCESS sockets, under an open-file limit
// that may not be raised; and they take no time from the bench's own loop), each watcher a raw socket (no node:http: one process plays 50,000 widgets, and
// node:http's per-socket cost would be counted as the BFF's), its source address one of several
// loopback addresses (127.0.0.K) so that no one address runs out of ports.
//
// A watcher is either a stream or a poller:
// - stream: `GET /api/bills/:id/events?token=` (Accept: text/event-stream), as the element's
//   EventSource. When the stream drops before the final status (the instance died, a proxy cut it,
//   an answer other than 200), it does what the element's StatusController does (`element`, the
//   default): polls at once and then every 3 s, and opens the stream again after
//   backoffDelay(failures, 1000, 60000), polling stopping at the stream's first event. With
//   `reconnect: 'eventsource'` it does what a bare EventSource does instead: opens it again after
//   the `retry:` the server sent, naming the last `id:` in Last-Event-ID (a 204 then means it has
//   the final status already).
// - poller: `GET /api/bills/:id?token=` every 3 s (the element's fallback interval) on a
//   keep-alive socket of its own, first at a random phase; on an error, the element's backoff
//   (backoffDelay(failures), 1 s doubled up to 30 s).
// A final status ends a watcher (the element stops following). What each saw goes to the bench
// every 20 ms: when it first saw a final status (CLOCK_MONOTONIC) and whether it was paid, and each
// further final status it saw (a duplicated notice on the screen).
import { Buffer } from 'node:buffer';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { fork } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { delay, monoMs } from './common.mjs';

/** Counters each load process keeps, by name (the bench sums them). */
export const COUNTERS = [
  'streams_open', 'pollers_open', 'polling_fallback', 'stream_drops', 'stream_reopens', 'stream_refused', 'stream_204',
  'polls', 'poll_errors', 'poll_http_errors', 'connect_errors', 'finals', 'finals_duplicated', 'finals_not_paid', 'open_failed',
  // A dropped stream's tries that failed before it was back, and how long it was gone (by second).
  'stream_retries_failed', 'stream_back_within_1s', 'stream_back_within_2s', 'stream_back_within_4s', 'stream_back_later',
  // And how long the try that brought it back took to its first status (the instance's answer).
  'stream_answer_within_250ms', 'stream_answer_within_1s', 'stream_answer_within_2s', 'stream_answer_later',
];

/** Same as widget/backoff.ts. */
function backoffDelay(attempt, base = 1000, cap = 30_000) {
  const ceiling = Math.min(cap, base * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** Watchers one process holds at most: a watcher may hold two sockets for a moment (its stream reopening while its fallback polls), under an open-file limit of 20,000. */
export const WATCHERS_PER_PROCESS = 9_000;

/**
 * Starts the load: `bills` ([{ billId, token }]) watched at `url`, the share `pollShare` by polling.
 * options: workers (processes, at least enough for WATCHERS_PER_PROCESS each), sources (source
 * addresses), reconnect ('element' | 'eventsource'), pollMs (3000), openConcurrency (per process).
 * Returns { open(), seen, counters(), stats(), close() }: `open()` resolves once every watcher has
 * its first status (or gave up opening), `seen.at[i]` is when watcher i first saw a final status
 * (monoMs, CLOCK_MONOTONIC as every process reads it; 0 while none), `seen.paid[i]` 1 when it was
 * paid, `seen.finals[i]` how many final statuses it saw, `seen.poller[i]` 1 for a poller,
 * `seen.fromService[i]` ms from the view's dateTime (the service's time of the change) to its reading. What the processes saw comes over IPC
 * every 20 ms.
 */
export function startLoad({ url, bills, pollShare = 0.1, workers = 2, sources = ['127.0.0.1'], reconnect = 'element', pollMs = 3000, openConcurrency = 256 }) {
  const n = bills.length;
  const at = new Float64Array(n);
  const paid = new Int32Array(n);
  const finals = new Int32Array(n);
  const poller = new Uint8Array(n);
  const fromService = new Float64Array(n).fill(NaN);
  const processes = Math.max(workers, Math.ceil(n / WATCHERS_PER_PROCESS));
  const countsOf = new Array(processes).fill(null);
  let failure = null;
  // Pollers spread evenly over the bills (every k-th), the rest streams.
  const every = pollShare > 0 ? 1 / pollShare : Infinity;
  const pool = [];
  for (let w = 0; w < processes; w++) {
    const mine = [];
    for (let i = w; i < n; i += processes) {
      poller[i] = pollShare > 0 && Math.floor(i % every) === 0 ? 1 : 0;
      mine.push({ i, billId: bills[i].billId, token: bills[i].token, poll: poller[i] === 1 });
    }
    const child = fork(fileURLToPath(import.meta.url), [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.send({ cmd: 'setup', setup: { url, watchers: mine, sources, reconnect, pollMs, openConcurrency } });
    child.on('message', (msg) => {
      if (msg.seen) {
        const { i, when, isPaid, svc, counters } = msg.seen;
        for (let k = 0; k < i.length; k++) {
          if (finals[i[k]]++ === 0) {
            at[i[k]] = when[k];
            paid[i[k]] = isPaid[k];
            fromService[i[k]] = svc[k];
          }
        }
        countsOf[w] = counters;
      }
    });
    child.on('exit', (code, signal) => {
      if (child.closing) return;
      console.error(`# flash-load process ${w} exited (${code ?? signal})`);
      failure ??= new Error(`load process ${w} exited (${code ?? signal}): the load generator broke`);
    });
    pool.push(child);
  }
  const ask = (child, cmd) => new Promise((resolve, reject) => {
    const onMessage = (msg) => {
      if (msg.reply !== cmd) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(msg);
    };
    const onExit = () => reject(new Error(`a load process exited while asked ${cmd}`));
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send({ cmd });
  });
  const counters = () => {
    const sum = Object.fromEntries(COUNTERS.map((name) => [name, 0]));
    for (const c of countsOf) if (c) for (const name of COUNTERS) sum[name] += c[name];
    return sum;
  };
  return {
    seen: { at, paid, finals, poller, fromService },
    processes,
    /** Set when a load process died on its own: the figures are the generator's, not the BFF's. */
    get failure() {
      return failure;
    },
    counters,
    /** Opens every watcher; resolves with { ms, failed } once all have their first status. */
    async open() {
      const start = monoMs();
      const answers = await Promise.all(pool.map((w) => ask(w, 'open')));
      return { ms: monoMs() - start, failed: answers.reduce((s, a) => s + a.failed, 0) };
    },
    /** Each process's event-loop utilization since the last call, and the sockets they hold. */
    async stats() {
      const answers = await Promise.all(pool.map((w) => ask(w, 'stats')));
      return { elu: answers.map((a) => a.elu), sockets: answers.reduce((s, a) => s + a.sockets, 0) };
    },
    /** The latest counts and finals (a flush of every process). */
    async flush() {
      await Promise.all(pool.map((w) => ask(w, 'flush')));
    },
    async close() {
      await Promise.all(pool.map((w) => {
        w.closing = true;
        const gone = new Promise((resolve) => w.once('exit', resolve));
        w.send({ cmd: 'close' });
        return Promise.race([gone, delay(5000).then(() => w.kill('SIGKILL'))]);
      }));
    },
  };
}

// ---------------------------------------------------------------- a worker

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once('message', ({ cmd, setup }) => {
    if (cmd === 'setup') runWorker(setup);
  });
}

function runWorker({ url, watchers, sources, reconnect, pollMs, openConcurrency }) {
  const { hostname, port } = new URL(url);
  const hostHeader = `Host: ${hostname}:${port}\r\n`;
  const finals = new Int32Array(watchers.length);
  const counters = Object.fromEntries(COUNTERS.map((name) => [name, 0]));
  const add = (name, k = 1) => (counters[name] += k);
  // Final statuses seen since the last flush (the bench merges them).
  let seenI = [];
  let seenWhen = [];
  let seenPaid = [];
  let seenSvc = [];
  const flush = () => {
    process.send({ seen: { i: seenI, when: seenWhen, isPaid: seenPaid, svc: seenSvc, counters } });
    seenI = [];
    seenWhen = [];
    seenPaid = [];
    seenSvc = [];
  };
  setInterval(flush, 20).unref();
  const CRLF2 = Buffer.from('\r\n\r\n');
  let nextSource = 0;
  let sockets = 0;
  let closing = false;

  function connect() {
    const localAddress = sources[nextSource++ % sources.length];
    const socket = net.connect({ port: Number(port), host: hostname, localAddress });
    socket.setNoDelay(true);
    sockets++;
    socket.once('close', () => sockets--);
    return socket;
  }

  /** A watcher saw a status; `text` its JSON. */
  function sawStatus(w, text, when) {
    if (!text.includes('"isFinal":true')) return false;
    const count = ++finals[w.k];
    add('finals');
    const isPaid = text.includes('"outcome":"paid"') ? 1 : 0;
    if (count > 1) add('finals_duplicated');
    else if (!isPaid) add('finals_not_paid');
    seenI.push(w.i);
    seenWhen.push(when);
    seenPaid.push(isPaid);
    // From the service's own time of the change (the view's dateTime, the sandbox's clock: this
    // machine's wall clock) to now: the payment's way without the bench's pay request in it.
    const dateTime = /"dateTime":(\d+)/.exec(text);
    seenSvc.push(dateTime ? Date.now() - Number(dateTime[1]) : NaN);
    return true;
  }

  function finish(w) {
    w.done = true;
    clearTimeout(w.pollTimer);
    clearTimeout(w.streamTimer);
    if (w.sock) {
      const s = w.sock;
      w.sock = null;
      s.destroy();
    }
    if (w.pollSock) {
      const s = w.pollSock;
      w.pollSock = null;
      s.destroy();
    }
    settleOpen(w, true);
  }

  // ---- opening, `openConcurrency` at a time
  let queue = [];
  let queueHead = 0;
  let inFlight = 0;
  let pendingOpen = 0;
  let failedOpen = 0;
  let onAllOpen = null;

  function settleOpen(w, ok) {
    if (w.opened) return;
    w.opened = true;
    if (!ok) {
      failedOpen++;
      add('open_failed');
    }
    if (!w.poll) inFlight--;
    pendingOpen--;
    pump();
    if (pendingOpen === 0 && onAllOpen) onAllOpen();
  }

  function pump() {
    while (inFlight < openConcurrency && queueHead < queue.length) {
      const w = queue[queueHead++];
      inFlight++;
      openStream(w);
    }
  }

  // ---- streams
  function openStream(w) {
    if (w.done || closing) return;
    const socket = connect();
    w.sock = socket;
    w.triedAt = monoMs();
    const last = reconnect === 'eventsource' && w.lastId !== null ? `Last-Event-ID: ${w.lastId}\r\n` : '';
    socket.write(`GET /api/bills/${w.billId}/events?token=${w.token} HTTP/1.1\r\n${hostHeader}Accept: text/event-stream\r\nCache-Control: no-cache\r\n${last}\r\n`);
    const st = { head: true, chunked: false, pending: null, text: '', ended: false };
    socket.on('data', (chunk) => {
      if (w.sock !== socket) return;
      const when = monoMs();
      st.pending = st.pending ? Buffer.concat([st.pending, chunk]) : chunk;
      if (st.head) {
        const end = st.pending.indexOf(CRLF2);
        if (end < 0) return;
        const head = st.pending.toString('latin1', 0, end);
        const status = Number(head.slice(9, 12));
        if (status === 204) {
          // The server says this watcher has the final status already (Last-Event-ID).
          add('stream_204');
          return finish(w);
        }
        if (status !== 200) {
          add('stream_refused');
          return dropStream(w, socket, `http_${status}`);
        }
        st.chunked = /\r\ntransfer-encoding: *chunked/i.test(head);
        st.head = false;
        st.pending = st.pending.subarray(end + 4);
      }
      if (!st.chunked) {
        st.text += st.pending.toString('utf8');
        st.pending = null;
      } else {
        let buf = st.pending;
        for (;;) {
          const line = buf.indexOf('\r\n');
          if (line < 0) break;
          const size = parseInt(buf.toString('latin1', 0, line), 16);
          if (size === 0) {
            st.ended = true;
            buf = buf.subarray(buf.length);
            break;
          }
          if (buf.length < line + 4 + size) break;
          st.text += buf.toString('utf8', line + 2, line + 2 + size);
          buf = buf.subarray(line + 4 + size);
        }
        st.pending = buf.length ? buf : null;
      }
      let end;
      while ((end = st.text.indexOf('\n\n')) >= 0) {
        const message = st.text.slice(0, end);
        st.text = st.text.slice(end + 2);
        if (message.startsWith(':')) continue;
        let event = 'message';
        let data = '';
        for (const line of message.split('\n')) {
          if (line.startsWith('data:')) data += line.slice(line[5] === ' ' ? 6 : 5);
          else if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('id:')) w.lastId = line.slice(3).trim();
          else if (line.startsWith('retry:')) w.retryMs = Number(line.slice(6).trim()) || w.retryMs;
        }
        if (event !== 'status') continue;
        if (!w.streaming) {
          // The stream is back (or opened): polling stops.
          w.streaming = true;
          w.streamFailures = 0;
          if (w.everOpen) {
            add('stream_reopens');
            const goneMs = when - w.droppedAt;
            add(goneMs <= 1000 ? 'stream_back_within_1s' : goneMs <= 2000 ? 'stream_back_within_2s' : goneMs <= 4000 ? 'stream_back_within_4s' : 'stream_back_later');
            const answerMs = when - w.triedAt;
            add(answerMs <= 250 ? 'stream_answer_within_250ms' : answerMs <= 1000 ? 'stream_answer_within_1s' : answerMs <= 2000 ? 'stream_answer_within_2s' : 'stream_answer_later');
          }
          w.everOpen = true;
          add('streams_open');
          stopPolling(w);
        }
        settleOpen(w, true);
        if (sawStatus(w, data, when)) return finish(w);
      }
      if (st.ended) dropStream(w, socket, 'ended');
    });
    socket.on('error', () => dropStream(w, socket, 'error'));
    socket.on('close', () => dropStream(w, socket, 'closed'));
  }

  /** The stream ended without a final status: as the element (or a bare EventSource) does. */
  function dropStream(w, socket, _cause) {
    if (w.sock !== socket) return;
    w.sock = null;
    socket.destroy();
    if (w.done || closing) return;
    if (w.streaming) {
      add('streams_open', -1);
      add('stream_drops');
      w.droppedAt = monoMs();
    } else if (w.everOpen) {
      add('stream_retries_failed');
    }
    w.streaming = false;
    settleOpen(w, false);
    if (reconnect === 'eventsource') {
      w.streamTimer = setTimeout(() => openStream(w), w.retryMs);
      return;
    }
    // StatusController's error handler: poll at once (then every 3 s), the stream again after a backoff.
    if (!w.polling) {
      w.polling = true;
      add('polling_fallback');
    }
    schedulePoll(w, 0);
    w.streamTimer = setTimeout(() => {
      openStream(w);
      // #resume: polls at once while the stream is not back.
      if (!w.streaming) schedulePoll(w, 0);
    }, backoffDelay(++w.streamFailures, 1000, 60_000));
  }

  function stopPolling(w) {
    if (!w.polling) return;
    w.polling = false;
    clearTimeout(w.pollTimer);
    if (w.pollSock) {
      const s = w.pollSock;
      w.pollSock = null;
      s.destroy();
    }
  }

  // ---- polling (a poller, or a stream's fallback), one keep-alive socket each
  function startPoller(w, firstDelay, isOpen) {
    w.polling = true;
    w.countOpen = isOpen;
    schedulePoll(w, firstDelay);
  }

  function schedulePoll(w, delay) {
    clearTimeout(w.pollTimer);
    w.pollTimer = setTimeout(() => poll(w), delay);
  }

  function poll(w) {
    if (w.done || closing || !w.polling) return;
    if (w.inflight) return;
    if (!w.pollSock) openPollSocket(w);
    w.inflight = true;
    w.pollBuf = null;
    w.pollBytes = 0;
    add('polls');
    w.pollSock.write(`GET /api/bills/${w.billId}?token=${w.token} HTTP/1.1\r\n${hostHeader}Accept: application/json\r\n\r\n`);
  }

  function openPollSocket(w) {
    const socket = connect();
    w.pollSock = socket;
    w.pollAnswers = 0;
    socket.on('data', (chunk) => {
      if (w.pollSock !== socket || !w.inflight) return;
      const when = monoMs();
      w.pollBuf = w.pollBuf ? Buffer.concat([w.pollBuf, chunk]) : chunk;
      const buf = w.pollBuf;
      const end = buf.indexOf(CRLF2);
      if (end < 0) return;
      const head = buf.toString('latin1', 0, end);
      let body;
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (length) {
        if (buf.length < end + 4 + Number(length[1])) return;
        body = buf.toString('utf8', end + 4, end + 4 + Number(length[1]));
      } else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
        let text = '';
        let p = end + 4;
        for (;;) {
          const line = buf.indexOf('\r\n', p);
          if (line < 0) return;
          const size = parseInt(buf.toString('latin1', p, line), 16);
          if (buf.length < line + 2 + size + 2) return;
          if (size === 0) break;
          text += buf.toString('utf8', line + 2, line + 2 + size);
          p = line + 2 + size + 2;
        }
        body = text;
      } else {
        body = '';
      }
      w.inflight = false;
      w.pollBuf = null;
      w.pollAnswers++;
      const status = Number(head.slice(9, 12));
      if (/\r\nconnection: *close/i.test(head)) {
        w.pollSock = null;
        socket.destroy();
      }
      if (status !== 200) {
        add('poll_http_errors');
        w.pollFailures = (w.pollFailures ?? 0) + 1;
        if (w.countOpen) settleOpen(w, false);
        return schedulePoll(w, backoffDelay(w.pollFailures));
      }
      w.pollFailures = 0;
      if (w.countOpen && !w.opened) add('pollers_open');
      if (w.countOpen) settleOpen(w, true);
      if (sawStatus(w, body, when)) return finish(w);
      schedulePoll(w, pollMs);
    });
    const failed = () => {
      if (w.pollSock !== socket) return;
      w.pollSock = null;
      socket.destroy();
      if (w.done || closing || !w.inflight) return;
      w.inflight = false;
      // As a browser: an idempotent request on a reused socket that got nothing back is sent again at once.
      if (w.pollAnswers > 0 && !w.pollBuf && !w.resent) {
        w.resent = true;
        return poll(w);
      }
      w.resent = false;
      add('poll_errors');
      w.pollFailures = (w.pollFailures ?? 0) + 1;
      if (w.countOpen && !w.opened) settleOpen(w, false);
      schedulePoll(w, backoffDelay(w.pollFailures));
    };
    socket.on('error', failed);
    socket.on('close', failed);
    socket.on('connect', () => (w.resent = false));
  }

  // ---- commands
  const state = watchers.map((x, k) => ({
    k, i: x.i, billId: encodeURIComponent(x.billId), token: encodeURIComponent(x.token), poll: x.poll,
    sock: null, pollSock: null, pollTimer: undefined, streamTimer: undefined, done: false, opened: false,
    streaming: false, everOpen: false, polling: false, inflight: false, lastId: null, retryMs: 3000, streamFailures: 0,
    countOpen: false,
  }));
  let elu = performance.eventLoopUtilization();
  const parentPort = { postMessage: (msg) => process.send(msg) };
  process.on('message', ({ cmd }) => {
    if (cmd === 'open') {
      // Pollers start at once, each at its own phase; streams open `openConcurrency` at a time.
      queue = state.filter((w) => !w.poll);
      queueHead = 0;
      pendingOpen = state.length;
      failedOpen = 0;
      for (const w of state) if (w.poll) startPoller(w, Math.random() * pollMs, true);
      onAllOpen = () => {
        onAllOpen = null;
        flush();
        parentPort.postMessage({ reply: 'open', failed: failedOpen });
      };
      if (pendingOpen === 0) onAllOpen();
      else pump();
    } else if (cmd === 'stats') {
      const now = performance.eventLoopUtilization();
      const since = performance.eventLoopUtilization(now, elu);
      elu = now;
      parentPort.postMessage({ reply: 'stats', elu: since.utilization, sockets });
    } else if (cmd === 'close') {
      closing = true;
      for (const w of state) {
        clearTimeout(w.pollTimer);
        clearTimeout(w.streamTimer);
        w.sock?.destroy();
        w.pollSock?.destroy();
      }
      flush();
      process.send({ reply: 'close' }, () => process.exit(0));
    } else if (cmd === 'flush') {
      flush();
      parentPort.postMessage({ reply: 'flush' });
    }
  });
}
