// A BFF in its own process (forked by spawn.mjs), so that the load generator does not share its
// event loop. Configuration comes in BENCH_BFF (JSON); commands come over IPC.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import process from 'node:process';
import { Hono } from 'hono';
import { startBff } from './bff.mjs';
import { listen } from './listen.mjs';
import { monoMs } from './common.mjs';

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
      await profiler.post('Profiler.start');
      return null;
    }
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    const file = join(process.env.BENCH_CPU_PROF, `phase-${process.pid}-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    return file;
  },
  memory() {
    globalThis.gc?.();
    globalThis.gc?.();
    return process.memoryUsage();
  },
  setBare({ body }) {
    bareBody = body;
    return true;
  },
  callbackArrivals() {
    return callbackArrivals.splice(0);
  },
  streams: () => bff.app.hub.size(),
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
    setTimeout(() => process.exit(0), 0);
    return true;
  },
};

process.on('message', async ({ id, cmd, args }) => {
  try {
    process.send({ id, result: await commands[cmd](args ?? {}) });
  } catch (error) {
    process.send({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
process.send({ ready: true, url: bff.url, bareUrl: bare?.url ?? null, pid: process.pid });
