// The BFF as it runs in production (server/main.ts, its own process) against a sandbox served here.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Hono } from 'hono';
import { createSandbox } from '../../../sandbox/sandbox.js';
import { openStore } from '../../../server/store/open-store.js';
import type { CreatedBillView } from '../../../contract/bill-view.js';
import { startMain } from '../support/child.js';
import type { Child } from '../support/child.js';
import { freePort, serveOn } from '../support/servers.js';

const KEY = 'restart-key-71c2';
const SECRET = 'restart-secret-c0ffee42';
const WEBHOOK_SECRET = 'whsec_' + Buffer.from('restart-webhook-secret-32-bytes!').toString('base64');

test('killed with SIGKILL while callbacks arrive, the restarted BFF loses nothing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bff-restart-'));
  const sandbox = createSandbox({ key: KEY, secret: SECRET, callbackRetryDelayMs: 400, sweepIntervalMs: 0 });
  const sandboxServer = await serveOn((req) => sandbox.app.fetch(req));

  const webhookIds = new Map<string, Set<string>>();
  let allNotified: () => void = () => undefined;
  const notified = new Promise<void>((resolve) => (allNotified = resolve));
  let expected = Infinity;
  const merchant = new Hono();
  merchant.post('/hook', async (c) => {
    const body = (await c.req.json()) as { data?: { billId?: string }; billId?: string };
    const billId = body.data?.billId ?? body.billId ?? '?';
    const ids = webhookIds.get(billId) ?? new Set<string>();
    ids.add(c.req.header('webhook-id') ?? '');
    webhookIds.set(billId, ids);
    if (webhookIds.size >= expected) allNotified();
    return c.body(null, 204);
  });
  const merchantServer = await serveOn(merchant.fetch);

  const port = await freePort();
  const env = {
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    BILL_API_BASE_URL: sandboxServer.url,
    BILL_API_KEY: KEY,
    BILL_API_SECRET: SECRET,
    DATABASE_URL: `file:${join(dir, 'bff.sqlite')}`,
    CLIENT_AMOUNT_MIN: '1',
    CLIENT_AMOUNT_MAX: '100',
    MERCHANT_WEBHOOK_URL: `${merchantServer.url}/hook`,
    MERCHANT_WEBHOOK_SECRET: WEBHOOK_SECRET,
    // A notice being sent when the process died is taken again after this lease.
    NOTICE_LEASE_MS: '1000',
  };
  let child: Child = startMain(env);
  const outputs: (() => string)[] = [child.output];
  t.after(async () => {
    await child.kill('SIGKILL');
    sandbox.close();
    await Promise.all([sandboxServer.close(), merchantServer.close()]);
    rmSync(dir, { recursive: true, force: true });
  });
  await child.ready;

  const bills: CreatedBillView[] = [];
  for (let i = 0; i < 8; i++) {
    const res = await fetch(`${env.PUBLIC_URL}/api/bills`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ amount: String(10 + i) }),
    });
    assert.equal(res.status, 201);
    bills.push((await res.json()) as CreatedBillView);
  }
  expected = bills.length;

  sandbox.setFaults({ callbackDelayMs: [0, 300] });
  const firstDelivered = new Promise<void>((resolve) => {
    sandbox.events.addEventListener('callback', (e) => {
      if ((e as CustomEvent<{ outcome: string }>).detail.outcome === 'ok') resolve();
    });
  });
  for (const bill of bills) sandbox.pay(bill.billId);
  await firstDelivered;
  await child.kill('SIGKILL');

  child = startMain(env);
  outputs.push(child.output);
  await child.ready;
  await sandbox.idle();
  await notified;

  const attempts = sandbox.stats().callbacks;
  assert.ok(attempts.some((a) => a.outcome === 'network-error'), 'some callbacks hit the dead BFF');
  const store = await openStore(env.DATABASE_URL);
  try {
    for (const bill of bills) assert.equal((await store.getByBillId(bill.billId))?.outcome, 'paid', bill.billId);
  } finally {
    await store.close();
  }
  for (const bill of bills) assert.equal(webhookIds.get(bill.billId)?.size, 1, `one webhook-id for ${bill.billId}`);

  await child.kill('SIGTERM');
  assert.equal(child.process.exitCode, 0);
  const printed = outputs.map((o) => o()).join('\n');
  assert.match(printed, /listening on/);
  for (const secret of [KEY, SECRET, WEBHOOK_SECRET]) assert.ok(!printed.includes(secret));
});
