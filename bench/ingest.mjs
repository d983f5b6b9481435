// Callback ingest: K bills paid in the sandbox, whose callbacks (held, then sent from here at a
// fixed concurrency, exactly as the sandbox would send them) each make the BFF requery the sandbox
// and store the final status durably (SQLite WAL, each commit synced before it is answered;
// DATABASE_URL if set, so the same script measures PostgreSQL). Callbacks per second, and lost = sent - finals stored.
// Goal: at least 1,000 per second, none lost.
import http from 'node:http';
import process from 'node:process';
import { eachLimited, goal, monoMs, pick, report } from './lib/common.mjs';
import { createBills, request } from './lib/client.mjs';
import { startSandbox } from './lib/sandbox.mjs';
import { spawnBff } from './lib/spawn.mjs';

const count = pick(2000, 400);
const concurrency = 32;

const held = [];
const sandbox = await startSandbox({
  callbackFetch: async (url, init) => {
    held.push({ url: String(url), body: init.body, headers: init.headers });
    return new globalThis.Response('{"ok":true}', { status: 200 });
  },
});
const bff = await spawnBff({ upstreamUrl: sandbox.url, env: { RECONCILE_INTERVAL_MS: '3600000' } });
try {
  const bills = await createBills(bff.url, count, 32);
  for (const bill of bills) sandbox.sandbox.pay(bill.billId);
  while (held.length < count) await new Promise((resolve) => setTimeout(resolve, 10));

  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let ok = 0;
  let refused = 0;
  const start = monoMs();
  const cpuHere = process.cpuUsage();
  const cpuBff = await bff.call('cpu');
  await eachLimited(held, concurrency, async ({ url, body }) => {
    const r = await request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' }, body });
    if (r.status === 200) ok++;
    else refused++;
  });
  const seconds = (monoMs() - start) / 1000;
  const usedHere = process.cpuUsage(cpuHere);
  const nowBff = await bff.call('cpu');
  const cpuMs = (u) => (u.user + u.system) / 1000;
  agent.destroy();
  const finals = await bff.call('finals', { billIds: bills.map((b) => b.billId) });
  const requeries = sandbox.sandbox.stats().calls.requery;
  const store = process.env.DATABASE_URL?.startsWith('postgres') ? 'postgresql' : 'sqlite';
  report(`ingest.${store}.callbacks`, count, 'count');
  report(`ingest.${store}.concurrency`, concurrency, 'count');
  report(`ingest.${store}.callbacks_per_s`, count / seconds, 'callbacks/s');
  report(`ingest.${store}.acknowledged`, ok, 'count');
  report(`ingest.${store}.refused`, refused, 'count');
  report(`ingest.${store}.requeries`, requeries, 'count');
  report(`ingest.${store}.finals_stored`, finals, 'count');
  report(`ingest.${store}.lost`, count - finals, 'count');
  // Where the time goes: the BFF's CPU, and this process's (the callbacks' sender and the sandbox answering requeries).
  report(`ingest.${store}.bff_cpu_ms_per_callback`, (cpuMs(nowBff) - cpuMs(cpuBff)) / count, 'ms');
  report(`ingest.${store}.bff_cpu_busy`, (cpuMs(nowBff) - cpuMs(cpuBff)) / 1000 / seconds, 'ratio');
  report(`ingest.${store}.sender_and_sandbox_cpu_busy`, cpuMs(usedHere) / 1000 / seconds, 'ratio');
  goal(`ingest.${store}.callbacks_per_s`, count / seconds >= 1000, 1000, 'callbacks/s');
  goal(`ingest.${store}.lost`, finals === count, 0, 'count');
} finally {
  await bff.close();
  await sandbox.close();
}
