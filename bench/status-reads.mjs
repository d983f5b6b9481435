// Status reads: GET /api/bills/:id?token= served fresh from the store (REFRESH_WINDOW_MS large, no
// requery) against a bare Hono JSON route in the same process, alternately, with autocannon over
// loopback. The BFF runs in a child process and autocannon here: one core each.
import autocannon from 'autocannon';
import { goal, pick, quantile, report } from './lib/common.mjs';
import { createBills, request } from './lib/client.mjs';
import { startSandbox } from './lib/sandbox.mjs';
import { spawnBff } from './lib/spawn.mjs';

const rounds = pick(5, 2);
const seconds = pick(4, 1);
const connections = 16;

const sandbox = await startSandbox();
const bff = await spawnBff({
  upstreamUrl: sandbox.url,
  env: { REFRESH_WINDOW_MS: '3600000', RECONCILE_INTERVAL_MS: '3600000' },
  bare: true,
});
try {
  const [bill] = await createBills(bff.url, 1);
  const path = `/api/bills/${encodeURIComponent(bill.billId)}?token=${encodeURIComponent(bill.token)}`;
  const first = await request(bff.url + path);
  if (first.status !== 200) throw new Error(`status read answered ${first.status}`);
  await bff.call('setBare', { body: JSON.parse(first.body) });
  const requeriesBefore = sandbox.sandbox.stats().requeryByBill[bill.billId] ?? 0;

  // Also the BFF process's CPU time per answered request (user + system, process.cpuUsage): less
  // moved by other work on the box than req/s, which is the share of a core the BFF got.
  const run = async (base) => {
    const before = await bff.call('cpu');
    const r = await autocannon({ url: base + path, connections, duration: seconds });
    const after = await bff.call('cpu');
    if (r.non2xx || r.errors) throw new Error(`${base}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    const cpuUs = after.user + after.system - before.user - before.system;
    return { rps: r.requests.average, p99: r.latency.p99, cpuUsPerReq: cpuUs / r.requests.total };
  };
  await run(bff.bareUrl);
  await run(bff.url);
  const bffRuns = [];
  const bareRuns = [];
  for (let i = 0; i < rounds; i++) {
    // Alternate which goes first so a drift of the machine hits both.
    if (i % 2 === 0) {
      bareRuns.push(await run(bff.bareUrl));
      bffRuns.push(await run(bff.url));
    } else {
      bffRuns.push(await run(bff.url));
      bareRuns.push(await run(bff.bareUrl));
    }
  }
  // BENCH_CPU_PROF=DIR: a profile of the BFF over one more run of ours, after the timed ones.
  if (process.env.BENCH_CPU_PROF) {
    await bff.call('profile', { start: true });
    await run(bff.url);
    await bff.call('profile', {});
  }
  const mean = (runs) => runs.reduce((a, r) => a + r.rps, 0) / runs.length;
  const ratio = mean(bffRuns) / mean(bareRuns);
  const ratios = bffRuns.map((r, i) => r.rps / bareRuns[i].rps);
  const requeries = (sandbox.sandbox.stats().requeryByBill[bill.billId] ?? 0) - requeriesBefore;
  report('status_reads.bff_rps', mean(bffRuns), 'req/s');
  report('status_reads.bare_rps', mean(bareRuns), 'req/s');
  report('status_reads.bff_p99_ms', quantile(bffRuns.map((r) => r.p99), 0.5), 'ms');
  report('status_reads.bare_p99_ms', quantile(bareRuns.map((r) => r.p99), 0.5), 'ms');
  report('status_reads.ratio', ratio, 'ratio');
  const cpu = (runs) => runs.reduce((a, r) => a + r.cpuUsPerReq, 0) / runs.length;
  report('status_reads.bff_cpu_us_per_req', cpu(bffRuns), 'us');
  report('status_reads.bare_cpu_us_per_req', cpu(bareRuns), 'us');
  report('status_reads.cpu_ratio', cpu(bareRuns) / cpu(bffRuns), 'ratio');
  report('status_reads.ratio_min_round', Math.min(...ratios), 'ratio');
  report('status_reads.requeries_during_load', requeries, 'count');
  goal('status_reads.ratio', ratio >= 0.8, 0.8, 'ratio');
} finally {
  await bff.close();
  await sandbox.close();
}
