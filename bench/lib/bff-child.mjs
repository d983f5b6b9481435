// A BFF in its own process (forked by spawn.mjs), so that the load generator does not share its
// event loop. Configuration comes in BENCH_BFF (JSON); commands come over IPC.
import { Buffer } from 'node:buffer';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import process from 'node:process';
import { getHeapStatistics } from 'node:v8';
import { Hono } from 'hono';
import { startBff } from './bff.mjs';
import { listen } from './listen.mjs';
import { monoMs } from './common.mjs';
import { importServer } from './server-modules.mjs';
import { serveCommands } from './ipc.mjs';

const setup = JSON.parse(process.env.BENCH_BFF ?? '{}');
const callbackArrivals = [];
const bff = await startBff({
  upstreamUrl: setup.upstreamUrl,
  env: setup.env ?? {},
  log: 'stdout',
  onRequest: (req) => {
    if (req.method === 'POST' && req.url.includes('/api/hooks/callback/')) callbackArrivals.push(monoMs());
  },
});

// A bare Hono JSON route in the same process, the yardstick of status reads.
let bareBody = { ok: true };
const bareApp = new Hono();
bareApp.get('/api/bills/:billId', (c) => {
  c.header('Cache-Control', 'no-store');
  return c.json(bareBody);
});
const bare = setup.bare ? await listen((req) => bareApp.fetch(req)) : null;

// The floor under the fan-out (setup.floor): a bare node:http server holding SSE answers with the
// BFF's own headers and first frame (floorSetup, copied from one of its streams), which writes the
// BFF's final frame to all of them at once and ends them (floorBroadcast), as the BFF does on a
// final status. The same process, the same core, the same sockets' kernel work: what is left over
// it is ours.
let floorHeaders = [];
let floorFirst = Buffer.alloc(0);
let held = new Set();
const floor = setup.floor ? await new Promise((resolve) => {
  const server = http.createServer((req, res) => {
    res.writeHead(200, floorHeaders);
    res.write(floorFirst);
    held.add(res);
    const set = held;
    res.on('close', () => set.delete(res));
  });
  server.keepAliveTimeout = bff.config.keepAliveTimeoutMs;
  server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => resolve(server));
}) : null;

// When the hub published (the refresher, once the status is stored) and when its last listener
// returned: the time the BFF itself spends writing the final frame to every watcher.
// The frame of the last final view published: the floor's final frame, byte for byte.
const publishes = [];
const publish = bff.internals.hub.publish;
const { statusFrame } = await importServer('server/http/sse/streams.ts');
let lastFinalFrame = null;
const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
bff.internals.hub.publish = (view, version) => {
  const at = monoMs();
  const cpu = cpuUs();
  publish(view, version);
  publishes.push({ at, done: monoMs(), cpuMs: (cpuUs() - cpu) / 1000, billId: view.billId, isFinal: view.isFinal });
  if (view.isFinal) lastFinalFrame = statusFrame(view, version);
};

// A CPU profile of one phase of a bench (BENCH_CPU_PROF=DIR): `profile {start: true}`, then `profile {}` writes it.
let profiler = null;

const commands = {
  cpu: () => process.cpuUsage(),
  async profile({ start }) {
    if (!process.env.BENCH_CPU_PROF) return null;
    if (start) {
      profiler = new Session();
      profiler.connect();
      await profiler.post('Profiler.enable');
      if (process.env.BENCH_CPU_PROF_US) await profiler.post('Profiler.setSamplingInterval', { interval: Number(process.env.BENCH_CPU_PROF_US) });
      await profiler.post('Profiler.start');
      return null;
    }
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    const file = join(process.env.BENCH_CPU_PROF, `phase-${process.pid}-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    return file;
  },
  heapLimit: () => ({ heapLimit: getHeapStatistics().heap_size_limit }),
  memory() {
    globalThis.gc?.();
    globalThis.gc?.();
    return { ...process.memoryUsage(), ...commands.heapLimit() };
  },
  floorSetup({ headers, first }) {
    floorHeaders = headers.flat();
    floorFirst = Buffer.from(first, 'latin1');
    return true;
  },
  floorSize: () => held.size,
  floorBroadcast() {
    const frame = lastFinalFrame;
    const at = monoMs();
    const cpu = cpuUs();
    const all = held;
    held = new Set();
    for (const res of all) res.end(frame);
    return { at, done: monoMs(), cpuMs: (cpuUs() - cpu) / 1000, count: all.size };
  },
  publishes() {
    return publishes.splice(0);
  },
  setBare({ body }) {
    bareBody = body;
    return true;
  },
  callbackArrivals() {
    return callbackArrivals.splice(0);
  },
  streams: () => bff.internals.hub.size(),
  async finals({ billIds }) {
    let final = 0;
    for (const billId of billIds) {
      const bill = await bff.store.getByBillId(billId);
      if (bill?.isFinal) final++;
    }
    return final;
  },
  async exit() {
    await bff.close();
    await bare?.close();
    floor?.closeAllConnections();
    floor?.close();
    setTimeout(() => process.exit(0), 0);
    return true;
  },
};

serveCommands(commands);
process.send({
  ready: true, url: bff.url, bareUrl: bare?.url ?? null, floorUrl: floor ? `http://127.0.0.1:${floor.address().port}` : null, pid: process.pid,
});
// The bench process gone (killed, crashed): this BFF goes too, rather than listen on for nobody.
process.on('disconnect', () => process.exit(0));
