// The cost of a Prometheus scrape: GET /metrics (Bearer METRICS_TOKEN) of a BFF holding 1,000
// pending bills, one scrape at a time over loopback, as a scraper does. The BFF runs in a child
// process (its store's counts are read at every scrape); the figures are per scrape.
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { monoMs, pick, quantile, report } from './lib/common.mjs';
import { createBills, request } from './lib/client.mjs';
import { startSandbox } from './lib/sandbox.mjs';
import { spawnBff } from './lib/spawn.mjs';

const pending = pick(1000, 100);
const scrapes = pick(500, 50);
const token = 'bench-metrics-token-0123456789abcdef';

const sandbox = await startSandbox();
const bff = await spawnBff({
  upstreamUrl: sandbox.url,
  env: { METRICS_TOKEN: token, RECONCILE_INTERVAL_MS: '3600000' },
});
try {
  await createBills(bff.url, pending);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const scrape = () => request(`${bff.url}/metrics`, { agent, headers: { authorization: `Bearer ${token}` } });
  const first = await scrape();
  if (first.status !== 200) throw new Error(`/metrics answered ${first.status}`);
  const line = first.body.split('\n').find((l) => l.startsWith('bill_checkout_bills_pending '));
  if (Number(line?.split(' ')[1]) !== pending) throw new Error(`bills_pending is not ${pending}: ${line}`);
  for (let i = 0; i < 20; i++) await scrape();

  const times = [];
  const cpuBefore = await bff.call('cpu');
  const began = monoMs();
  for (let i = 0; i < scrapes; i++) {
    const at = monoMs();
    await scrape();
    times.push(monoMs() - at);
  }
  const wall = monoMs() - began;
  const cpuAfter = await bff.call('cpu');
  agent.destroy();
  const cpuMs = (cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) / 1000;
  report('metrics_scrape.pending_bills', pending, 'count');
  report('metrics_scrape.p50_ms', quantile(times, 0.5), 'ms');
  report('metrics_scrape.p99_ms', quantile(times, 0.99), 'ms');
  report('metrics_scrape.bff_cpu_ms_per_scrape', cpuMs / scrapes, 'ms');
  report('metrics_scrape.scrapes_per_s', scrapes / (wall / 1000), 'scrapes/s');
  report('metrics_scrape.body_bytes', Buffer.byteLength(first.body), 'bytes');
} finally {
  await bff.close();
  await sandbox.close();
}
