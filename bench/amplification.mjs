// Upstream amplification: N watchers (1, 100, 1,000, 10,000) on M bills each, polling (every 3 s,
// the widget's interval) and then SSE, all groups at once; requery calls per bill per refresh
// window, counted by the sandbox. Goal: at most one, whatever N.
import http from 'node:http';
import { goal, monoMs, pick, report } from './lib/common.mjs';
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

async function pollingRun(bills) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  let sent = 0;
  let failed = 0;
  let stop = false;
  const timers = [];
  const from = monoMs();
  for (const [g, group] of groups.entries()) {
    for (let i = 0; i < group.n; i++) {
      const bill = bills[g][i % group.m];
      const path = `${bff.url}/api/bills/${bill.billId}?token=${bill.token}`;
      const poll = () => {
        if (stop) return;
        sent++;
        request(path, { agent }).then((r) => r.status !== 200 && failed++, () => failed++);
        timers.push(setTimeout(poll, pollMs));
      };
      timers.push(setTimeout(poll, Math.random() * pollMs));
    }
  }
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  stop = true;
  const to = monoMs();
  for (const t of timers) clearTimeout(t);
  agent.destroy();
  return { from, to, sent, failed };
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
      report('amplification.polling.failed', run.failed, 'count');
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
