// Upstream amplification: N watchers (1, 100, 1,000, 10,000) on M bills each, polling (every 3 s,
// the widget's interval) and then SSE, all groups at once; requery calls per bill per refresh
// window, counted by the sandbox. Goal: at most one, whatever N. Polls that failed are printed by
// cause (`amplification.polling.failed.<cause>`: HTTP status and error code, or the socket's error),
// and so are those sent again after a kept-alive socket closed under them (`…retried.<cause>`).
import http from 'node:http';
import { goal, monoMs, pick, quantile, report } from './lib/common.mjs';
import { createBills, openWatchers, request } from './lib/client.mjs';
import { startSandbox } from './lib/sandbox.mjs';
import { spawnBff } from './lib/spawn.mjs';

const seconds = pick(60, 8);
const windowMs = 2000;
const pollMs = 3000;
const groups = [1, 100, 1000, 10_000].map((n) => ({ n, m: n === 1 ? 1 : 10 }));

const sandbox = await startSandbox();
const bff = await spawnBff({ upstreamUrl: sandbox.url, env: { REFRESH_WINDOW_MS: String(windowMs) } });

/** Requeries of `bills` between from and to: per bill per window (mean), and the most in any one window. */
function requeries(bills, from, to) {
  let total = 0;
  let most = 0;
  for (const { billId } of bills) {
    const times = (sandbox.requeryTimes.get(billId) ?? []).filter((t) => t >= from && t < to);
    total += times.length;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i] - times[j] >= windowMs) j++;
      most = Math.max(most, i - j + 1);
    }
  }
  return { perWindow: total / bills.length / ((to - from) / windowMs), most, total };
}

/**
 * What a poll failed of, as the last part of a figure's name: the answer's status and error code
 * (`http_503_upstream_unavailable`), or the client's error (`econnreset`, `socket_hang_up`, `epipe`…).
 */
function causeOf(failure) {
  if (failure.status !== undefined) {
    let code = 'no_code';
    try {
      code = JSON.parse(failure.body)?.error?.code ?? code;
    } catch { /* not JSON */ }
    return `http_${failure.status}_${code}`;
  }
  const name = failure.message === 'socket hang up' ? failure.message : (failure.code ?? failure.message ?? String(failure));
  return String(name).toLowerCase().replace(/[^a-z0-9]+/g, '_');
}

/** Failures (or retries) by cause, and how many of them were on a reused keep-alive socket; the first few told on stderr. */
function tally(label, from) {
  const causes = new Map();
  let total = 0;
  return {
    causes,
    get total() {
      return total;
    },
    add(failure) {
      total++;
      const cause = causeOf(failure);
      const seen = causes.get(cause) ?? { count: 0, reused: 0 };
      seen.count++;
      if (failure.reusedSocket) seen.reused++;
      causes.set(cause, seen);
      if (total <= 20) {
        console.error(`${label}: ${cause} at ${((monoMs() - from) / 1000).toFixed(3)} s, ` +
          (failure.reusedSocket ? `on a kept-alive socket idle ${failure.idleMs?.toFixed(0) ?? '?'} ms` : 'on a new connection'));
      }
    },
  };
}

async function pollingRun(bills) {
  // Idle sockets are closed after 4 s, before the server's keep-alive timeout (the BFF here is on
  // Node's 5 s default): without a `timeout` of its own Node's agent ignores the server's
  // `Keep-Alive: timeout=5` hint and keeps idle sockets forever, and a poll that took one just as
  // the server closed it failed (12 of 222,019 in a run, issue 17). A stall of this process across
  // both timers can still hand out such a socket: `request` then sends the poll once more on a new
  // connection, as a browser does, and counts it (amplification.polling.retried).
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 4_000 });
  let sent = 0;
  const latencies = [];
  const from = monoMs();
  const failed = tally('failed poll', from);
  const retried = tally('poll sent again', from);
  const inFlight = new Set();
  let counting = true;
  let stop = false;
  const timers = [];
  for (const [g, group] of groups.entries()) {
    for (let i = 0; i < group.n; i++) {
      const bill = bills[g][i % group.m];
      const path = `${bff.url}/api/bills/${bill.billId}?token=${bill.token}`;
      const poll = () => {
        if (stop) return;
        sent++;
        const start = monoMs();
        const done = request(path, { agent }).then((r) => {
          if (!counting) return;
          latencies.push(monoMs() - start);
          if (r.retried) retried.add(r.retried);
          if (r.status !== 200) failed.add(r);
        }, (error) => counting && failed.add(error)).finally(() => inFlight.delete(done));
        inFlight.add(done);
        timers.push(setTimeout(poll, pollMs));
      };
      timers.push(setTimeout(poll, Math.random() * pollMs));
    }
  }
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  stop = true;
  const to = monoMs();
  for (const t of timers) clearTimeout(t);
  // Every poll sent is answered or failed before the sockets go: none is cut by the end of the run.
  // One still unanswered 30 s later is a failure of its own.
  await Promise.race([Promise.all(inFlight), new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);
  for (let i = 0; i < inFlight.size; i++) failed.add({ code: 'no_answer_30_s_after_the_run' });
  counting = false;
  agent.destroy();
  return { from, to, sent, failed, retried, latencies };
}

/** `amplification.polling.<what> N count`, then one line per cause and how many were on a reused socket. */
function reportTally(what, t) {
  report(`amplification.polling.${what}`, t.total, 'count');
  for (const [cause, { count, reused }] of [...t.causes].sort((a, b) => b[1].count - a[1].count)) {
    report(`amplification.polling.${what}.${cause}`, count, 'count');
    report(`amplification.polling.${what}.${cause}.on_reused_socket`, reused, 'count');
  }
}

async function sseRun(bills) {
  const watchers = [];
  for (const [g, group] of groups.entries()) {
    const list = await openWatchers(group.n, (i) => {
      const bill = bills[g][i % group.m];
      return `${bff.url}/api/bills/${bill.billId}/events?token=${bill.token}`;
    }, () => undefined);
    watchers.push(...list);
  }
  // Counted from when every watcher is connected: the opening reads are the widget's first load.
  const from = monoMs();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const to = monoMs();
  for (const w of watchers) w.close();
  return { from, to, opened: watchers.length };
}

try {
  for (const mode of ['polling', 'sse']) {
    const bills = [];
    for (const group of groups) bills.push(await createBills(bff.url, group.m));
    const run = mode === 'polling' ? await pollingRun(bills) : await sseRun(bills);
    if (mode === 'polling') {
      report('amplification.polling.requests', run.sent, 'count');
      reportTally('failed', run.failed);
      reportTally('retried', run.retried);
      report('amplification.polling.p50', quantile(run.latencies, 0.5), 'ms');
      report('amplification.polling.p99', quantile(run.latencies, 0.99), 'ms');
      report('amplification.polling.rps', run.sent / seconds, 'req/s');
    } else {
      report('amplification.sse.watchers', run.opened, 'count');
    }
    let worst = 0;
    for (const [g, group] of groups.entries()) {
      const r = requeries(bills[g], run.from, run.to);
      report(`amplification.${mode}.n${group.n}.bills`, group.m, 'count');
      report(`amplification.${mode}.n${group.n}.requery_per_bill_per_window`, r.perWindow, 'count');
      report(`amplification.${mode}.n${group.n}.max_requery_in_one_window`, r.most, 'count');
      worst = Math.max(worst, r.most);
    }
    goal(`amplification.${mode}.max_requery_in_one_window`, worst <= 1, 1, 'count');
  }
  report('amplification.seconds', seconds, 's');
  report('amplification.window_ms', windowMs, 'ms');
} finally {
  await bff.close();
  await sandbox.close();
}
