// The topology of a flash sale (issue 44 items 1 and 3), for bench/flash-sale.mjs:
// - 'single': one BFF (SQLite) in a child process;
// - 'pair': two BFFs on one throwaway PostgreSQL cluster, behind nginx from Debian running the
//   deploy example `docs/deploy/nginx.conf` itself (rendered: its ${NAME} variables substituted).
// Either way the sandbox of the service and the merchant's webhook receiver run in a child of their
// own (sandbox-child.mjs), so the bench process is left to the load generator. The sandbox's
// callbacks go to the BFFs' PUBLIC_URL (nginx for 'pair'); each BFF signs its notices with a secret.
// Limits: the bench process's RLIMIT_NOFILE is raised (prlimit, root) before anything is started, so
// every child inherits it; for 'pair' the loopback's ephemeral port range is widened when it is
// narrower than 1024–65535 (nginx's upstream connections all come from 127.0.0.1: 50,000 streams
// moved to one instance need 50,000 ports toward it) and put back by close().
import { execFileSync, fork, spawn } from 'node:child_process';
import { Buffer } from 'node:buffer';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/support/ports.mjs';
import { spawnBff } from './spawn.mjs';
import { commandCaller } from './ipc.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SANDBOX_CHILD = fileURLToPath(new URL('./sandbox-child.mjs', import.meta.url));
const PG_SCRIPT = join(root, 'scripts/pg-test-cluster.sh');
export const KINDS = ['single', 'pair'];
/** The deploy example the 'pair' topology runs. */
export const NGINX_TEMPLATE = join(root, 'docs/deploy/nginx.conf');
export const METRICS_TOKEN = 'flash-sale-metrics-token-0123456789abcdef';
export const WEBHOOK_SECRET = 'whsec_' + Buffer.from('flash-sale-webhook-secret-32-by!').toString('base64');
/** Debian's nginx (in /usr/sbin, which a non-root PATH may lack). */
export const NGINX = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
const PORT_RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';
const WIDE_PORT_RANGE = '1024 65535';
/**
 * BILL_API_MAX_RPS as a share of the service's limit: the budget is a token bucket with a tenth of a
 * second's burst, so it may send rate × 1.1 within one of the sandbox's fixed 1-s windows; 0.88 leaves
 * that burst and some 35 ms of jitter at the window's edges inside the limit (0 refusals possible).
 */
const BUDGET_SHARE = 0.88;

// ---- limits --------------------------------------------------------------------------------------

/** RLIMIT_NOFILE (soft) of a process, from /proc. */
function nofileOf(pid) {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  return Number(line?.trim().split(/\s+/)[3]);
}

/**
 * Raises RLIMIT_NOFILE of `pid` (default: this process) to `n`, soft and hard, with util-linux's
 * prlimit (Node cannot setrlimit itself). Raising the hard limit needs CAP_SYS_RESOURCE: root has it
 * on a plain host, not in every container (this one's bounding set lacks it: prlimit answers "Operation
 * not permitted"); then the soft limit is raised to the hard one, and `raised` is false with the
 * reason. Children forked afterwards inherit the limit. Returns { nofile, before, wanted, raised, reason }.
 */
export function raiseLimits(n = 200_000, pid = process.pid) {
  const before = nofileOf(pid);
  if (before >= n) return { nofile: before, before, wanted: n, raised: true, reason: null };
  let reason = null;
  try {
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=${n}:${n}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    reason = `prlimit --nofile=${n}:${n}: ${error.stderr?.toString().trim() || error.message}` +
      (hasCapability(pid, CAP_SYS_RESOURCE) ? '' : ' (no CAP_SYS_RESOURCE: the hard limit cannot be raised here)');
    // At least the soft limit up to the hard one (Node does that at start-up already).
    const hard = hardNofileOf(pid);
    if (hard > before) {
      try {
        execFileSync('prlimit', ['--pid', String(pid), `--nofile=${hard}:${hard}`], { stdio: 'ignore' });
      } catch {
        // leave it
      }
    }
  }
  const nofile = nofileOf(pid);
  return { nofile, before, wanted: n, raised: nofile >= n, reason };
}

const CAP_SYS_RESOURCE = 24;

function hasCapability(pid, bit) {
  const m = /^CapEff:\s+([0-9a-f]+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? ((BigInt('0x' + m[1]) >> BigInt(bit)) & 1n) === 1n : false;
}

function hardNofileOf(pid) {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  return Number(line?.trim().split(/\s+/)[4]);
}

/** Widens the ephemeral port range to 1024–65535 (root); returns { before, now, note (why not), restore() }. */
export function widenPortRange() {
  const before = readFileSync(PORT_RANGE_FILE, 'utf8').trim().split(/\s+/).join(' ');
  const [low, high] = before.split(' ').map(Number);
  if (low <= 1024 && high >= 65535) return { before, now: before, note: null, restore() {} };
  try {
    writeFileSync(PORT_RANGE_FILE, WIDE_PORT_RANGE);
  } catch (error) {
    // Not root (or a read-only /proc/sys): as it is; a smoke run's few streams do not need it.
    return { before, now: before, note: `${PORT_RANGE_FILE} left as it is: ${error.code ?? error.message}`, restore() {} };
  }
  let restored = false;
  return {
    before,
    now: readFileSync(PORT_RANGE_FILE, 'utf8').trim().split(/\s+/).join(' '),
    note: null,
    restore() {
      if (restored) return;
      restored = true;
      writeFileSync(PORT_RANGE_FILE, before.replace(' ', '\t'));
    },
  };
}

// ---- /proc ---------------------------------------------------------------------------------------

/** VmRSS of a live process, bytes (0 once it is gone). */
export function rssBytesOf(pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** utime + stime of a live process, ms (USER_HZ 100); null once it is gone. */
export function cpuMsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** The pids whose parent is `pid` (nginx's workers). */
function childrenOf(pid) {
  const out = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'latin1');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(p));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// ---- helpers -------------------------------------------------------------------------------------

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForPort(port, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not listen on 127.0.0.1:${port} within ${ms} ms`);
    await sleep(20);
  }
}

/** Forks the sandbox child; resolves once it listens. */
function startSandboxChild(setup) {
  const proc = fork(SANDBOX_CHILD, [], {
    env: { ...process.env, BENCH_SANDBOX: JSON.stringify(setup) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const { call, answer } = commandCaller(proc);
  const received = [];
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`the sandbox child exited (${code}) before it was ready`)));
    proc.on('message', (msg) => {
      if (msg.webhooks) {
        for (const w of msg.webhooks) received.push(w);
        return;
      }
      if (msg.ready) {
        proc.removeAllListeners('exit');
        resolve({
          url: msg.url, webhookUrl: msg.webhookUrl, pid: msg.pid, proc, call, received,
          async close() {
            if (proc.exitCode !== null || proc.signalCode !== null) return;
            const exited = new Promise((res) => proc.once('exit', res));
            await call('exit').catch(() => undefined);
            await exited;
          },
        });
        return;
      }
      answer(msg);
    });
  });
}

/**
 * The deploy example with its ${NAME} variables replaced by `values` (every one must be given: an
 * unreplaced variable throws). nginx's own $variables are left alone: only ${UPPER_CASE} is ours.
 */
export function renderNginxConf(values, template = readFileSync(NGINX_TEMPLATE, 'utf8')) {
  const missing = new Set();
  const text = template.replace(/\$\{([A-Z][A-Z0-9_]*)\}/g, (whole, name) => {
    if (!(name in values)) {
      missing.add(name);
      return whole;
    }
    return String(values[name]);
  });
  if (missing.size) throw new Error(`docs/deploy/nginx.conf: no value for ${[...missing].join(', ')}`);
  return text;
}

/** A self-signed certificate for the template's ssl_certificate lines (the bench listens without TLS). */
function selfSignedCert(dir) {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert, key };
}

/** nginx from Debian, in the foreground (never a daemon), a master and its workers; resolves once it listens. */
async function startNginx({ port, upstreams, dir, template = NGINX_TEMPLATE }) {
  const runDir = join(dir, 'run');
  const tempDir = join(dir, 'temp');
  const logDir = join(dir, 'log');
  mkdirSync(runDir, { recursive: true });
  mkdirSync(tempDir, { recursive: true });
  mkdirSync(logDir, { recursive: true });
  // The workers run as the template's `user` (www-data) when the master is root: they write the temp files.
  if (process.getuid?.() === 0) {
    try {
      const uid = Number(execFileSync('id', ['-u', 'www-data']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'www-data']).toString().trim());
      chownSync(tempDir, uid, gid);
    } catch {
      chmodSync(tempDir, 0o777);
    }
  }
  const { cert, key } = selfSignedCert(dir);
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, renderNginxConf({
    LISTEN: `127.0.0.1:${port} backlog=4096`,
    SERVER_NAME: 'localhost',
    BFF_1: upstreams[0],
    BFF_2: upstreams[1],
    TLS_CERT: cert,
    TLS_KEY: key,
    RUN_DIR: runDir,
    TEMP_DIR: tempDir,
    LOG_DIR: logDir,
  }, readFileSync(template, 'utf8')));
  const args = ['-p', dir, '-c', conf, '-e', join(logDir, 'error.log'), '-g', 'daemon off; master_process on;'];
  try {
    execFileSync(NGINX, ['-t', '-q', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    if (error.code === 'ENOENT') throw new Error("the 'pair' topology needs nginx: apt-get install nginx (Debian's; .ci/run installs it)");
    throw new Error(`nginx -t refused the rendered ${conf}: ${error.stderr?.toString().trim() || error.message}`);
  }
  const proc = spawn(NGINX, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  await Promise.race([
    waitForPort(port, 10_000, 'nginx'),
    exited.then(({ code }) => { throw new Error(`nginx exited (${code}); see ${join(logDir, 'error.log')}`); }),
  ]);
  const pids = () => [proc.pid, ...childrenOf(proc.pid)];
  return {
    pid: proc.pid,
    conf,
    accessLog: join(logDir, 'access.log'),
    errorLog: join(logDir, 'error.log'),
    url: `http://127.0.0.1:${port}`,
    /** Master and workers. */
    rssBytes: () => pids().reduce((sum, p) => sum + rssBytesOf(p), 0),
    cpuMs: () => pids().reduce((sum, p) => sum + (cpuMsOf(p) ?? 0), 0),
    /** Access log lines (its format is `upstreams` of the template: status, upstream addresses and statuses, times). */
    accessLines: () => {
      try {
        return readFileSync(join(logDir, 'access.log'), 'utf8').split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
    killNow() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      for (const w of childrenOf(proc.pid)) {
        try {
          process.kill(w, 'SIGKILL');
        } catch {
          // gone
        }
      }
    },
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      // SIGTERM: fast shutdown (SIGQUIT would wait for every open event stream to end).
      proc.kill('SIGTERM');
      const done = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
      if (!done) this.killNow();
    },
  };
}

/** A throwaway PostgreSQL cluster (scripts/pg-test-cluster.sh). */
function startCluster(settings) {
  const out = execFileSync('bash', [PG_SCRIPT, 'start', ...Object.entries(settings).map(([k, v]) => `${k}=${v}`)]).toString();
  const url = /^DATABASE_URL=(.+)$/m.exec(out)?.[1];
  const dir = /^PGTEST_DIR=(.+)$/m.exec(out)?.[1];
  if (!url || !dir) throw new Error(`pg-test-cluster.sh printed no URL:\n${out}`);
  let stopped = false;
  return {
    url,
    dir,
    stopSync() {
      if (stopped) return;
      stopped = true;
      execFileSync('bash', [PG_SCRIPT, 'stop', dir], { stdio: 'ignore' });
    },
  };
}

// ---- the topology --------------------------------------------------------------------------------

/**
 * options:
 * - kind: 'single' (one BFF, SQLite) or 'pair' (two BFFs on one PostgreSQL behind nginx);
 * - env: more BFF configuration (wins over the defaults below);
 * - sandboxFaults: the sandbox's faults, e.g. { rateLimit: { requery: 300 } };
 * - callbackRetryDelayMs: between a callback's 6 attempts (default 1000, the sandbox's own: the
 *   service's is not documented; 200 gave up within 1 s, while nginx counts an instance out for 10 s);
 * - nofile: RLIMIT_NOFILE to raise to (default 200,000);
 * - budgetSplit: 'shared' (default for 'pair': BILL_API_SHARED_MAX_RPS, the service's limit divided
 *   among the instances alive on the PostgreSQL, so a survivor takes a dead one's share), 'share'
 *   (each instance BILL_API_MAX_RPS = its fixed share of the limit) or 'whole' (each the whole limit:
 *   together they may pass it and learn from 429s);
 * - nginxTemplate: another nginx.conf to render in place of docs/deploy/nginx.conf (an experiment);
 * - widenPorts: widen the ephemeral port range (default: for 'pair'; it is the whole network
 *   namespace's setting, put back by close() or at exit).
 */
export async function startTopology({ kind = 'single', env = {}, sandboxFaults = {}, callbackRetryDelayMs = 1000, nofile = 200_000, widenPorts = kind === 'pair', budgetSplit = kind === 'pair' ? 'shared' : 'share', nginxTemplate = NGINX_TEMPLATE, nodeFlags = [] } = {}) {
  if (kind !== 'single' && kind !== 'pair') throw new Error(`startTopology: kind must be 'single' or 'pair', got ${kind}`);
  const cleanups = [];
  // Run at process exit too (a bench that throws or calls process.exit), synchronously.
  const cleanupSync = () => {
    while (cleanups.length) {
      try {
        cleanups.pop()();
      } catch {
        // best effort
      }
    }
  };
  process.once('exit', cleanupSync);
  // Ctrl-C or a kill: nginx, the BFFs, the cluster and the port range are not left behind.
  const onSignal = (signal) => {
    cleanupSync();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const unhook = () => {
    process.removeListener('exit', cleanupSync);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  };

  const raised = raiseLimits(nofile);
  const raisedLimits = {
    nofile: raised.nofile, nofileBefore: raised.before, nofileWanted: raised.wanted, nofileRaised: raised.raised, nofileNote: raised.reason,
    portRange: null, portRangeBefore: null,
  };
  if (widenPorts) {
    const range = widenPortRange();
    raisedLimits.portRange = range.now;
    raisedLimits.portRangeBefore = range.before;
    raisedLimits.portRangeNote = range.note;
    cleanups.push(() => range.restore());
  }

  let sandbox = null;
  const instances = [];
  let nginx = null;
  let cluster = null;
  const dir = mkdtempSync(join(tmpdir(), 'flash-topology-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  try {
    sandbox = await startSandboxChild({ faults: sandboxFaults, callbackRetryDelayMs });
    // The service is not on our cores: the sandbox goes first when the box is saturated, so that its
    // 1-s windows count requests when they were sent, not when a starved loop got to them (root).
    try {
      execFileSync('renice', ['-n', '-10', '-p', String(sandbox.pid)], { stdio: 'ignore' });
    } catch {
      // not root: as it is
    }
    cleanups.push(() => {
      if (sandbox.proc.exitCode === null) sandbox.proc.kill('SIGKILL');
    });

    const limit = sandboxFaults?.rateLimit?.requery;
    const count = kind === 'pair' ? 2 : 1;
    // Each instance's share of the service's limit (docs/server.md, BILL_API_MAX_RPS).
    const shared = budgetSplit === 'shared' && kind === 'pair';
    const budgetRps = limit ? Math.max(1, Math.floor((limit * BUDGET_SHARE) / (budgetSplit === 'share' ? count : 1))) : null;
    const nginxPort = kind === 'pair' ? await freePort() : null;
    const publicUrl = nginxPort ? `http://127.0.0.1:${nginxPort}` : null;
    const bffEnv = {
      // A flash sale: every customer creates; tens of thousands watch.
      CREATE_RATE_LIMIT_PER_MINUTE: '100000000',
      MAX_SSE_CONNECTIONS: '120000',
      MAX_SSE_PER_CLIENT: '120000',
      METRICS_TOKEN,
      MERCHANT_WEBHOOK_URL: sandbox.webhookUrl,
      MERCHANT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      ...(budgetRps ? { [shared ? 'BILL_API_SHARED_MAX_RPS' : 'BILL_API_MAX_RPS']: String(budgetRps) } : {}),
      ...(kind === 'pair' ? { PUBLIC_URL: publicUrl, TRUSTED_PROXY_HOPS: '1', NOTICE_LEASE_MS: '2000' } : {}),
      ...env,
    };

    if (kind === 'pair') {
      // Two pools of 10 and a LISTEN session each; room for the bench's own sessions.
      cluster = startCluster({ max_connections: '200' });
      cleanups.push(() => cluster.stopSync());
      bffEnv.DATABASE_URL = cluster.url;
    }

    for (let i = 0; i < count; i++) {
      // One after the other: the second finds the schema migrated.
      const bff = await spawnBff({ upstreamUrl: sandbox.url, env: bffEnv, nodeFlags });
      const inst = {
        pid: bff.pid,
        url: bff.url,
        killed: false,
        call: (cmd, args) => bff.call(cmd, args),
        rssBytes: () => rssBytesOf(bff.pid),
        cpuMs: () => cpuMsOf(bff.pid),
        alive: () => !inst.killed && alive(bff.pid),
        async metrics() {
          const r = await fetch(`${bff.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
          if (!r.ok) throw new Error(`GET ${bff.url}/metrics: ${r.status}`);
          return r.text();
        },
        /** SIGKILL: no drain, no goodbye to its streams; resolves once it is gone. */
        async kill() {
          if (inst.killed) return;
          inst.killed = true;
          process.kill(bff.pid, 'SIGKILL');
          while (alive(bff.pid) && readStateOf(bff.pid) !== 'Z') await sleep(5);
        },
        async close() {
          if (inst.killed || !alive(bff.pid)) return;
          await Promise.race([bff.close(), sleep(10_000)]);
          if (alive(bff.pid)) process.kill(bff.pid, 'SIGKILL');
        },
      };
      instances.push(inst);
      cleanups.push(() => {
        if (alive(bff.pid)) process.kill(bff.pid, 'SIGKILL');
      });
    }

    if (kind === 'pair') {
      nginx = await startNginx({ port: nginxPort, upstreams: instances.map((b) => new URL(b.url).host), dir, template: nginxTemplate });
      cleanups.push(() => nginx.killNow());
    }

    const url = kind === 'pair' ? nginx.url : instances[0].url;
    // What the open files limit lets through: every stream is a socket of its BFF (all of them on
    // the survivor after a failover) and two of an nginx worker's (the client's, the upstream's),
    // which bounds the pair first. nginx spreads connections over its workers unevenly, and a
    // failover adds a poll beside each dropped stream: at 19,000 open one worker reached 19,755
    // files of 20,000 and the dropped streams came back after 4 s or more. So the pair is sized for
    // one worker holding them all.
    const spare = 300; // the store, the pools, the listening sockets, the BFF's own files
    raisedLimits.maxStreams = kind === 'pair' ? Math.floor((raisedLimits.nofile - 100) / 2) : raisedLimits.nofile - spare;
    return {
      kind,
      url,
      sandboxUrl: sandbox.url,
      /** Pays a bill in the sandbox (over IPC: no socket of the bench's). */
      pay: (billId) => sandbox.call('pay', { billId }),
      payMany: (billIds) => sandbox.call('payMany', { billIds }),
      /** The sandbox's counts (cheap): { calls, throttled (429s), per operation; callbacks { attempts, ok, failed, statuses }; webhooks }. */
      stats: () => sandbox.call('counts'),
      /** Requeries, 429s and creates per second of the sandbox's clock: [{ second, requery, throttled, create }]. */
      perSecond: (since) => sandbox.call('perSecond', { since }),
      /** The sandbox's whole stats() (per bill and per attempt: large). */
      fullStats: () => sandbox.call('stats'),
      setFaults: (faults) => sandbox.call('setFaults', { faults }),
      /** Waits for the sandbox's callbacks under way to end. */
      callbacksIdle: () => sandbox.call('idle'),
      sandbox: { pid: sandbox.pid, rssBytes: () => rssBytesOf(sandbox.pid), cpuMs: () => cpuMsOf(sandbox.pid) },
      webhook: {
        url: sandbox.webhookUrl,
        secret: WEBHOOK_SECRET,
        /** Every delivery so far ({ id: webhook-id, billId, body, signed }), as of the last 50-ms batch. */
        received: () => sandbox.received,
        /** The same, after the receiver's latest batch has arrived. */
        async settled() {
          await sandbox.call('flushWebhooks');
          return sandbox.received;
        },
      },
      instances,
      nginx,
      databaseUrl: cluster?.url ?? null,
      budgetRps,
      bffEnv,
      raisedLimits,
      async close() {
        await Promise.all(instances.map((b) => b.close()));
        await nginx?.stop();
        await sandbox.close();
        unhook();
        cleanupSync();
      },
    };
  } catch (error) {
    unhook();
    cleanupSync();
    throw error;
  }
}

/** A process's state letter (R, S, Z…), or null once it is gone. */
function readStateOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}
