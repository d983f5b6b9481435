// What goes over the wire: signed paths with the base URL's prefix, exact amounts both ways, and a
// service configured differently from the sandbox, used through the environment alone.
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Hono, type Context, type Next } from 'hono';
import { loadConfig } from '../../../server/config.js';
import { nodeHmacSha256 } from '../../../server/platform/node/hmac.js';
import {
  BillApiConfigError, builtInSigner, createBillApi, loadSigner, parseJsonLossless, type SignBase, type SignInput,
} from '../../../server/upstream/index.js';
import { listen } from '../../sandbox/support/harness.js';
import { noSend } from '../support/signer-input.js';


interface Seen { method: string; path: string; query: string; body: string; contentType: string | null; key: string | null }

/** What a signer is told of a request beyond its text (its time, nonce and id): the built-in HMACs sign none of it. */
const REQUEST = { operation: 'requery', timestampMs: 0, timestamp: '1970-01-01T00:00:00.000Z', nonce: 'n', requestId: 'r', send: noSend } as const;

/** Middleware that records each request and refuses it unless `expected(input)` equals its Sign. */
function verifying(seen: Seen[], expected: (input: SignBase) => string) {
  return async function verifySign(c: Context, next: Next) {
    const url = new URL(c.req.url);
    const body = await c.req.text();
    const input = { method: c.req.method, path: url.pathname, query: url.search.slice(1), body, key: 'k-1', secret: 's-1' };
    seen.push({ ...input, contentType: c.req.header('content-type') ?? null, key: c.req.header('key') ?? null });
    if (c.req.header('key') !== 'k-1' || c.req.header('sign') !== expected(input)) {
      return c.json({ code: 1002, message: 'bad Sign', data: null }, 401);
    }
    await next();
  };
}

const hmacHex = (i: SignBase) => createHmac('sha256', i.secret).update(`${i.method}\n${i.path}\n${i.query}\n${i.body}`).digest('hex');
const ENV = { BILL_API_KEY: 'k-1', BILL_API_SECRET: 's-1', BILL_API_RETRIES: '0' };

test('every request keeps the base URL prefix and is signed over method, path, query and body', async (t) => {
  const seen: Seen[] = [];
  const gateway = new Hono();
  gateway.use('*', verifying(seen, hmacHex));
  gateway.get('/v1/bill/requery', (c) => c.body(
    `{"code":0,"message":"OK","data":{"billId":${JSON.stringify(c.req.query('billId'))},"merchantReference":"M",` +
    '"requestReference":"","billAmount":"0010.50","currency":"USD","status":1,"statusName":"Pending Payment",' +
    '"isFinal":false,"dateTime":1,"note":"a \\"billAmount\\": 1.5 inside a string"}}',
    200, { 'Content-Type': 'application/json' },
  ));
  gateway.post('/v1/bill/cancel', (c) => c.json({ code: 0, message: 'OK', data: null }));
  gateway.post('/v1/customer/bind', (c) => c.json({ code: 0, message: 'OK', data: { customerId: 'C1', tier: 'gold' } }));
  const app = new Hono().route('/gateway', gateway);
  const base = `${await listen(t, app)}/gateway`;
  const api = createBillApi(loadConfig({ BILL_API_BASE_URL: base, ...ENV }).upstream, { signer: builtInSigner('hmac-sha256')!, pageBase: 1 });

  const record = await api.requeryBill('a/b c');
  assert.equal(record.billId, 'a/b c');
  assert.equal(record.billAmount, '10.5');
  assert.equal(record.requestReference, null, "'' is no reference");
  assert.equal(record.paymentReference, null, 'an absent reference is null');
  assert.ok(!('note' in record), 'unknown members are dropped');

  await api.cancelBill('x"y');
  const bound = await api.bindCustomer({ name: 'Ann', email: 'ann@example.com' });
  assert.deepEqual(bound, { customerId: 'C1', data: { customerId: 'C1', tier: 'gold' } });

  assert.deepEqual(seen.map(({ method, path, query }) => [method, path, query]), [
    ['GET', '/gateway/v1/bill/requery', 'billId=a%2Fb%20c'],
    ['POST', '/gateway/v1/bill/cancel', ''],
    ['POST', '/gateway/v1/customer/bind', ''],
  ]);
  assert.equal(seen[0]!.contentType, null, 'no Content-Type without a body');
  assert.equal(seen[1]!.body, '{"billId":"x\\"y"}');
  assert.equal(JSON.parse(seen[1]!.body).billId, 'x"y');
  assert.equal(seen[2]!.contentType, 'application/json');
  assert.deepEqual(JSON.parse(seen[2]!.body), { name: 'Ann', email: 'ann@example.com' });
});

test('amounts travel exactly: sent as a JSON number with the same digits, read back from numbers and strings', async (t) => {
  const seen: Seen[] = [];
  const app = new Hono();
  app.use('*', verifying(seen, hmacHex));
  app.post('/v1/bill/create', (c) => c.body(
    '{"code":0,"message":"OK","data":{"billId":"B1","billUrl":"http://s/pay/B1","billAmount":12345678901234567.89,' +
    '"requireGCAmount":154320987765432.0986,"currency":"USD","merchantReference":"M1","expiredOn":' + String(Date.now() + 900_000) + '}}',
    200, { 'Content-Type': 'application/json' },
  ));
  app.post('/v1/bills', (c) => c.body(
    '{"code":0,"message":"OK","data":{"total":2,"lists":[' +
    '{"billId":"B1","merchantReference":"M1","billAmount":"12345678901234567.89","currency":"USD","status":2,"statusName":"Paid","isFinal":true,"dateTime":5,"paymentReference":"P1"},' +
    '{"billId":"B2","merchantReference":"M1","billAmount":99999999999999999.99,"currency":"USD","status":1,"statusName":"Pending Payment","isFinal":false,"dateTime":4}]}}',
    200, { 'Content-Type': 'application/json' },
  ));
  const api = createBillApi(loadConfig({ BILL_API_BASE_URL: await listen(t, app), ...ENV }).upstream, { signer: builtInSigner('hmac-sha256')!, pageBase: 1 });

  const bill = await api.createBill({ amount: '12345678901234567.89', merchantReference: 'M1', callbackUrl: 'http://m/cb?x=1', redirectUrl: 'http://m/r' });
  assert.equal(seen[0]!.body, '{"amount":12345678901234567.89,"merchantReference":"M1","callbackUrl":"http://m/cb?x=1","redirectUrl":"http://m/r"}');
  assert.equal(seen[0]!.contentType, 'application/json');
  assert.equal(bill.billAmount, '12345678901234567.89');
  assert.equal(bill.requireGCAmount, '154320987765432.0986');

  await api.createBill({ amount: '10.50', callbackUrl: 'http://m/cb', redirectUrl: 'http://m/r' });
  assert.equal(seen[1]!.body, '{"amount":10.50,"callbackUrl":"http://m/cb","redirectUrl":"http://m/r"}', 'digits as given, no merchantReference when omitted');

  const { lists, total } = await api.listBills({ sort: { name: 'dateTime', order: -1 } });
  assert.equal(total, 2);
  assert.deepEqual(lists.map((r) => r.billAmount), ['12345678901234567.89', '99999999999999999.99']);
  assert.equal(lists[0]!.paymentReference, 'P1');
  assert.equal(seen[2]!.body, '{"sort":{"name":"dateTime","order":-1}}');
});

test('lossless parsing leaves look-alikes inside strings alone', () => {
  const text = '{"memo":"\\"billAmount\\": 1.25","billAmount" :\n 0.1000000000000000055511151231257827,"amounts":[1.5]}';
  assert.deepEqual(parseJsonLossless(text), { memo: '"billAmount": 1.25', billAmount: '0.1000000000000000055511151231257827', amounts: [1.5] });
});

test('built-in signers: hmac-sha256 is lower-case hex, hmac-sha256-base64 the same HMAC in base64', async () => {
  const input: SignInput = { method: 'POST', path: '/gw/v1/bills', query: '', body: '{"a":1}', key: 'k', secret: 'sec', ...REQUEST };
  const mac = createHmac('sha256', 'sec').update('POST\n/gw/v1/bills\n\n{"a":1}');
  const digest = mac.digest();
  assert.equal(await builtInSigner('hmac-sha256')!(input), digest.toString('hex'));
  assert.equal(await builtInSigner('hmac-sha256-base64')!(input), digest.toString('base64'));
  // The Node entry's node:crypto HMAC signs the same.
  assert.equal(await builtInSigner('hmac-sha256', nodeHmacSha256)!(input), digest.toString('hex'));
  assert.equal(await (await loadSigner('hmac-sha256-base64', () => Promise.reject(new Error('no module')), nodeHmacSha256))(input), digest.toString('base64'));
  assert.equal(builtInSigner('toString'), undefined);
});

test('loadSigner explains what BILL_SIGNER must be', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'signer-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const noFunction = join(dir, 'nothing.mjs');
  await writeFile(noFunction, 'export const sign = "not a function";\n');
  const importFile = (s: string) => import(pathToFileURL(s).href);

  const probe: SignInput = { method: 'GET', path: '/v1/bill', query: 'billId=1', body: '', key: 'k', secret: 's', ...REQUEST };
  assert.equal(await (await loadSigner('hmac-sha256', importFile))(probe), await builtInSigner('hmac-sha256')!(probe));
  await assert.rejects(loadSigner('hmac-sha512', importFile), (e: Error) => e instanceof BillApiConfigError && /Unknown BILL_SIGNER "hmac-sha512".*hmac-sha256, hmac-sha256-base64/.test(e.message));
  await assert.rejects(loadSigner(noFunction, importFile), (e: Error) => e instanceof BillApiConfigError && /exports no sign function.*default/.test(e.message));
  await assert.rejects(loadSigner(join(dir, 'missing.mjs'), importFile), (e: Error) => e instanceof BillApiConfigError && /could not be loaded/.test(e.message));
});

test('a service configured differently works through the environment alone', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'signer-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const modulePath = join(dir, 'my-signer.mjs');
  await writeFile(modulePath, [
    "import { createHash } from 'node:crypto';",
    'export default async function sign({ method, path, query, body, key, secret }) {',
    "  return createHash('sha256').update([key, secret, method, path, query, body].join('|')).digest('hex');",
    '}',
  ].join('\n'));
  const expected = (i: SignBase) => createHash('sha256').update([i.key, i.secret, i.method, i.path, i.query, i.body].join('|')).digest('hex');

  const bills = ['B1', 'B2', 'B3', 'B4', 'B5'].map((billId, n) => ({
    billId, merchantReference: n === 2 ? 'OTHER' : 'ORDER-7', requestReference: null, paymentReference: null,
    billAmount: `${n + 1}.00`, currency: 'EUR', status: 10, statusName: 'Open', isFinal: false, dateTime: n,
  }));
  const seen: Seen[] = [];
  const svc = new Hono();
  svc.use('*', verifying(seen, expected));
  svc.post('/v1/bills', async (c) => {
    const { paging } = parseJsonLossless(seen.at(-1)!.body) as { paging: { index: number; size: number } };
    const size = Math.min(paging.size, 2); // this service caps pages at 2
    const page = bills.slice(paging.index * size, paging.index * size + size); // pages from 0
    return c.json({ code: 200, message: 'success', data: { lists: page, total: bills.length } });
  });
  svc.get('/v1/bill/requery', (c) => c.json({ code: 200, message: 'success', data: bills[0] }));
  svc.delete('/v2/bills/:billId', (c) => {
    assert.equal(c.req.param('billId'), 'B 1/x');
    return c.body(null, 204);
  });
  svc.put('/v3/customers', (c) => c.json({ code: 200, message: 'success', data: { id: 77 } }));
  const base = `${await listen(t, new Hono().route('/api/gw', svc))}/api/gw`;

  const config = loadConfig({
    ...ENV,
    BILL_API_BASE_URL: base,
    BILL_SIGNER: modulePath,
    BILL_API_OK_CODES: '200',
    BILL_PAGE_BASE: '0',
    BILL_CANCEL_METHOD: 'delete',
    BILL_CANCEL_PATH: '/v2/bills/{billId}',
    BILL_CANCEL_BODY: 'none',
    BILL_BIND_METHOD: 'PUT',
    BILL_BIND_PATH: '/v3/customers',
    BILL_BIND_ID_FIELD: 'id',
    BILL_PAGE_SIZE: '50',
  });
  const signer = await loadSigner(config.upstream.signer, (s) => import(pathToFileURL(s).href));
  const api = createBillApi(config.upstream, { signer, pageBase: config.pageBase });

  assert.equal((await api.requeryBill('B1')).billAmount, '1');
  const found = await api.findByMerchantReference('ORDER-7');
  assert.deepEqual(found.map((r) => r.billId), ['B1', 'B2', 'B4', 'B5']);
  const pages = seen.filter((s) => s.path.endsWith('/v1/bills')).map((s) => JSON.parse(s.body) as { paging: unknown; filters: unknown });
  // BILL_PAGE_SIZE asked for; a service that silently caps the page lower is still read to the end.
  assert.deepEqual(pages.map((p) => p.paging), [0, 1, 2].map((index) => ({ index, size: 50 })));
  assert.deepEqual(pages[0]!.filters, [{ name: 'merchantReference', value: 'ORDER-7', matchType: 'equal' }]);

  await api.cancelBill('B 1/x');
  const cancel = seen.find((s) => s.method === 'DELETE')!;
  assert.equal(cancel.path, '/api/gw/v2/bills/B%201%2Fx');
  assert.equal(cancel.body, '');
  assert.equal(cancel.contentType, null);

  assert.deepEqual(await api.bindCustomer({ name: 'Bo', phone: '+100' }), { customerId: '77', data: { id: 77 } });
  assert.ok(seen.every((s) => s.key === 'k-1'));
});

test('a cancel body template that is not JSON is refused when the client is made', () => {
  const config = loadConfig({ BILL_API_BASE_URL: 'http://127.0.0.1:9', BILL_CANCEL_BODY: 'billId={billId}' }).upstream;
  assert.throws(() => createBillApi(config, { signer: builtInSigner('hmac-sha256')!, pageBase: 1 }), /BILL_CANCEL_BODY/);
});
