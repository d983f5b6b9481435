// HTTP as the edges speak it (issue 42, item 2): a service behind an edge that compresses every
// answer (gzip, deflate, brotli) is read, its creates and their settling work; a body that does not
// decode is an unreadable answer, never "not JSON" from compressed bytes; an edge that closes each
// connection (Connection: close) costs nothing but a new socket.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { nodeHttpClient } from '../../../server/platform/node/http-client.js';
import { BillApiResponseError } from '../../../server/upstream/errors.js';
import { createBillApi, type BillApi } from '../../../server/upstream/index.js';
import type { UpstreamConfig } from '../../../server/upstream/types.js';
import { startHarness } from '../support/harness.js';
import { serveOn } from '../support/servers.js';

for (const coding of ['gzip', 'deflate', 'br'] as const) {
  test(`a service whose edge answers ${coding} always: creates, reads and a lost create's settling by list all work`, async (t) => {
    const h = await startHarness(t, { sandbox: { faults: { compress: coding } } });
    const bill = await h.create({ amount: '12.50' });
    const read = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`);
    assert.equal(read.status, 200);
    // The answer lost after the bill was made: settled by listing our reference, over the compressed list.
    h.sandbox.setFaults({ createResetAfterMade: 1 });
    const again = await h.create({ amount: '13.50' });
    assert.notEqual(again.billId, bill.billId);
    assert.equal(h.sandbox.stats().calls.list, 1);
    assert.ok(!h.logs.some((line) => line.includes('not JSON')), 'no answer read as text');
    await h.sandbox.idle();
    await h.refreshed();
  });
}

const CONFIG: UpstreamConfig = {
  baseUrl: 'http://127.0.0.1:9', key: 'k', secret: 's', signer: 'hmac-sha256', okCodes: [0], timeoutMs: 2000, retries: 0, pageSize: 20,
  maxRps: null, maxRpsByOperation: {}, cancel: { method: 'POST', path: '/v1/bill/cancel', body: '{"billId":"{billId}"}' },
  bind: { method: 'POST', path: '/v1/customer/bind', idField: 'customerId' },
};

const record = { billId: 'B1', merchantReference: 'r', requestReference: '', paymentReference: '', billAmount: '1.00', currency: 'USD', status: 1, statusName: 'Pending Payment', isFinal: false, dateTime: 1 };

async function client(t: Parameters<typeof startHarness>[0], answer: (req: Request) => Response): Promise<{ api: BillApi; asked: string[] }> {
  const asked: string[] = [];
  const server = await serveOn((req) => {
    asked.push(req.headers.get('accept-encoding') ?? '');
    return answer(req);
  });
  t.after(() => server.close());
  const api = createBillApi({ ...CONFIG, baseUrl: server.url }, { signer: () => 'sig', pageBase: 1, http: nodeHttpClient() });
  return { api, asked };
}

test('a body sent as gzip that does not decode is an unreadable answer, never "not JSON" from its bytes', async (t) => {
  const { api, asked } = await client(t, () => new Response('this is not gzip at all', { headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' } }));
  await assert.rejects(api.requeryBill('B1'), (error: unknown) => {
    assert.ok(error instanceof BillApiResponseError, String(error));
    assert.match(error.message, /Content-Encoding "gzip", does not decode/);
    assert.doesNotMatch(error.message, /not JSON/);
    return true;
  });
  assert.equal(asked[0], 'gzip, deflate, br', 'it asks for what it decodes');
});

test('an encoding the client cannot undo is an unreadable answer too', async (t) => {
  const { api } = await client(t, () => new Response('{}', { headers: { 'content-encoding': 'zstd' } }));
  await assert.rejects(api.requeryBill('B1'), (error: unknown) => error instanceof BillApiResponseError && /"zstd"/.test(error.message));
});

test('an edge that closes every connection (Connection: close) and compresses: every call answered, none on a closed socket', async (t) => {
  const body = JSON.stringify({ code: 0, message: 'OK', data: record });
  const { api, asked } = await client(t, () =>
    new Response(gzipSync(body), { headers: { connection: 'close', 'content-encoding': 'gzip', 'content-type': 'application/json' } }));
  for (let i = 0; i < 5; i++) assert.equal((await api.requeryBill('B1')).billId, 'B1');
  assert.equal(asked.length, 5, 'one request each, none retried');
});
