// The flash sale (issue 44): N open checkouts, each its own bill created through POST /api/bills,
// each watched as the element watches (SSE; a share polling every 3 s as its fallback does; a
// dropped stream handled as StatusController handles it), then payments at R per second for D
// seconds (at most N) through the service's real callbacks (the sandbox's control route pays, the
// sandbox calls the BFF back, the BFF requeries and pushes), against a sandbox that allows `limit`
// requeries a second (its rateLimit fault: 429 beyond it). The topology (BFFs, sandbox and webhook
// receiver in processes of their own, nginx and PostgreSQL for the pair) is bench/lib/flash-topology.mjs;
// the watchers are bench/lib/flash-load.mjs (raw sockets from 127.0.0.1–8, in child processes).
//
// Printed per run (`flash_sale.n<N>.…`, the pair `flash_sale.pair_n<N>.…`):
// - paid_to_screen p50/p99/max: streams, from the pay request's sending (CLOCK_MONOTONIC, one clock
//   for every process) to the watcher's reading of the final status; the goal's figure. Beside it
//   service_to_screen (from the view's dateTime, the sandbox's own time of the payment: without the
//   bench's pay request), the pollers' own (a poller shows it at its next poll, up to 3 s later,
//   whatever the BFF does) and all watchers together; for the pair, the payments from 1 s before
//   the kill to 10 s after it (failover_…);
// - lost: paid bills (the sandbox answered the pay) whose watcher never showed paid within the
//   drain, or showed another outcome, or whose merchant notice never came; duplicated: a second
//   final status on one screen, or a second notice id for one bill (one id delivered again is a
//   retry, counted apart);
// - requeries the service received per second against its limit, and how many it refused (429);
// - each instance's RSS (peak MiB; KiB per connection from before opening to all open), the heap's
//   limit and its size at the sale's end (with --live-heap its live size once open, and per
//   connection), CPU per connection opened and per payment, event-loop delay p99 over the sale (prom-client's
//   nodejs_eventloop_lag_p99_seconds from /metrics), the reconcile backlog when exported; the
//   sandbox's, the bench's and the load generator's own use, and the load average.
// With no arguments: N = 1,000, 10,000, 50,000 on one instance and how each figure grows from one
// to the next, then the pair at 50,000 with instance 0 SIGKILLed mid-sale. A size an instance
// cannot hold under its open-file limit is not run (`…not_run_nofile`); the largest asked is then
// run at the most that fits, said as such. Goals: at every size nothing lost, duplicated or
// refused, paid_to_screen p99 ≤ 1 s; RSS ≤ 1 GiB at 50,000.
//
// Options: --n 1000,10000  --rate 200  --seconds 60  --limit 300  --topology single|pair|both
// --poll-share 0.1  --workers 2 (at least; one load process per 9,000 watchers)  --sources 8
// --reconnect element|eventsource  --heap-mib 640 (each BFF's --max-old-space-size; unset: Node's default, a
// quarter of the machine's memory up to 4 GiB)  --live-heap (the live heap per connection: two forced
// full GCs before opening and once open; they age the BFF's compiled code, and the sale's first
// second pays for it, 0.3–1.1 s at worst against 0.05–0.13 s, so the timed figures are not from
// such a run)  --drain 40  --settle 120 (more waiting for what the drain left unshown
// or unnoticed: `lost` is what never came, `late_after_drain` what only the settle brought; 30 s quick)
//  --budget shared|share|whole (the pair: the limit divided among the live instances
// (BILL_API_SHARED_MAX_RPS, the default), each instance a fixed share of it, or all of it)  --max-rps <n|learned> (BILL_API_MAX_RPS over the
// topology's share of the limit). BENCH_QUICK=1: a smoke (N 200, 20 payments/s for 5 s, single
// and, with nginx and PostgreSQL here, the pair); exit status 0 unless the bench itself broke.
//
// Open files: each BFF holds a socket per watcher (the pair's survivor all of them), nginx two. The
// bench re-executes itself under `prlimit --nofile=L:L` when its limit is below what N needs, so
// that everything it starts inherits it (root may raise the hard limit where it has
// CAP_SYS_RESOURCE), and says what it did (`flash_sale.nofile`); the topology raises its own too.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { loadavg } from 'node:os';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { delay, goal, monoMs, pick, quantile, report } from './lib/common.mjs';
import { createBills, request } from './lib/client.mjs';
import { startLoad } from './lib/flash-load.mjs';


// ---------------------------------------------------------------- options

function parseArgs(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new Error(`unknown argument ${arg}`);
    const [key, inline] = arg.slice(2).split('=', 2);
    // A flag without a value (`--live-heap`) is true.
    opts[key] = inline ?? (argv[i + 1] === undefined || argv[i + 1].startsWith('--') ? 'true' : argv[++i]);
  }
  return opts;
}
const args = parseArgs(process.argv.slice(2));
const known = ['n', 'rate', 'seconds', 'limit', 'topology', 'poll-share', 'workers', 'sources', 'reconnect', 'drain', 'settle', 'max-rps', 'budget', 'heap-mib', 'live-heap'];
for (const key of Object.keys(args)) if (!known.includes(key)) throw new Error(`unknown option --${key} (known: ${known.join(', ')})`);
const sizes = (args.n ?? pick('1000,10000,50000', '200')).split(',').map((s) => Number(s.replace(/_/g, '')));
const rate = Number(args.rate ?? pick(200, 20));
const seconds = Number(args.seconds ?? pick(60, 5));
const limit = Number(args.limit ?? 300);
const topologyArg = args.topology ?? 'both';
const pollShare = Number(args['poll-share'] ?? 0.1);
const workers = Number(args.workers ?? 2);
const sourceCount = Number(args.sources ?? 8);
const reconnect = args.reconnect ?? 'element';
const drainS = Number(args.drain ?? pick(40, 15));
// After a drain that left some lost: how much longer to wait to tell late from never (0: not at all).
const settleS = Number(args.settle ?? pick(120, 30));
// The pair's budget toward the service: each instance its share of the limit, or the whole of it.
const budgetSplit = args.budget;
if (budgetSplit !== undefined && !['shared', 'share', 'whole'].includes(budgetSplit)) throw new Error('--budget is shared, share or whole');
const heapMib = args['heap-mib'] === undefined ? null : Number(args['heap-mib']);
const liveHeap = args['live-heap'] === 'true';
if (heapMib !== null && !(Number.isInteger(heapMib) && heapMib >= 64)) throw new Error('--heap-mib takes whole MiB, at least 64');
if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--n takes whole numbers, e.g. --n 1000,10000');
if (!['single', 'pair', 'both'].includes(topologyArg)) throw new Error('--topology is single, pair or both');
if (!['element', 'eventsource'].includes(reconnect)) throw new Error('--reconnect is element or eventsource');

// ---------------------------------------------------------------- the open-file limit

/** The soft and hard limits of open files of this process (/proc/self/limits). */
function nofileLimits() {
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  const [soft, hard] = line.trim().split(/\s+/).slice(3, 5).map((v) => (v === 'unlimited' ? Infinity : Number(v)));
  return { soft, hard };
}

const biggest = Math.max(...sizes);
// The BFF's sockets (one per watcher; it inherits the limit), nginx's for the pair (two per
// connection) and the rest. The load generator's own are spread over processes of their own.
const needed = Math.ceil(biggest * 2.2) + 10_000;
const nofile = nofileLimits();
if (nofile.soft < needed && !process.env.FLASH_SALE_NOFILE_FROM) {
  const nrOpen = Number(readFileSync('/proc/sys/fs/nr_open', 'utf8'));
  const target = Math.min(needed, nrOpen);
  // Root may raise the hard limit (CAP_SYS_RESOURCE); anyone may raise the soft one to the hard one.
  const tries = [`${target}:${target}`, ...(nofile.soft < nofile.hard ? [`${nofile.hard}:${nofile.hard}`] : [])];
  const value = tries.find((v) => spawnSync('prlimit', [`--nofile=${v}`, 'true'], { stdio: 'ignore' }).status === 0);
  if (value) {
    const { status, signal } = spawnSync('prlimit', [`--nofile=${value}`, process.execPath, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...process.env, FLASH_SALE_NOFILE_FROM: `${nofile.soft}:${nofile.hard}`, FLASH_SALE_NOFILE_WANTED: String(target) },
    });
    process.exit(status ?? (signal ? 1 : 0));
  }
  process.env.FLASH_SALE_NOFILE_WANTED = String(target);
}

// ---------------------------------------------------------------- the topology

/** `--max-rps`: BILL_API_MAX_RPS for the BFF, over the topology's (a share of the service's limit). */
const overrideEnv = args['max-rps'] === 'learned' ? { BILL_API_MAX_RPS: '' } : args['max-rps'] ? { BILL_API_MAX_RPS: args['max-rps'] } : {};

/** bench/lib/flash-topology.mjs, and the kinds this machine can run ('pair' needs nginx and PostgreSQL). */
async function topologyModule() {
  const mod = await import('./lib/flash-topology.mjs');
  // The pair needs nginx and PostgreSQL's server (scripts/pg-test-cluster.sh's initdb) on this machine.
  const nginx = spawnSync('nginx', ['-v'], { stdio: 'ignore' }).status === 0;
  const postgres = spawnSync('sh', ['-c', 'ls /usr/lib/postgresql/*/bin/initdb'], { stdio: 'ignore' }).status === 0;
  const kinds = (mod.KINDS ?? ['single', 'pair']).filter((k) => k !== 'pair' || (nginx && postgres));
  if (!kinds.includes('pair')) console.log(`# flash_sale: no pair here (${[nginx ? null : 'no nginx', postgres ? null : 'no PostgreSQL server'].filter(Boolean).join(', ')})`);
  return { name: 'flash-topology', start: mod.startTopology, kinds };
}

// ---------------------------------------------------------------- one run

/** The soft open-file limit of a process. */
function processNofile(pid) {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  return Number(line.trim().split(/\s+/)[3]);
}

/** A Prometheus sample's value (no labels), or NaN. */
function sample(text, name) {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([-+\\d.eE]+|NaN)$`, 'm').exec(text ?? '');
  return m ? Number(m[1]) : NaN;
}

/** The sandbox's requeries, 429s and callbacks so far: the topology's counts, else GET /_control/stats. */
const sandboxStats = async (topo) => {
  if (topo.stats) {
    const counts = await topo.stats();
    return { requery: counts.calls.requery, refused: counts.throttled.requery, callbacks: counts.callbacks.attempts ?? counts.callbacks.length ?? NaN };
  }
  const { status, body } = await request(`${topo.sandboxUrl}/_control/stats`);
  if (status !== 200) throw new Error(`sandbox stats answered ${status}`);
  const json = JSON.parse(body);
  const stats = json.data ?? json.result ?? json;
  return { requery: stats.calls.requery, refused: stats.throttled.requery, callbacks: stats.callbacks.length };
};

/** Bills in a spread order (a fixed shuffle): paid ones fall on every worker, source and poller share. */
function shuffled(n) {
  const order = Array.from({ length: n }, (_, i) => i);
  let seed = 44;
  for (let i = n - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const j = seed % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

async function run(topologyOf, kind, n) {
  const prefix = kind === 'pair' ? `flash_sale.pair_n${n}` : `flash_sale.n${n}`;
  console.log(`# ${prefix}: ${kind}, N ${n}, ${rate} payments/s for ${seconds} s (at most N), service limit ${limit} requeries/s${kind === 'pair' ? ` (budget: ${budgetSplit ?? 'shared'})` : ''}, ${pollShare * 100}% polling, reconnect ${reconnect}, drain ${drainS} s${heapMib === null ? '' : `, --max-old-space-size=${heapMib}`}`);
  const began = monoMs();
  const topo = await topologyOf.start({ kind, env: overrideEnv, budgetSplit, nodeFlags: heapMib === null ? [] : [`--max-old-space-size=${heapMib}`], sandboxFaults: { rateLimit: { requery: limit }, retryAfterS: 1 } });
  const env = topo.bffEnv ?? {};
  console.log(`# ${prefix}: BFF env for the sale: ${Object.entries(env).filter(([k]) => !/TOKEN|SECRET|URL/.test(k)).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  let load = null;
  const rssPeak = topo.instances.map(() => 0);
  const sampleRss = () => topo.instances.forEach((inst, k) => {
    try {
      rssPeak[k] = Math.max(rssPeak[k], inst.rssBytes());
    } catch { /* gone (killed) */ }
  });
  const rssTimer = setInterval(sampleRss, 250);
  try {
    if (topo.raisedLimits) console.log(`# ${prefix}: the topology raised ${JSON.stringify(topo.raisedLimits)}`);
    // An instance holds a socket per watcher: a size beyond its open-file limit is not measured.
    // (the pair's survivor all of them after the failover: the topology's maxStreams says how many fit).
    const share = kind === 'pair' ? n : Math.ceil(n / topo.instances.length);
    const fileLimits = topo.instances.map((inst) => processNofile(inst.pid));
    const maxStreams = topo.raisedLimits?.maxStreams > 0 ? topo.raisedLimits.maxStreams : Infinity;
    const fits = Math.min(maxStreams, ...fileLimits.map((l) => l - 1000));
    if (share > fits) {
      console.error(`# ${prefix}: not run: an instance would hold ${share} sockets; ${fits} fit under its open-file limit (${fileLimits.join(', ')}), which this machine does not let the bench raise`);
      report(`${prefix}.not_run_nofile`, Math.min(...fileLimits), 'files');
      return { notRun: true, fits: kind === 'pair' ? fits : fits * topo.instances.length };
    }
    const sources = Array.from({ length: sourceCount }, (_, k) => `127.0.0.${k + 1}`);

    // 1. The bills, through POST /api/bills.
    let t = monoMs();
    const created = await createBills(topo.url, n, 64);
    const createS = (monoMs() - t) / 1000;
    report(`${prefix}.create_per_s`, n / createS, 'bill/s');

    // 2. Every checkout watched.
    // With --live-heap the live heap, after two full GCs, before the streams open and once they are;
    // the heap's limit (which a deployment sizes, docs/scaling.md#memory) either way, once open.
    const heapBefore = liveHeap ? await Promise.all(topo.instances.map((i) => i.call('memory'))) : null;
    const rssBefore = topo.instances.map((i) => i.rssBytes());
    const cpuBefore = topo.instances.map((i) => i.cpuMs());
    load = startLoad({ url: topo.url, bills: created.map(({ billId, token }) => ({ billId, token })), pollShare, workers, sources, reconnect });
    const opened = await load.open();
    await delay(500);
    const rssOpen = topo.instances.map((i) => i.rssBytes());
    const cpuOpen = topo.instances.map((i) => i.cpuMs());
    const heapOpen = await Promise.all(topo.instances.map((i) => i.call(liveHeap ? 'memory' : 'heapLimit')));
    const openCounts = load.counters();
    report(`${prefix}.open_s`, opened.ms / 1000, 's');
    report(`${prefix}.open_failed`, opened.failed, 'count');
    report(`${prefix}.streams_open`, openCounts.streams_open, 'count');
    report(`${prefix}.pollers_open`, openCounts.pollers_open, 'count');
    if (opened.failed > 0) console.error(`# ${prefix}: ${opened.failed} watchers could not open (they poll as the element does)`);

    // 3. The sale: R payments a second, each through the sandbox's control route (the service's real
    // callback follows); the sandbox's counts every second; the pair loses instance 0 half-way.
    await Promise.all(topo.instances.map((i) => i.metrics().catch(() => '')));
    const statsBefore = await sandboxStats(topo);
    const payments = Math.min(n, Math.round(rate * seconds));
    const order = shuffled(n).slice(0, payments);
    const paidAt = new Float64Array(n);
    const payOk = new Uint8Array(n);
    // First in, first out: at 200 payments a second every socket is used every 160 ms. Node's default
    // (last in, first out) leaves some idle until the sandbox's keep-alive timeout (5 s) closes them,
    // and a payment sent on one just then is reset: one of 12,000 in a run at 19,000 (ECONNRESET).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 32, scheduling: 'fifo' });
    let payFailed = 0;
    let payRejected = 0;
    const payErrors = [];
    const perSecond = [];
    let last = statsBefore;
    const statsTimer = setInterval(() => {
      sandboxStats(topo).then((s) => {
        perSecond.push({ requery: s.requery - last.requery, refused: s.refused - last.refused });
        last = s;
      }, () => undefined);
    }, 1000);
    const sandboxCpuBefore = topo.sandbox?.cpuMs?.() ?? NaN;
    const ownCpuBefore = process.cpuUsage();
    const saleStart = monoMs();
    const eluStart = await load.stats();
    void eluStart;
    let killAt = null;
    const pays = [];
    const payAnswers = [];
    let lastSentAt = saleStart;
    await new Promise((resolve) => {
      let k = 0;
      const tick = () => {
        const now = monoMs();
        const due = Math.min(payments, Math.floor(((now - saleStart) / 1000) * rate) + 1);
        for (; k < due; k++) {
          const i = order[k];
          const sentAt = monoMs();
          paidAt[i] = sentAt;
          lastSentAt = sentAt;
          pays.push(request(`${topo.sandboxUrl}/_control/bills/${encodeURIComponent(created[i].billId)}/pay`, { method: 'POST', agent }).then(
            (r) => {
              payAnswers.push(monoMs() - sentAt);
              if (r.status === 200) payOk[i] = 1;
              else {
                payFailed++;
                if (payErrors.length < 3) payErrors.push(`${r.status} ${r.body.slice(0, 200)}`);
              }
            },
            (e) => {
              payFailed++;
              payRejected++;
              if (payErrors.length < 3) payErrors.push(e.message);
            },
          ));
        }
        if (kind === 'pair' && killAt === null && now - saleStart >= (seconds * 1000) / 2) {
          killAt = monoMs();
          topo.instances[0].kill();
          console.log(`# ${prefix}: instance 0 (pid ${topo.instances[0].pid}) SIGKILLed ${((killAt - saleStart) / 1000).toFixed(1)} s into the sale`);
        }
        if (k >= payments && (kind !== 'pair' || killAt !== null)) resolve();
        else setTimeout(tick, 2);
      };
      tick();
    });
    const payEnd = monoMs();
    const elu = await load.stats();

    // 4. Drain: every pay request answered, every paid bill on its screen and in a notice, or the
    // drain's time is up (from the last payment sent).
    // The bills paid: the sandbox said so (200), or a watcher shows it. A pay request that failed
    // or got no answer is the bench's, not a payment the checkout lost: counted apart.
    let paidIdx;
    const drainUntil = payEnd + drainS * 1000;
    let answered = false;
    await Promise.race([Promise.all(pays).then(() => (answered = true)), delay(drainS * 1000)]);
    if (!answered) console.error(`# ${prefix}: ${payments - payAnswers.length - payRejected} pay requests unanswered ${drainS} s after the last was sent`);
    const noticed = () => new Set(topo.webhook.received().map((r) => r.billId)).size;
    for (;;) {
      const settled = payAnswers.length + payRejected >= payments;
      const confirmed = order.filter((i) => payOk[i]);
      const shown = confirmed.every((i) => load.seen.at[i] > 0);
      if ((settled && shown && noticed() >= confirmed.length) || monoMs() > drainUntil) break;
      await delay(100);
    }
    const drainS_ = (monoMs() - payEnd) / 1000;
    await load.flush();
    if (topo.webhook.settled) await topo.webhook.settled();
    paidIdx = order.filter((i) => payOk[i] || load.seen.at[i] > 0);
    // Late or never: what the drain left unshown or unnoticed gets `settle` seconds more; `lost` is
    // what is still missing after them, `late` what only they brought.
    const missing = () => {
      const ids = new Set(topo.webhook.received().map((r) => r.billId));
      return paidIdx.filter((i) => !(load.seen.at[i] > 0) || !ids.has(created[i].billId));
    };
    const lateOnes = missing();
    if (lateOnes.length > 0 && settleS > 0) {
      const settleUntil = monoMs() + settleS * 1000;
      console.error(`# ${prefix}: ${lateOnes.length} paid bills not yet on screen or noticed after the drain: waiting up to ${settleS} s more`);
      while (missing().length > 0 && monoMs() < settleUntil) await delay(500);
      await load.flush();
      if (topo.webhook.settled) await topo.webhook.settled();
    }
    if (load.failure) throw load.failure;
    clearInterval(statsTimer);
    const saleS = (monoMs() - saleStart) / 1000;
    const statsAfter = await sandboxStats(topo);
    const sandboxCpu = (topo.sandbox?.cpuMs?.() ?? NaN) - sandboxCpuBefore;
    const ownCpu = process.cpuUsage(ownCpuBefore);
    const alive = topo.instances.map((inst, k) => !(kind === 'pair' && k === 0));
    const cpuAfter = topo.instances.map((inst, k) => (alive[k] ? inst.cpuMs() : NaN));
    const metricsAfter = await Promise.all(topo.instances.map((inst, k) => (alive[k] ? inst.metrics().catch((error) => {
      console.error(`# ${prefix}: instance ${k}'s /metrics failed: ${error.message}`);
      return '';
    }) : '')));
    sampleRss();
    const counts = load.counters();

    // 5. Figures.
    // Streams (the goal's figure) and pollers apart: a poller shows a payment at its next poll, up to
    // 3 s later, whatever the BFF does (its figure is bounded by the interval, not by the sale).
    const latencies = [];
    const pollLatencies = [];
    const allLatencies = [];
    const fromService = [];
    const failover = [];
    // The slowest stream of the payments sent in each second of the sale: where a tail came from.
    const worstBySecond = [];
    let lostScreen = 0;
    let notPaidOnScreen = 0;
    for (const i of paidIdx) {
      const seenAt = load.seen.at[i];
      if (!(seenAt > 0)) {
        lostScreen++;
        continue;
      }
      if (!load.seen.paid[i]) notPaidOnScreen++;
      const ms = seenAt - paidAt[i];
      allLatencies.push(ms);
      if (load.seen.poller[i]) {
        pollLatencies.push(ms);
        continue;
      }
      latencies.push(ms);
      const second = Math.floor((paidAt[i] - saleStart) / 1000);
      worstBySecond[second] = Math.max(worstBySecond[second] ?? 0, Math.round(ms));
      fromService.push(load.seen.fromService[i]);
      if (killAt !== null && paidAt[i] >= killAt - 1000 && paidAt[i] <= killAt + pick(10_000, 3_000)) failover.push(ms);
    }
    let finalsUnpaidBills = 0;
    const paidSet = new Set(paidIdx);
    for (let i = 0; i < n; i++) if (!paidSet.has(i) && load.seen.at[i] > 0) finalsUnpaidBills++;
    const screenDuplicated = counts.finals_duplicated;
    // Notices: one id per bill, each id delivered once or retried (the same id).
    const received = topo.webhook.received();
    const idsByBill = new Map();
    const deliveriesById = new Map();
    for (const { id, billId } of received) {
      deliveriesById.set(id, (deliveriesById.get(id) ?? 0) + 1);
      const ids = idsByBill.get(billId) ?? new Set();
      ids.add(id);
      idsByBill.set(billId, ids);
    }
    let noticeDuplicated = 0;
    for (const ids of idsByBill.values()) noticeDuplicated += ids.size - 1;
    const redelivered = received.length - deliveriesById.size;
    let lostNotice = 0;
    for (const i of paidIdx) if (!idsByBill.has(created[i].billId)) lostNotice++;
    const lost = lostScreen + lostNotice + notPaidOnScreen;
    // What each lost one was, for whoever looks into it (a few).
    const lostList = paidIdx.filter((i) => !(load.seen.at[i] > 0) || !load.seen.paid[i] || !idsByBill.has(created[i].billId)).slice(0, 8);
    for (const i of lostList) {
      const what = [!(load.seen.at[i] > 0) ? 'not on screen' : !load.seen.paid[i] ? 'screen shows another outcome' : null, idsByBill.has(created[i].billId) ? null : 'no notice']
        .filter(Boolean).join(', ');
      const when = killAt !== null ? `, paid ${((paidAt[i] - killAt) / 1000).toFixed(2)} s from the kill` : `, paid ${((paidAt[i] - saleStart) / 1000).toFixed(2)} s into the sale`;
      console.error(`# ${prefix}: lost ${created[i].billId} (${load.seen.poller[i] ? 'poller' : 'stream'}${when}): ${what}`);
    }
    const duplicated = screenDuplicated + noticeDuplicated;
    const requeries = statsAfter.requery - statsBefore.requery;
    const refused = statsAfter.refused - statsBefore.refused;
    const p50 = quantile(latencies, 0.5);
    const p99 = quantile(latencies, 0.99);
    const max = latencies.reduce((a, b) => Math.max(a, b), 0);

    report(`${prefix}.n`, n, 'count');
    report(`${prefix}.payments`, payments, 'count');
    report(`${prefix}.paid`, paidIdx.length, 'count');
    report(`${prefix}.payments_failed`, payFailed, 'count');
    report(`${prefix}.payments_unanswered`, payments - payAnswers.length - payRejected, 'count');
    if (payErrors.length) console.error(`# ${prefix}: pay errors: ${payErrors.join(' | ')}`);
    // Sent at: the last payment's sending, at `rate` a second from the first.
    report(`${prefix}.pay_rate`, payments > 1 ? (payments - 1) / ((lastSentAt - saleStart) / 1000) : payments, 'pay/s');
    // paid → screen counts from the pay request's sending: its answer's time is in it.
    report(`${prefix}.pay_answer_p50_ms`, quantile(payAnswers, 0.5), 'ms');
    report(`${prefix}.pay_answer_p99_ms`, quantile(payAnswers, 0.99), 'ms');
    report(`${prefix}.paid_to_screen_p50_ms`, p50, 'ms');
    report(`${prefix}.paid_to_screen_p99_ms`, p99, 'ms');
    report(`${prefix}.paid_to_screen_max_ms`, max, 'ms');
    report(`${prefix}.paid_to_screen_streams`, latencies.length, 'count');
    report(`${prefix}.paid_to_screen_worst_by_second`, Array.from(worstBySecond, (ms) => ms ?? 0).join(','), 'ms');
    // The same streams from the service's own time of the payment (the view's dateTime, wall clock):
    // without the bench's pay request (its client, the sandbox's answer) in it.
    report(`${prefix}.service_to_screen_p50_ms`, quantile(fromService, 0.5), 'ms');
    report(`${prefix}.service_to_screen_p99_ms`, quantile(fromService, 0.99), 'ms');
    report(`${prefix}.poll_paid_to_screen_p50_ms`, quantile(pollLatencies, 0.5), 'ms');
    report(`${prefix}.poll_paid_to_screen_p99_ms`, quantile(pollLatencies, 0.99), 'ms');
    report(`${prefix}.poll_paid_to_screen_max_ms`, pollLatencies.reduce((a, b) => Math.max(a, b), 0), 'ms');
    report(`${prefix}.paid_to_screen_pollers`, pollLatencies.length, 'count');
    report(`${prefix}.all_paid_to_screen_p99_ms`, quantile(allLatencies, 0.99), 'ms');
    if (killAt !== null) {
      report(`${prefix}.failover_payments`, failover.length, 'count');
      report(`${prefix}.failover_p50_ms`, quantile(failover, 0.5), 'ms');
      report(`${prefix}.failover_p99_ms`, quantile(failover, 0.99), 'ms');
      report(`${prefix}.failover_max_ms`, failover.reduce((a, b) => Math.max(a, b), 0), 'ms');
    }
    report(`${prefix}.lost`, lost, 'count');
    // Not on screen or not noticed by the end of the drain, but by the end of the settle.
    report(`${prefix}.late_after_drain`, lateOnes.length - missing().length, 'count');
    report(`${prefix}.drain_plus_settle_s`, drainS + (lateOnes.length > 0 ? settleS : 0), 's');
    report(`${prefix}.lost_screen`, lostScreen, 'count');
    report(`${prefix}.lost_notice`, lostNotice, 'count');
    report(`${prefix}.shown_not_paid`, notPaidOnScreen, 'count');
    report(`${prefix}.final_on_unpaid_bills`, finalsUnpaidBills, 'count');
    report(`${prefix}.duplicated`, duplicated, 'count');
    report(`${prefix}.duplicated_screen`, screenDuplicated, 'count');
    report(`${prefix}.duplicated_notice`, noticeDuplicated, 'count');
    report(`${prefix}.notices`, received.length, 'count');
    report(`${prefix}.notices_redelivered_same_id`, redelivered, 'count');
    report(`${prefix}.drain_s`, drainS_, 's');
    report(`${prefix}.limit`, limit, 'req/s');
    report(`${prefix}.requeries`, requeries, 'count');
    report(`${prefix}.requeries_per_s`, requeries / saleS, 'req/s');
    report(`${prefix}.requeries_per_s_max`, perSecond.reduce((a, s) => Math.max(a, s.requery), 0), 'req/s');
    report(`${prefix}.requeries_per_payment`, requeries / payments, 'ratio');
    report(`${prefix}.refused`, refused, 'count');
    report(`${prefix}.callbacks`, statsAfter.callbacks - statsBefore.callbacks, 'count');
    report(`${prefix}.requeries_by_second`, perSecond.map((s) => s.requery).join(','), 'req');
    if (refused) report(`${prefix}.refused_by_second`, perSecond.map((s) => s.refused).join(','), 'req');
    let rssMibMax = 0;
    topo.instances.forEach((inst, k) => {
      const ip = topo.instances.length > 1 ? `${prefix}.i${k}` : prefix;
      const share = n / topo.instances.length;
      const rssMib = rssPeak[k] / 2 ** 20;
      rssMibMax = Math.max(rssMibMax, rssMib);
      report(`${ip}.rss_mib`, rssMib, 'MiB');
      report(`${ip}.rss_open_mib`, rssOpen[k] / 2 ** 20, 'MiB');
      report(`${ip}.rss_per_conn_kib`, (rssOpen[k] - rssBefore[k]) / 1024 / share, 'KiB');
      report(`${ip}.cpu_ms_per_conn`, (cpuOpen[k] - cpuBefore[k]) / share, 'ms');
      report(`${ip}.heap_limit_mib`, heapOpen[k].heapLimit / 2 ** 20, 'MiB');
      if (liveHeap) {
        report(`${ip}.heap_open_mib`, heapOpen[k].heapUsed / 2 ** 20, 'MiB');
        report(`${ip}.heap_per_conn_kib`, (heapOpen[k].heapUsed - heapBefore[k].heapUsed) / 1024 / share, 'KiB');
      }
      if (alive[k]) {
        report(`${ip}.heap_total_end_mib`, sample(metricsAfter[k], 'nodejs_heap_size_total_bytes') / 2 ** 20, 'MiB');
        report(`${ip}.cpu_ms_per_payment`, (cpuAfter[k] - cpuOpen[k]) / (payments / topo.instances.length), 'ms');
        report(`${ip}.cpu_core_during_sale`, (cpuAfter[k] - cpuOpen[k]) / 1000 / saleS, 'core');
        const lag = sample(metricsAfter[k], 'nodejs_eventloop_lag_p99_seconds');
        report(`${ip}.eventloop_delay_p99_ms`, lag * 1000, 'ms');
        report(`${ip}.eventloop_delay_max_ms`, sample(metricsAfter[k], 'nodejs_eventloop_lag_max_seconds') * 1000, 'ms');
        const backlog = sample(metricsAfter[k], 'bill_checkout_reconcile_backlog_bills');
        if (!Number.isNaN(backlog)) report(`${ip}.reconcile_backlog_bills`, backlog, 'count');
        const backlogLag = sample(metricsAfter[k], 'bill_checkout_reconcile_lag_seconds');
        if (!Number.isNaN(backlogLag)) report(`${ip}.reconcile_lag_s`, backlogLag, 's');
      }
    });
    report(`${prefix}.stream_drops`, counts.stream_drops, 'count');
    report(`${prefix}.stream_reopens`, counts.stream_reopens, 'count');
    report(`${prefix}.polling_fallback`, counts.polling_fallback, 'count');
    if (counts.stream_drops) {
      report(`${prefix}.stream_retries_failed`, counts.stream_retries_failed, 'count');
      report(`${prefix}.stream_back_within_1s_2s_4s_later`, [counts.stream_back_within_1s, counts.stream_back_within_2s, counts.stream_back_within_4s, counts.stream_back_later].join(','), 'count');
      report(`${prefix}.stream_answer_within_250ms_1s_2s_later`, [counts.stream_answer_within_250ms, counts.stream_answer_within_1s, counts.stream_answer_within_2s, counts.stream_answer_later].join(','), 'count');
    }
    report(`${prefix}.polls`, counts.polls, 'count');
    report(`${prefix}.poll_errors`, counts.poll_errors + counts.poll_http_errors, 'count');
    report(`${prefix}.loadgen_elu_max`, Math.max(...elu.elu), 'ratio');
    report(`${prefix}.sandbox_cpu_core_during_sale`, sandboxCpu / 1000 / saleS, 'core');
    report(`${prefix}.bench_cpu_core_during_sale`, (ownCpu.user + ownCpu.system) / 1000 / 1000 / saleS, 'core');
    report(`${prefix}.load_average_1m`, loadavg()[0], 'load');
    report(`${prefix}.run_s`, (monoMs() - began) / 1000, 's');

    // Goals (issue 44): nothing lost, duplicated or refused at every size; p99 ≤ 1 s; RSS ≤ 1 GiB at 50,000.
    if (n >= 50_000) goal(`${prefix}.rss_mib`, rssMibMax <= 1024, 1024, 'MiB');
    goal(`${prefix}.paid_to_screen_p99_ms`, p99 <= 1000, 1000, 'ms');
    goal(`${prefix}.refused`, refused === 0, 0, 'count');
    goal(`${prefix}.lost`, lost === 0, 0, 'count');
    goal(`${prefix}.duplicated`, duplicated === 0, 0, 'count');
    return {
      n, p50, p99, max, lost, duplicated, refused, requeriesPerS: requeries / saleS, rssMib: rssMibMax,
      rssPerConnKib: (rssOpen[0] - rssBefore[0]) / 1024 / (n / topo.instances.length),
      heapPerConnKib: liveHeap ? (heapOpen[0].heapUsed - heapBefore[0].heapUsed) / 1024 / (n / topo.instances.length) : NaN,
      cpuPerConn: (cpuOpen[0] - cpuBefore[0]) / (n / topo.instances.length),
      cpuPerPayment: alive[0] ? (cpuAfter[0] - cpuOpen[0]) / (payments / topo.instances.length) : NaN,
      lagP99: sample(metricsAfter[alive[0] ? 0 : 1], 'nodejs_eventloop_lag_p99_seconds') * 1000,
    };
  } finally {
    clearInterval(rssTimer);
    await load?.close().catch(() => undefined);
    await topo.close();
  }
}

// ---------------------------------------------------------------- main

const from = process.env.FLASH_SALE_NOFILE_FROM;
const wantedFiles = Number(process.env.FLASH_SALE_NOFILE_WANTED ?? 0);
const limits = nofileLimits();
report('flash_sale.nofile', limits.soft, 'files');
if (from) console.log(`# flash_sale: open-file limit raised from ${from.replace(':', ' (hard ')}) to ${limits.soft} (hard ${limits.hard}), re-executed under prlimit`);
else if (wantedFiles > limits.soft) console.log(`# flash_sale: open-file limit ${limits.soft} (hard ${limits.hard}): N ${biggest} wants ${wantedFiles}, and this machine refuses to raise it (prlimit: Operation not permitted)`);
else console.log(`# flash_sale: open-file limit ${limits.soft} (hard ${limits.hard}), enough for N ${biggest}`);
console.log(`# flash_sale: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}, at least ${workers} load process(es), ${sourceCount} source addresses 127.0.0.1-${sourceCount}`);

// The BFF children of flash-topology.mjs (bench/lib/bff.mjs) export the process's default metrics
// with it, as `npm start` does with METRICS_TOKEN: the event-loop lag comes from /metrics.
process.env.BENCH_BFF_DEFAULT_METRICS = '1';
const topologyOf = await topologyModule();
const wanted = topologyArg === 'both' ? ['single', 'pair'] : [topologyArg];
const kinds = wanted.filter((k) => {
  if (topologyOf.kinds.includes(k)) return true;
  console.log(`# flash_sale: the ${topologyOf.name} topology has no '${k}': skipped`);
  if (topologyArg !== 'both') throw new Error(`topology '${k}' is not available (${topologyOf.name})`);
  return false;
});

const results = { single: [], pair: [] };
for (const kind of kinds) {
  // The pair: at the largest size asked (the goal's 50,000 across both instances).
  const ns = kind === 'pair' && !args.n ? [Math.max(...sizes)] : sizes;
  for (const n of ns) {
    let result = await run(topologyOf, kind, n);
    // The goal's size does not fit here: the largest that does (whole thousands), said as such.
    if (result.notRun && !args.n && n === Math.max(...ns) && result.fits >= 1000) {
      const smaller = Math.floor(result.fits / 1000) * 1000;
      console.log(`# flash_sale: ${kind} at N ${smaller} instead of ${n}, the most this machine's open-file limit allows`);
      result = await run(topologyOf, kind, smaller);
    }
    if (!result.notRun) results[kind].push(result);
  }
}
// How each figure grows with N (one instance), the sizes in order.
if (results.single.length > 1) {
  const rs = results.single;
  const series = (f, digits = 1) => rs.map((r) => (Number.isFinite(f(r)) ? f(r).toFixed(digits) : 'NaN')).join(',');
  console.log(`# flash_sale.by_n: N ${rs.map((r) => r.n).join(', ')}`);
  report('flash_sale.by_n.n', rs.map((r) => r.n).join(','), 'count');
  report('flash_sale.by_n.rss_mib', series((r) => r.rssMib), 'MiB');
  report('flash_sale.by_n.rss_per_conn_kib', series((r) => r.rssPerConnKib, 2), 'KiB');
  if (liveHeap) report('flash_sale.by_n.heap_per_conn_kib', series((r) => r.heapPerConnKib, 2), 'KiB');
  report('flash_sale.by_n.cpu_ms_per_conn', series((r) => r.cpuPerConn, 3), 'ms');
  report('flash_sale.by_n.cpu_ms_per_payment', series((r) => r.cpuPerPayment, 3), 'ms');
  report('flash_sale.by_n.paid_to_screen_p50_ms', series((r) => r.p50), 'ms');
  report('flash_sale.by_n.paid_to_screen_p99_ms', series((r) => r.p99), 'ms');
  report('flash_sale.by_n.paid_to_screen_max_ms', series((r) => r.max), 'ms');
  report('flash_sale.by_n.eventloop_delay_p99_ms', series((r) => r.lagP99), 'ms');
  report('flash_sale.by_n.requeries_per_s', series((r) => r.requeriesPerS), 'req/s');
  for (let k = 1; k < rs.length; k++) {
    const a = rs[k - 1];
    const b = rs[k];
    const g = `flash_sale.growth.n${a.n}_to_n${b.n}`;
    report(`${g}.rss_ratio`, b.rssMib / a.rssMib, 'ratio');
    report(`${g}.paid_to_screen_p99_ratio`, b.p99 / a.p99, 'ratio');
    report(`${g}.cpu_per_payment_ratio`, b.cpuPerPayment / a.cpuPerPayment, 'ratio');
    report(`${g}.eventloop_delay_p99_ratio`, b.lagP99 / a.lagP99, 'ratio');
  }
}
