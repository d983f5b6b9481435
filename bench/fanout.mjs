// Fan-out: N SSE watchers (1,000 and 10,000, raw sockets) on one bill; the sandbox pays it and its
// callback reaches the BFF (a child process). Against the floor, in the same run: a bare node:http
// server in the same BFF process holding the same number of SSE answers with the BFF's headers and
// first frame, which writes the BFF's final frame to all of them at once and ends them.
//
// What each figure includes:
// - ours (`fanout.n{N}.p50_ms`, `p99_ms`): from the callback's arrival at the BFF (noted in the
//   child's request handler) to each watcher's chunk holding the paid frame: the callback's
//   handling, the requery to the sandbox (in this process) and its answer, the store's write, the
//   hub's publish to every watcher, the kernel's loopback delivery and the watcher's read;
// - `callback_to_publish_ms`: the part of that before the hub's publish (requery and store);
//   `publish_to_last_write_ms`: the publish itself, until its last watcher's write returned;
// - the floor (`floor_p50_ms`, `floor_p99_ms`): from the floor's trigger (its IPC command's arrival
//   in the child) to each watcher's chunk: the writes, the kernel and the read only;
//   `floor_write_all_ms`: trigger to its last write returned;
// - `p99_ratio`, `p50_ratio`: ours ÷ floor, rounds alternating which goes first;
// - `publish_cpu_ms`, `floor_write_all_cpu_ms` and their ratio `write_cpu_ratio` (ours ÷ floor): the
//   BFF process's CPU time (user + system: the writes' kernel work is in it) over the publish and
//   over the floor's loop, medians of the rounds: less moved by other work on the box than times.
// Both clocks are CLOCK_MONOTONIC (`process.hrtime`, one clock for every process and thread).
//
// The load generator: the watchers are spread over worker threads (BENCH_FANOUT_WORKERS, 2 by
// default; `watcherPool` in lib/client.mjs), each reading its raw sockets with no HTTP parsing after
// the head and no string per chunk (a Buffer.indexOf of the paid marker), and writing the chunk's
// time to a shared array: no message per watcher. The same pool reads ours and the floor, so what it
// costs is in both. Memory: a round of its own before the timed ones, ours and then the floor's (BFF
// `process.memoryUsage()` after two `gc()`, before opening and once every stream got its first
// event, delta ÷ N: the floor's heap is what a connection costs node:http itself); the forced GCs age the
// BFF's compiled code, so that round is not timed.
// Goals: p99 at most 25 ms at 1,000 and 200 ms at 10,000; at most 32 KiB per connection.
import process from 'node:process';
import { goal, monoMs, pick, quantile, report } from './lib/common.mjs';
import { createBills, watcherPool } from './lib/client.mjs';
import { startSandbox } from './lib/sandbox.mjs';
import { spawnBff } from './lib/spawn.mjs';

const plans = [{ n: 1000, rounds: pick(6, 2), goalMs: 25 }, { n: 10_000, rounds: pick(4, 2), goalMs: 200 }];
const workers = Number(process.env.BENCH_FANOUT_WORKERS || 2);
const WAIT_MS = 20_000;

const sandbox = await startSandbox();
// A set limit (far above the bench's few requests a second), as a merchant who knows the service's
// sets it: a learning budget (8 requests a second at first) made a callback's requery wait for its
// token in about one round in six, 20–50 ms before the publish, which is the budget's pace, not
// the fan-out's (session 24).
const bff = await spawnBff({ upstreamUrl: sandbox.url, floor: true, env: { BILL_API_MAX_RPS: '1000' } });
const pool = await watcherPool({ workers, capacity: Math.max(...plans.map((p) => p.n)), marker: '"outcome":"paid"' });

const median = (values) => quantile(values, 0.5);

/** Resolves once every watcher got the paid frame; rejects after WAIT_MS. */
async function everyone() {
  const until = monoMs() + WAIT_MS;
  while (pool.received() < pool.n) {
    if (monoMs() > until) throw new Error(`${pool.received()} of ${pool.n} watchers got the final frame`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** The arrivals of this round after `from` (ms), and how many watchers saw the frame twice. */
function collect(from) {
  const latencies = new Array(pool.n);
  let twice = 0;
  for (let i = 0; i < pool.n; i++) {
    latencies[i] = pool.arrivals[i] - from;
    if (pool.counts[i] !== 1) twice++;
  }
  return { latencies, twice };
}

async function drained(size) {
  while ((await bff.call(size)) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

let floorReady = false;

/** The floor's headers and first frame, from one of our streams' first bytes. */
async function setUpFloor(sample) {
  const end = sample.indexOf('\r\n\r\n');
  const lines = sample.slice(0, end).split('\r\n').slice(1);
  const skip = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
  const headers = lines.map((line) => {
    const at = line.indexOf(':');
    return [line.slice(0, at), line.slice(at + 1).trim()];
  }).filter(([name]) => !skip.has(name.toLowerCase()));
  // The first chunk's payload (the body is chunked): `size\r\npayload\r\n`.
  let body = sample.slice(end + 4);
  const sizeEnd = body.indexOf('\r\n');
  body = body.slice(sizeEnd + 2, sizeEnd + 2 + parseInt(body.slice(0, sizeEnd), 16));
  await bff.call('floorSetup', { headers, first: body });
  floorReady = true;
}

async function ours(n, measureMemory) {
  const [bill] = await createBills(bff.url, 1);
  const url = `${bff.url}/api/bills/${bill.billId}/events?token=${bill.token}`;
  const before = measureMemory ? await bff.call('memory') : null;
  const sample = await pool.open(n, url);
  if (!floorReady) await setUpFloor(sample);
  const during = measureMemory ? await bff.call('memory') : null;
  await bff.call('callbackArrivals');
  await bff.call('publishes');
  // BENCH_CPU_PROF=DIR: a profile of the BFF from the payment until every watcher had it.
  const profiled = process.env.BENCH_CPU_PROF && !measureMemory && n >= 1000;
  if (profiled) await bff.call('profile', { start: true });
  const paidAt = monoMs();
  sandbox.sandbox.pay(bill.billId);
  await everyone();
  if (profiled) await bff.call('profile', {});
  const [arrival] = await bff.call('callbackArrivals');
  const publish = (await bff.call('publishes')).find((p) => p.billId === bill.billId && p.isFinal);
  const { latencies, twice } = collect(arrival);
  await pool.close();
  await drained('streams');
  return {
    latencies,
    twice,
    callbackTransitMs: arrival - paidAt,
    toPublishMs: publish.at - arrival,
    publishMs: publish.done - publish.at,
    publishCpuMs: publish.cpuMs,
    perConn: before && during ? {
      rss: (during.rss - before.rss) / n,
      heap: (during.heapUsed - before.heapUsed) / n,
      external: (during.external + during.arrayBuffers - before.external - before.arrayBuffers) / n,
    } : null,
  };
}

async function floor(n, measureMemory = false) {
  const before = measureMemory ? await bff.call('memory') : null;
  await pool.open(n, `${bff.floorUrl}/floor`);
  while ((await bff.call('floorSize')) < n) await new Promise((resolve) => setTimeout(resolve, 5));
  const during = measureMemory ? await bff.call('memory') : null;
  const { at, done, cpuMs, count } = await bff.call('floorBroadcast');
  if (count !== n) throw new Error(`the floor held ${count} answers, not ${n}`);
  await everyone();
  const { latencies, twice } = collect(at);
  await pool.close();
  await drained('floorSize');
  return {
    latencies, twice, writeAllMs: done - at, writeCpuMs: cpuMs,
    perConn: before && during ? { heap: (during.heapUsed - before.heapUsed) / n } : null,
  };
}

try {
  await ours(100, false);
  await floor(100);
  for (const { n, rounds, goalMs } of plans) {
    const mine = { latencies: [], everyone: [], toPublish: [], publish: [], publishCpu: [], twice: 0 };
    const bare = { latencies: [], everyone: [], writeAll: [], writeCpu: [], twice: 0 };
    // Memory has a round of its own: the gc() around its readings would also age the BFF's
    // compiled code, and the next payment would then pay for recompiling it.
    const { perConn } = await ours(n, true);
    const { perConn: floorPerConn } = await floor(n, true);
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first so a drift of the machine hits both.
      const order = r % 2 === 0 ? ['ours', 'floor'] : ['floor', 'ours'];
      for (const which of order) {
        if (which === 'ours') {
          const result = await ours(n, false);
          mine.latencies.push(...result.latencies);
          mine.everyone.push(Math.max(...result.latencies));
          mine.toPublish.push(result.toPublishMs);
          mine.publish.push(result.publishMs);
          mine.publishCpu.push(result.publishCpuMs);
          mine.twice += result.twice;
        } else {
          const result = await floor(n);
          bare.latencies.push(...result.latencies);
          bare.everyone.push(Math.max(...result.latencies));
          bare.writeAll.push(result.writeAllMs);
          bare.writeCpu.push(result.writeCpuMs);
          bare.twice += result.twice;
        }
      }
    }
    const p50 = quantile(mine.latencies, 0.5);
    const p99 = quantile(mine.latencies, 0.99);
    const floorP50 = quantile(bare.latencies, 0.5);
    const floorP99 = quantile(bare.latencies, 0.99);
    report(`fanout.n${n}.rounds`, rounds, 'count');
    report(`fanout.n${n}.p50_ms`, p50, 'ms');
    report(`fanout.n${n}.p99_ms`, p99, 'ms');
    report(`fanout.n${n}.all_received_ms`, median(mine.everyone), 'ms');
    report(`fanout.n${n}.all_received_worst_round_ms`, Math.max(...mine.everyone), 'ms');
    report(`fanout.n${n}.callback_to_publish_ms`, median(mine.toPublish), 'ms');
    report(`fanout.n${n}.publish_to_last_write_ms`, median(mine.publish), 'ms');
    report(`fanout.n${n}.floor_p50_ms`, floorP50, 'ms');
    report(`fanout.n${n}.floor_p99_ms`, floorP99, 'ms');
    report(`fanout.n${n}.floor_all_received_ms`, median(bare.everyone), 'ms');
    report(`fanout.n${n}.floor_write_all_ms`, median(bare.writeAll), 'ms');
    report(`fanout.n${n}.publish_cpu_ms`, median(mine.publishCpu), 'ms');
    report(`fanout.n${n}.floor_write_all_cpu_ms`, median(bare.writeCpu), 'ms');
    report(`fanout.n${n}.write_cpu_ratio`, median(mine.publishCpu) / median(bare.writeCpu), 'ratio');
    report(`fanout.n${n}.p50_ratio`, p50 / floorP50, 'ratio');
    report(`fanout.n${n}.p99_ratio`, p99 / floorP99, 'ratio');
    report(`fanout.n${n}.final_frame_not_once`, mine.twice + bare.twice, 'count');
    console.log(`# fanout.n${n}: every watcher had it after ${mine.everyone.map((ms) => ms.toFixed(1)).join(', ')} ms (ours), ${bare.everyone.map((ms) => ms.toFixed(1)).join(', ')} ms (floor), round by round; ${workers} reader threads; ours' callback to publish ${mine.toPublish.map((ms) => ms.toFixed(1)).join(', ')} ms, publish ${mine.publish.map((ms) => ms.toFixed(1)).join(', ')} ms`);
    report(`fanout.n${n}.rss_per_conn_kib`, perConn.rss / 1024, 'KiB');
    report(`fanout.n${n}.heap_per_conn_kib`, perConn.heap / 1024, 'KiB');
    report(`fanout.n${n}.external_per_conn_kib`, perConn.external / 1024, 'KiB');
    // Its heap only: the floor opens on pages ours' round already mapped, so its RSS hardly moves.
    report(`fanout.n${n}.floor_heap_per_conn_kib`, floorPerConn.heap / 1024, 'KiB');
    report(`fanout.n${n}.heap_per_conn_ratio`, perConn.heap / floorPerConn.heap, 'ratio');
    goal(`fanout.n${n}.p99_ms`, p99 <= goalMs, goalMs, 'ms');
    goal(`fanout.n${n}.rss_per_conn_kib`, perConn.rss / 1024 <= 32, 32, 'KiB');
  }
} finally {
  await pool.terminate();
  await bff.close();
  await sandbox.close();
}
