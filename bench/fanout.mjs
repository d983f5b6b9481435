// Fan-out: N SSE watchers (1,000 and 10,000, raw sockets) on one bill; the sandbox pays it and its
// callback reaches the BFF (a child process); latency from the callback's arrival at the BFF to
// each watcher receiving the paid event (one CLOCK_MONOTONIC for both processes), and the BFF's
// memory per open connection. Goals: p99 at most 50 ms at 1,000; at most 32 KiB per connection.
import { goal, monoMs, pick, quantile, report } from './lib/common.mjs';
import { createBills, openWatchers } from './lib/client.mjs';
import { startSandbox } from './lib/sandbox.mjs';
import { spawnBff } from './lib/spawn.mjs';

const plans = [{ n: 1000, rounds: pick(5, 2) }, { n: 10_000, rounds: pick(2, 1) }];

const sandbox = await startSandbox();
const bff = await spawnBff({ upstreamUrl: sandbox.url });

async function round(n, measureMemory) {
  const [bill] = await createBills(bff.url, 1);
  const url = `${bff.url}/api/bills/${bill.billId}/events?token=${bill.token}`;
  const got = new Array(n).fill(0);
  const before = measureMemory ? await bff.call('memory') : null;
  const watchers = await openWatchers(n, () => url, (i, data, at) => {
    if (!got[i] && data.includes('"outcome":"paid"')) got[i] = at;
  });
  const during = measureMemory ? await bff.call('memory') : null;
  await bff.call('callbackArrivals');
  const everyone = new Promise((resolve) => {
    const check = setInterval(() => {
      if (got.every(Boolean)) {
        clearInterval(check);
        resolve();
      }
    }, 5);
  });
  const paidAt = monoMs();
  sandbox.sandbox.pay(bill.billId);
  await everyone;
  const [arrival] = await bff.call('callbackArrivals');
  for (const w of watchers) w.close();
  const latencies = got.map((t) => t - arrival);
  return {
    latencies,
    callbackTransitMs: arrival - paidAt,
    perConn: before && during ? {
      rss: (during.rss - before.rss) / n,
      heap: (during.heapUsed - before.heapUsed) / n,
      external: (during.external + during.arrayBuffers - before.external - before.arrayBuffers) / n,
    } : null,
  };
}

try {
  await round(100, false);
  for (const { n, rounds } of plans) {
    const latencies = [];
    const everyone = [];
    let perConn = null;
    // Memory has a round of its own: the gc() around its readings would also age the BFF's
    // compiled code, and the next payment would then pay for recompiling it.
    for (let r = -1; r < rounds; r++) {
      const result = await round(n, r < 0);
      if (r < 0) perConn = result.perConn;
      else {
        latencies.push(...result.latencies);
        everyone.push(Math.max(...result.latencies));
      }
      // The streams of the round close on the server's side before the next round counts memory.
      while ((await bff.call('streams')) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    report(`fanout.n${n}.rounds`, rounds, 'count');
    report(`fanout.n${n}.p50_ms`, quantile(latencies, 0.5), 'ms');
    report(`fanout.n${n}.p99_ms`, quantile(latencies, 0.99), 'ms');
    report(`fanout.n${n}.all_received_ms`, quantile(everyone, 0.5), 'ms');
    report(`fanout.n${n}.all_received_worst_round_ms`, Math.max(...everyone), 'ms');
    console.log(`# fanout.n${n}: every watcher had it after ${everyone.map((ms) => ms.toFixed(1)).join(', ')} ms, round by round`);
    report(`fanout.n${n}.rss_per_conn_kib`, perConn.rss / 1024, 'KiB');
    report(`fanout.n${n}.heap_per_conn_kib`, perConn.heap / 1024, 'KiB');
    report(`fanout.n${n}.external_per_conn_kib`, perConn.external / 1024, 'KiB');
    if (n === 1000) goal(`fanout.n${n}.p99_ms`, quantile(latencies, 0.99) <= 50, 50, 'ms');
    goal(`fanout.n${n}.rss_per_conn_kib`, perConn.rss / 1024 <= 32, 32, 'KiB');
  }
} finally {
  await bff.close();
  await sandbox.close();
}
