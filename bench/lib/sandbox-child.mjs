// The sandbox of the service and the merchant's webhook receiver in a process of their own (forked
// by flash-topology.mjs), so that neither shares an event loop with the load generator nor with a
// BFF. Configuration comes in BENCH_SANDBOX (JSON: { faults, callbackRetryDelayMs }); commands come
// over IPC. Every webhook delivery is sent to the parent as it arrives (batched every 50 ms).
import { Buffer } from 'node:buffer';
import http from 'node:http';
import process from 'node:process';
import { listen } from './listen.mjs';
import { importServer } from './server-modules.mjs';
import { serveCommands } from './ipc.mjs';

const setup = JSON.parse(process.env.BENCH_SANDBOX ?? '{}');
const { createSandbox } = await importServer('sandbox/sandbox.ts');

// Counted here rather than read from sandbox.stats(), which clones its per-bill and per-attempt lists
// (50,000 bills' worth) at each call: requests per operation and 429s, in all and per second of the
// sandbox's clock (its rate-limit windows), and the callbacks' attempts by how they ended.
const OPS = [['/v1/bill/requery', 'requery'], ['/v1/bill/create', 'create'], ['/v1/bills', 'list'], ['/v1/bill/cancel', 'cancel'], ['/v1/customer/bind', 'bind']];
const zero = () => ({ create: 0, list: 0, requery: 0, cancel: 0, bind: 0 });
const calls = zero();
const throttled = zero();
const callbacks = { attempts: 0, ok: 0, failed: 0, statuses: {} };
const perSecond = new Map();
const tally = (second, key) => {
  let row = perSecond.get(second);
  if (!row) perSecond.set(second, (row = { requery: 0, throttled: 0, create: 0 }));
  if (key in row) row[key]++;
};
const opOf = (url) => {
  const path = url.slice(url.indexOf('/', url.indexOf('//') + 2)).split('?')[0];
  for (const [prefix, op] of OPS) if (path === prefix) return op;
  return null;
};
const countedFetch = async (input, init) => {
  callbacks.attempts++;
  try {
    const res = await fetch(input, init);
    if (res.status === 200) callbacks.ok++;
    else callbacks.failed++;
    callbacks.statuses[res.status] = (callbacks.statuses[res.status] ?? 0) + 1;
    return res;
  } catch (error) {
    callbacks.failed++;
    callbacks.statuses['network-error'] = (callbacks.statuses['network-error'] ?? 0) + 1;
    throw error;
  }
};

let sandbox = null;
const served = await listen(async (req) => {
  const op = opOf(req.url);
  const second = Math.floor(Date.now() / 1000);
  if (op) {
    calls[op]++;
    tally(second, op);
  }
  const res = await sandbox.app.fetch(req);
  if (op && res.status === 429) {
    throttled[op]++;
    tally(second, 'throttled');
  }
  return res;
});
sandbox = createSandbox({
  publicUrl: served.url,
  // No sweep timer: 50,000 pending bills would be walked every second; reads expire bills lazily.
  sweepIntervalMs: 0,
  callbackRetryDelayMs: setup.callbackRetryDelayMs ?? 1000,
  fetch: countedFetch,
  ...(setup.faults ? { faults: setup.faults } : {}),
});

// The merchant: plain node:http. Each delivery: its webhook-id, the bill it is about, its body.
let pending = [];
let deliveries = 0;
const receiver = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    deliveries++;
    pending.push({ id: req.headers['webhook-id'] ?? null, billId: body?.data?.billId ?? null, body, signed: Boolean(req.headers['webhook-signature']) });
    res.writeHead(204).end();
  });
});
receiver.keepAliveTimeout = 65_000;
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const flush = () => {
  if (pending.length === 0) return;
  const batch = pending;
  pending = [];
  process.send({ webhooks: batch });
};
const flusher = setInterval(flush, 50);

/** The counts above: { calls, throttled (429s), per operation; callbacks { attempts, ok, failed, statuses }; webhooks }. */
function counts() {
  return { calls, throttled, callbacks, webhooks: deliveries };
}

const commands = {
  pay({ billId }) {
    sandbox.pay(billId);
    return true;
  },
  /** Pays each bill; an unknown or already final one is counted, not thrown. */
  payMany({ billIds }) {
    let paid = 0;
    const failed = [];
    for (const billId of billIds) {
      try {
        sandbox.pay(billId);
        paid++;
      } catch (error) {
        failed.push({ billId, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return { paid, failed };
  },
  counts,
  /** [{ second (unix), requery, throttled, create }], oldest first; `since` (unix s) leaves out older ones. */
  perSecond: ({ since = 0 }) => [...perSecond].filter(([second]) => second >= since).map(([second, row]) => ({ second, ...row })),
  /** The sandbox's own stats() (per bill and per attempt: large, and cloned at each call). */
  stats: () => sandbox.stats(),
  setFaults({ faults }) {
    sandbox.setFaults(faults);
    return sandbox.faults();
  },
  cpu: () => process.cpuUsage(),
  /** Waits until the callbacks under way have ended. */
  idle: () => sandbox.idle().then(() => true),
  flushWebhooks() {
    flush();
    return deliveries;
  },
  async exit() {
    clearInterval(flusher);
    flush();
    sandbox.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    await served.close();
    setTimeout(() => process.exit(0), 0);
    return true;
  },
};

serveCommands(commands);
process.on('disconnect', () => process.exit(0));
process.send({ ready: true, url: served.url, webhookUrl: `http://127.0.0.1:${receiver.address().port}/hook`, pid: process.pid });
