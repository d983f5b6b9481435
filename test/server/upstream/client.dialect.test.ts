// A service configured differently from the sandbox's defaults (status codes, success code, signer
// module, path prefix, cancel and bind shapes), with the BFF configured only through its environment.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Hono } from 'hono';
import { createSandbox } from '../../../sandbox/sandbox.js';
import type { BillView, CreatedBillView } from '../../../contract/bill-view.js';
import { startMain } from '../support/child.js';
import sign from '../support/custom-signer.js';
import { freePort, serveOn } from '../support/servers.js';

const KEY = 'dialect-key-3391';
const SECRET = 'dialect-secret-77aa';
const ADMIN = 'dialect-admin-token-0123456789abcdef0123';

test('the BFF runs against a differently configured service, set up only through the environment', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bff-dialect-'));
  const sandbox = createSandbox({
    key: KEY, secret: SECRET, callbackRetryDelayMs: 50, sweepIntervalMs: 0, pageBase: 0,
    dialect: {
      okCode: 200,
      statuses: { pending: 10, paid: 20, failed: 30, cancelled: 40, expired: 50 },
      sign,
      cancel: { method: 'DELETE', path: '/v1/bills/{billId}' },
      bind: { method: 'PUT', path: '/v1/customers', idField: 'id' },
    },
  });
  const gateway = new Hono();
  gateway.route('/gateway/pay', sandbox.app);
  const served = await serveOn(gateway.fetch);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = startMain({
    PORT: String(port),
    PUBLIC_URL: base,
    BILL_API_BASE_URL: `${served.url}/gateway/pay`,
    BILL_API_KEY: KEY,
    BILL_API_SECRET: SECRET,
    BILL_SIGNER: './test/server/support/custom-signer.ts',
    BILL_API_OK_CODES: '200',
    BILL_PENDING_STATUSES: '10',
    BILL_PAID_STATUSES: '20',
    BILL_CANCELLED_STATUSES: '40',
    BILL_EXPIRED_STATUSES: '50',
    BILL_PAGE_BASE: '0',
    BILL_CANCEL_METHOD: 'DELETE',
    BILL_CANCEL_PATH: '/v1/bills/{billId}',
    BILL_CANCEL_BODY: 'none',
    BILL_BIND_METHOD: 'PUT',
    BILL_BIND_PATH: '/v1/customers',
    BILL_BIND_ID_FIELD: 'id',
    DATABASE_URL: `file:${join(dir, 'bff.sqlite')}`,
    CLIENT_AMOUNT_MIN: '1',
    CLIENT_AMOUNT_MAX: '100',
    ADMIN_TOKEN: ADMIN,
  });
  t.after(async () => {
    await child.kill('SIGKILL');
    sandbox.close();
    await served.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await child.ready;

  const create = async (amount: string) => {
    const res = await fetch(`${base}/api/bills`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ amount }) });
    assert.equal(res.status, 201, await res.clone().text());
    return (await res.json()) as CreatedBillView;
  };
  const read = async (bill: CreatedBillView) => (await (await fetch(`${base}/api/bills/${bill.billId}?token=${bill.token}`)).json()) as BillView;

  const paid = await create('10');
  // The first read answers at once from the store; the requery behind it brings the dialect's code.
  let first = await read(paid);
  assert.equal(first.outcome, 'pending');
  while (first.status === null) first = await read(paid);
  assert.equal(first.status, 10);
  assert.equal(first.outcome, 'pending');
  sandbox.pay(paid.billId);
  await sandbox.idle();
  const paidView = await read(paid);
  assert.equal(paidView.status, 20);
  assert.equal(paidView.outcome, 'paid');

  const declined = await create('11');
  sandbox.decline(declined.billId);
  await sandbox.idle();
  assert.equal((await read(declined)).outcome, 'failed');

  const cancelled = await create('12');
  const cancel = await fetch(`${base}/api/bills/${cancelled.billId}/cancel?token=${cancelled.token}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
  assert.equal(cancel.status, 200);
  assert.equal(((await cancel.json()) as BillView).outcome, 'cancelled');

  const admin = { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN}` };
  const bind = await fetch(`${base}/api/admin/customers`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Ada', phone: '+15550100' }) });
  assert.equal(bind.status, 200);
  assert.ok(((await bind.json()) as { customerId: string }).customerId);
  const page = await fetch(`${base}/api/admin/bills`, {
    method: 'POST', headers: admin, body: JSON.stringify({ paging: { index: 1, size: 2 }, sort: { name: 'billAmount', order: 1 } }),
  });
  const list = (await page.json()) as { lists: { billId: string; local: { outcome: string } | null }[]; total: number };
  assert.equal(list.total, 3);
  assert.deepEqual(list.lists.map((r) => [r.billId, r.local?.outcome]), [[paid.billId, 'paid'], [declined.billId, 'failed']]);
});
