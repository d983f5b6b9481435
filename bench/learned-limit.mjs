// A learned budget starts slowly (issue 32): 60 bills, each polled once a second by its widget
// (their first polls together, as a page of bills opened at once), toward a service that allows 10
// requeries a second and does not say so (the sandbox's `rateLimit` fault: 429, Retry-After 1),
// REFRESH_WINDOW_MS=2000, for 15 s. One bill is paid at the sandbox after 7 s (its callback is
// news). Two runs, each with a fresh sandbox and BFF: `learned` (no BILL_API_MAX_RPS) and the
// peer `fixed` (BILL_API_MAX_RPS=10, the limit known), measured in the same process.
//
// Printed per run (`learned_limit.<run>.…`): requeries the service received and those it refused
// (429) with their share, poll latency p50/p99, and paid→shown (the payment to the first poll
// answer saying paid); then the learned run's poll p99 and refused share beside the peer's.
import http from 'node:http';
import { startBff } from './lib/bff.mjs';
import { createBills, request } from './lib/client.mjs';
import { goal, monoMs, pick, quantile, report } from './lib/common.mjs';
import { startSandbox } from './lib/sandbox.mjs';

const BILLS = 60;
const LIMIT = 10;
const seconds = pick(15, 5);

async function run(name, env) {
  const service = await startSandbox();
  // Created before the limit is set: the scenario is the polling.
  const bff = await startBff({ upstreamUrl: service.url, env: { REFRESH_WINDOW_MS: '2000', ...env } });
  const bills = await createBills(bff.url, BILLS);
  service.sandbox.setFaults({ rateLimit: { requery: LIMIT }, retryAfterS: 1 });
  const before = service.sandbox.stats();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const latencies = [];
  const paid = bills[BILLS - 1];
  let paidAt = null;
  let shownAfter = null;
  const start = monoMs();
  const polls = [];
  for (let i = 0; i < BILLS; i++) {
    const bill = bills[i];
    const url = `${bff.url}/api/bills/${encodeURIComponent(bill.billId)}?token=${encodeURIComponent(bill.token)}`;
    const phase = Math.random() * 1000;
    polls.push((async () => {
      for (let k = 0; ; k++) {
        const due = start + (k === 0 ? 0 : phase + k * 1000);
        if (due - start >= seconds * 1000) return;
        const wait = due - monoMs();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const sent = monoMs();
        const { status, body } = await request(url, { agent });
        latencies.push(monoMs() - sent);
        if (status !== 200) throw new Error(`poll answered ${status}`);
        if (bill === paid && paidAt !== null && shownAfter === null && body.includes('"outcome":"paid"')) shownAfter = monoMs() - paidAt;
      }
    })());
  }
  const payment = new Promise((resolve) => setTimeout(() => {
    paidAt = monoMs();
    service.sandbox.pay(paid.billId);
    resolve();
  }, Math.min(7000, seconds * 500)));
  await Promise.all([...polls, payment]);
  const after = service.sandbox.stats();
  const attempts = after.calls.requery - before.calls.requery;
  const refused = after.throttled.requery - before.throttled.requery;
  report(`learned_limit.${name}.requeries`, attempts, 'count');
  report(`learned_limit.${name}.refused`, refused, 'count');
  report(`learned_limit.${name}.refused_share`, attempts ? refused / attempts : 0, 'ratio');
  report(`learned_limit.${name}.attempts_per_s`, attempts / seconds, 'per_s');
  report(`learned_limit.${name}.poll_p50_ms`, quantile(latencies, 0.5), 'ms');
  report(`learned_limit.${name}.poll_p99_ms`, quantile(latencies, 0.99), 'ms');
  report(`learned_limit.${name}.paid_shown_ms`, shownAfter ?? NaN, 'ms');
  agent.destroy();
  await bff.close();
  await service.close();
  return { share: attempts ? refused / attempts : 0, p99: quantile(latencies, 0.99), shownAfter };
}

const fixed = await run('fixed', { BILL_API_MAX_RPS: String(LIMIT) });
const learned = await run('learned', {});
report('learned_limit.poll_p99_vs_fixed', learned.p99 / fixed.p99, 'ratio');
goal('learned_limit.refused_share', learned.share <= 0.1, 0.1, 'ratio');
goal('learned_limit.paid_shown_ms', learned.shownAfter !== null && learned.shownAfter <= 3000, 3000, 'ms');
