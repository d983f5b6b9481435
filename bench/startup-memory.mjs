// Start-up and memory of `npm start` (prebuilt): time from spawning it to /healthz 200, the BFF
// process's RSS idle, and its peak RSS under the status-read load of status-reads.mjs.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { delay, monoMs, pick, report } from './lib/common.mjs';
import { request } from './lib/client.mjs';
import { build } from '../scripts/build.mjs';

if (!existsSync('dist/bill-checkout.js') || !existsSync('demo/dist/index.html')) await build();

const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port: p } = s.address();
    s.close(() => resolve(p));
  });
});
const dir = mkdtempSync(join(tmpdir(), 'bench-start-'));
const base = `http://127.0.0.1:${port}`;

/** The deepest descendant of `pid` (npm → sh → tsx → node server/main.ts). */
function serverPid(pid) {
  const children = new Map();
  for (const entry of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  let current = pid;
  while (children.get(current)?.length) current = children.get(current)[0];
  return current;
}
const kib = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);

const started = monoMs();
const npm = spawn('npm', ['start'], {
  env: {
    ...process.env, PORT: String(port), PUBLIC_URL: base, DATABASE_URL: process.env.DATABASE_URL || `file:${join(dir, 'bff.sqlite')}`,
    CLIENT_AMOUNT_MIN: '1', CLIENT_AMOUNT_MAX: '500', REFRESH_WINDOW_MS: '3600000',
  },
  stdio: 'ignore',
  detached: true,
});
try {
  for (;;) {
    const r = await request(`${base}/healthz`).catch(() => null);
    if (r?.status === 200) break;
    if (monoMs() - started > 60_000) throw new Error('npm start: no /healthz 200 within 60 s');
    await delay(10);
  }
  report('startup.npm_start_to_healthz_ms', monoMs() - started, 'ms');
  const pid = serverPid(npm.pid);
  await delay(pick(3000, 1000));
  report('memory.idle_rss_mib', kib(pid, 'VmRSS') / 1024, 'MiB');

  const created = await request(`${base}/api/bills`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ amount: '12.50' }),
  });
  const bill = JSON.parse(created.body);
  const result = await autocannon({
    url: `${base}/api/bills/${bill.billId}?token=${bill.token}`, connections: 16, duration: pick(8, 2),
  });
  report('memory.status_reads_rps', result.requests.average, 'req/s');
  report('memory.under_load_rss_mib', kib(pid, 'VmRSS') / 1024, 'MiB');
  report('memory.peak_rss_mib', kib(pid, 'VmHWM') / 1024, 'MiB');
} finally {
  process.kill(-npm.pid, 'SIGTERM');
  await new Promise((resolve) => npm.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}
