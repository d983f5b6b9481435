// What the BFF refuses to start with, and what `npm start` on the embedded sandbox serves (issue 13):
// short secrets, an order lookup without tickets, production on the sandbox, passwords in URLs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { ConfigError, loadConfig } from '../../../server/config.js';
import { ticketPolicy } from '../../../server/domain/orders/ticket-policy.js';
import { createSandbox } from '../../../sandbox/sandbox.js';
import { bestSqliteDriver } from '../../../server/store/sqlite/driver.js';
import type { CreatedBillView } from '../../../contract/bill-view.js';
import { startMain } from '../support/child.js';
import { freePort, serveOn } from '../support/servers.js';

const LONG = 'x'.repeat(32);
const json = { 'Content-Type': 'application/json' };

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail(`started with ${JSON.stringify(env)}`);
}

test('start-up refuses short secrets, an order lookup without tickets, and production on the sandbox', () => {
  const real = { BILL_API_BASE_URL: 'https://bills.example/api', BILL_API_KEY: 'k', BILL_API_SECRET: 's' };
  assert.match(refusal({ ...real, ADMIN_TOKEN: 'a' }), /ADMIN_TOKEN must be at least 32 characters/);
  assert.match(refusal({ ...real, ADMIN_TOKEN: 'x'.repeat(31) }), /it has 31/);
  assert.match(refusal({ ...real, ORDER_TICKET_SECRET: 'short' }), /ORDER_TICKET_SECRET must be at least 32 characters/);
  assert.match(refusal({ ...real, ORDER_LOOKUP_URL: 'https://shop.example/orders' }), /ORDER_LOOKUP_URL is set without ORDER_TICKET_SECRET/);
  assert.match(refusal({ NODE_ENV: 'production' }), /BILL_API_BASE_URL is unset/);
  assert.match(refusal({ NODE_ENV: 'production', ORDER_LOOKUP_URL: 'https://shop.example/orders' }), /BILL_API_BASE_URL/);

  // What they accept.
  assert.equal(loadConfig({ ...real, ADMIN_TOKEN: LONG }).adminToken, LONG);
  const tickets = loadConfig({ ...real, ORDER_TICKET_SECRET: LONG, ORDER_LOOKUP_URL: 'https://shop.example/orders' });
  assert.equal(ticketPolicy(tickets, false).kind, 'required');
  assert.equal(ticketPolicy(loadConfig({ ORDER_LOOKUP_URL: 'https://shop.example/orders' }), false).kind, 'demo', 'the demo on the sandbox');
  assert.equal(ticketPolicy(loadConfig(real), true).kind, 'hook', 'a resolveOrder hook that authorizes from the request');
  assert.equal(ticketPolicy(loadConfig(real), false).kind, 'refused');
  assert.match(refusal({ ...real, NODE_ENV: 'production' }), /RETURN_URL is unset/);
  assert.equal(loadConfig({ ...real, NODE_ENV: 'production', RETURN_URL: 'https://shop.example/thanks' }).production, true);
});

test('a URL with a password is never echoed: not in a configuration error, not in the start-up log', async (t) => {
  const message = refusal({ BILL_API_BASE_URL: 'ftp://merchant:hunter2-password@bills.example/api' });
  assert.match(message, /BILL_API_BASE_URL must be an http\(s\) URL/);
  assert.ok(!message.includes('hunter2'), message);

  const sandbox = createSandbox({ key: 'k-startup', secret: 's-startup', sweepIntervalMs: 0 });
  const served = await serveOn((req) => sandbox.app.fetch(req));
  const dir = mkdtempSync(join(tmpdir(), 'bff-startup-'));
  const port = await freePort();
  const base = new URL(served.url);
  base.username = 'merchant';
  base.password = 'hunter2-password';
  const child = startMain({
    PORT: String(port), BILL_API_BASE_URL: base.href, BILL_API_KEY: 'k-startup', BILL_API_SECRET: 's-startup',
    DATABASE_URL: `file:${join(dir, 'db.sqlite')}`,
  });
  t.after(async () => {
    await child.kill('SIGKILL');
    sandbox.close();
    await served.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await child.ready;
  assert.match(child.output(), /"upstream":"http:\/\/127\.0\.0\.1:\d+\/?"/);
  assert.ok(!child.output().includes('hunter2'), child.output());
});

test('NODE_ENV=production without BILL_API_BASE_URL: npm start refuses, naming the variable', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bff-startup-'));
  const child = startMain({ NODE_ENV: 'production', PORT: String(await freePort()), DATABASE_URL: `file:${join(dir, 'db.sqlite')}` });
  try {
    await assert.rejects(child.ready, /exited \(1\) before listening/);
    assert.match(child.output(), /Configuration error: BILL_API_BASE_URL is unset/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('in production the BFF serves no demo: its / says what runs, no demo page or route answers, and it refuses to start without RETURN_URL', async (t) => {
  const sandbox = createSandbox({ key: 'k-prod', secret: 's-prod', sweepIntervalMs: 0 });
  const served = await serveOn((req) => sandbox.app.fetch(req));
  const dir = mkdtempSync(join(tmpdir(), 'bff-production-'));
  t.after(async () => {
    sandbox.close();
    await served.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const env = {
    NODE_ENV: 'production', BILL_API_BASE_URL: served.url, BILL_API_KEY: 'k-prod', BILL_API_SECRET: 's-prod',
    DATABASE_URL: `file:${join(dir, 'db.sqlite')}`,
  };

  const refused = startMain({ ...env, PORT: String(await freePort()) });
  await assert.rejects(refused.ready, /exited \(1\) before listening/);
  assert.match(refused.output(), /Configuration error: RETURN_URL is unset/);

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = startMain({ ...env, PORT: String(port), PUBLIC_URL: base, RETURN_URL: 'https://shop.example/thanks' });
  t.after(() => child.kill('SIGKILL'));
  await child.ready;
  for (const path of ['/', '/?billId=B1&orderId=1042&outcome=paid']) {
    const page = await fetch(`${base}${path}`);
    assert.equal(page.status, 200, path);
    const html = await page.text();
    assert.match(html, /A checkout's backend runs here/, path);
    assert.doesNotMatch(html, /Northwind|1042|npm run build/, path);
  }
  for (const path of ['/index.html', '/plain.html', '/admin.html', '/admin', '/react.html', '/variants.html', '/demo/orders']) {
    assert.equal((await fetch(`${base}${path}`)).status, 404, path);
  }
  assert.equal((await fetch(`${base}/demo/orders`, { method: 'POST', headers: json, body: '{}' })).status, 404);
  assert.ok(!child.output().includes('ORDER_TICKET_SECRET is unset'), 'no demo ticket warning in production');
});

async function embedded(t: TestContext, env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bff-startup-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = startMain({ PORT: String(port), PUBLIC_URL: base, DATABASE_URL: `file:${join(dir, 'db.sqlite')}`, ...env });
  t.after(async () => {
    await child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  await child.ready;
  return { base, child };
}

test('on the embedded sandbox: one warning line, tickets minted for the demo and checked when given, bodies limited', async (t) => {
  const { base, child } = await embedded(t, { BODY_LIMIT_BYTES: '4096' });
  const warnings = child.output().split('\n').filter((l) => l.includes('ORDER_TICKET_SECRET is unset'));
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /"level":"warn"/);
  assert.match(child.output(), /"upstream":"embedded sandbox \(not live: no real payments\)"/);
  const started = child.output().split('\n').find((l) => l.includes('"bill-checkout listening on '));
  assert.ok(started, child.output());
  // The same runtime as this test's: the SQLite it picks is the one this process would.
  assert.equal((JSON.parse(started) as { databaseDriver?: string }).databaseDriver, bestSqliteDriver(), 'the start-up line names the SQLite driver');

  // The demo's server mints an order of the visitor's own, with its ticket.
  const minted = await fetch(`${base}/demo/orders`, { method: 'POST', headers: json, body: '{"product":"tee"}' });
  assert.equal(minted.status, 201);
  const order = (await minted.json()) as { orderId: string; orderTicket: string; amount: string };
  assert.match(order.orderId, /^demo-tee-[a-z0-9]+$/);
  assert.match(order.orderTicket, /^\d+\.[A-Za-z0-9_-]{43}$/);
  const other = (await (await fetch(`${base}/demo/orders`, { method: 'POST', headers: json, body: '{}' })).json()) as { orderId: string };
  assert.notEqual(other.orderId, order.orderId);

  const create = (body: Record<string, unknown>) => fetch(`${base}/api/bills`, { method: 'POST', headers: json, body: JSON.stringify(body) });
  const ok = await create({ orderId: order.orderId, orderTicket: order.orderTicket });
  assert.equal(ok.status, 201);
  assert.equal(((await ok.json()) as CreatedBillView).billAmount, '24.00');
  // A ticket is checked whenever one is given…
  const forged = await create({ orderId: other.orderId, orderTicket: order.orderTicket });
  assert.equal(forged.status, 403);
  // …while a page without one still works on the sandbox (ORDER_TICKET_SECRET unset).
  assert.equal((await create({ orderId: other.orderId })).status, 201);

  // The sandbox's bodies have the /api limit; its control routes exist here (not in production).
  const big = await fetch(`${base}/sandbox/v1/bill/create`, { method: 'POST', headers: json, body: JSON.stringify({ pad: 'x'.repeat(8_000) }) });
  assert.equal(big.status, 413);
  assert.equal((await fetch(`${base}/sandbox/_control/stats`)).status, 200);
});

test('a heap too small for MAX_SSE_CONNECTIONS is said at start, with both ways out; a cap it holds is not', async (t) => {
  // 64 MiB of old space: with the young generation Node 20 adds (48 MiB) or Node 24 (192 MiB), the
  // heap holds far fewer open checkouts than the default cap of 20,000.
  const small = await embedded(t, { NODE_OPTIONS: '--max-old-space-size=64' });
  const lines = small.child.output().split('\n').filter((l) => l.includes('MAX_SSE_CONNECTIONS is 20000'));
  assert.equal(lines.length, 1, small.child.output());
  const warning = JSON.parse(lines[0]!) as { level: string; msg: string };
  assert.equal(warning.level, 'warn');
  const heapMib = Number(/heap \(limit (\d+) MiB\)/.exec(warning.msg)?.[1]);
  assert.ok(heapMib >= 64 && heapMib < 512, warning.msg);
  const holds = Number(/holds about (\d+) open checkouts/.exec(warning.msg)?.[1]);
  assert.ok(holds > 0 && holds < 20_000, warning.msg);
  assert.match(warning.msg, /--max-old-space-size=\d+ or more/);
  assert.match(warning.msg, /or lower MAX_SSE_CONNECTIONS/);
  const started = JSON.parse(small.child.output().split('\n').find((l) => l.includes('listening on'))!) as { heapLimitMib?: number };
  assert.equal(started.heapLimitMib, heapMib, 'the start-up line says the heap\'s limit');

  // The same heap with a cap it holds: no warning.
  const held = await embedded(t, { NODE_OPTIONS: '--max-old-space-size=64', MAX_SSE_CONNECTIONS: String(Math.floor(holds / 2)) });
  assert.ok(!held.child.output().includes('open checkouts'), held.child.output());
});

test('with ORDER_TICKET_SECRET set, even the embedded sandbox takes orders only with a valid ticket', async (t) => {
  const { base, child } = await embedded(t, { ORDER_TICKET_SECRET: LONG });
  assert.ok(!child.output().includes('ORDER_TICKET_SECRET is unset'));
  const order = (await (await fetch(`${base}/demo/orders`, { method: 'POST', headers: json, body: '{}' })).json()) as { orderId: string; orderTicket: string };
  const create = (body: Record<string, unknown>) => fetch(`${base}/api/bills`, { method: 'POST', headers: json, body: JSON.stringify(body) });
  assert.equal((await create({ orderId: order.orderId })).status, 403);
  assert.equal((await create({ orderId: order.orderId, orderTicket: order.orderTicket })).status, 201);
});

test('a sandbox without controls has no /_control routes', async () => {
  const sandbox = createSandbox({ controls: false, sweepIntervalMs: 0 });
  for (const path of ['/_control/stats', '/_control/faults']) {
    assert.equal((await sandbox.app.request(path)).status, 404, path);
  }
  assert.equal((await sandbox.app.request('/_control/bills/B1/pay', { method: 'POST' })).status, 404);
  sandbox.close();
  const open = createSandbox({ sweepIntervalMs: 0 });
  assert.equal((await open.app.request('/_control/stats')).status, 200);
  open.close();
});

test('SIGTERM to `npm start` stops the server: npm passes no signal on, the server sees its npm go and closes', { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'npm-start-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  // --ignore-scripts: the server from its sources (no prestart build); the same start script.
  const npm = spawn('npm', ['start', '--ignore-scripts'], {
    cwd: fileURLToPath(new URL('../../../', import.meta.url)),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), DATABASE_URL: `file:${join(dir, 'db.sqlite')}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening on')) resolve();
    };
    npm.stdout!.on('data', onData);
    npm.stderr!.on('data', onData);
    npm.once('exit', () => reject(new Error(`npm start exited before listening:\n${output}`)));
  });
  assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
  // The server holds npm's output pipes: they close when the last of the two processes has exited.
  const closed = Promise.all([once(npm.stdout!, 'close'), once(npm.stderr!, 'close')]);
  npm.kill('SIGTERM');
  await closed;
  assert.match(output, /"msg":"stopping","signal":"SIGTERM"/);
  assert.equal(await fetch(`http://127.0.0.1:${port}/healthz`).then(() => 'up', () => 'gone'), 'gone');
});
