// One error class per cause, each telling the reader what to change, none leaking the secret.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { Hono } from 'hono';
import { loadConfig } from '../../../server/config.js';
import {
  BillApiAuthError, BillApiError, BillApiHttpError, BillApiRejectedError, BillApiResponseError, BillApiSignerError,
  builtInSigner, createBillApi, type Signer,
} from '../../../server/upstream/index.js';
import { nodeHttpClient } from '../../../server/platform/node/http-client.js';
import { listen } from '../../sandbox/support/harness.js';

const SECRET = 'TOP-SECRET-do-not-leak';


/** A service whose every route answers `respond()`. */
async function service(t: TestContext, respond: () => Response) {
  const app = new Hono();
  app.all('*', () => respond());
  return listen(t, app);
}

const json = (body: unknown, status = 200) => Response.json(body, { status });

async function caught(promise: Promise<unknown>): Promise<BillApiError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof BillApiError, `expected a BillApiError, got ${String(err)}`);
    assert.ok(!err.message.includes(SECRET), `secret leaked in: ${err.message}`);
    return err;
  }
  assert.fail('expected the call to fail');
}

// Every test runs over both HTTP clients: the web default (undici's fetch) and the Node entry's nodeHttpClient.
for (const [via, fetchImpl] of [['fetch', undefined], ['node:http', nodeHttpClient()]] as const) {
  function api(base: string, signer: Signer = builtInSigner('hmac-sha256')!) {
    const config = loadConfig({ BILL_API_BASE_URL: base, BILL_API_SECRET: SECRET, BILL_API_RETRIES: '0' }).upstream;
    return createBillApi(config, { signer, pageBase: 1, ...(fetchImpl ? { http: fetchImpl } : {}) });
  }

  test(`401 and 403 are BillApiAuthError, pointing at key, secret and signer (${via})`, async (t) => {
    const with401 = await service(t, () => json({ code: 1002, message: 'bad Sign', data: null }, 401));
    const err = await caught(api(with401).requeryBill('B1'));
    assert.ok(err instanceof BillApiAuthError);
    assert.equal(err.httpStatus, 401);
    assert.equal(err.code, 1002);
    assert.equal(err.retryable, false);
    assert.match(err.message, /BILL_API_KEY.*BILL_API_SECRET.*BILL_SIGNER/);

    const with403 = await service(t, () => new Response('Forbidden', { status: 403 }));
    const bare = await caught(api(with403).listBills({}));
    assert.ok(bare instanceof BillApiAuthError);
    assert.equal(bare.code, null);
  });

  test(`other non-2xx without an envelope is BillApiHttpError with the status and a hint (${via})`, async (t) => {
    const base = await service(t, () => new Response('<html>Not Found</html>', { status: 404, headers: { 'Content-Type': 'text/html' } }));
    const err = await caught(api(base).requeryBill('B1'));
    assert.ok(err instanceof BillApiHttpError);
    assert.equal(err.httpStatus, 404);
    assert.match(err.message, /BILL_API_BASE_URL/);

    const moved = await service(t, () => new Response(null, { status: 301, headers: { Location: 'https://elsewhere/v1/bills' } }));
    const redirect = await caught(api(moved).listBills({}));
    assert.ok(redirect instanceof BillApiHttpError);
    assert.match(redirect.message, /elsewhere.*BILL_API_BASE_URL/);
  });

  test(`an envelope code outside BILL_API_OK_CODES is BillApiRejectedError with code and message (${via})`, async (t) => {
    const base = await service(t, () => json({ code: 1004, message: 'bill not found', data: null }, 404));
    const err = await caught(api(base).requeryBill('nope'));
    assert.ok(err instanceof BillApiRejectedError);
    assert.equal(err.code, 1004);
    assert.equal(err.serviceMessage, 'bill not found');
    assert.equal(err.httpStatus, 404);
    assert.doesNotMatch(err.message, /BILL_API_OK_CODES|BILL_SIGNER/);
  });

  test(`a refusal that reads like success suggests BILL_API_OK_CODES (${via})`, async (t) => {
    const base = await service(t, () => json({ code: 200, message: 'success', data: { lists: [], total: 0 } }));
    const err = await caught(api(base).listBills({}));
    assert.ok(err instanceof BillApiRejectedError);
    assert.equal(err.code, 200);
    assert.match(err.message, /add it to BILL_API_OK_CODES \(now "0"\)/);
  });

  test(`a refusal about the signature, on HTTP 200, points at BILL_SIGNER and BILL_API_SECRET (${via})`, async (t) => {
    const base = await service(t, () => json({ code: 40001, message: 'Invalid signature', data: null }));
    const err = await caught(api(base).requeryBill('B1'));
    assert.ok(err instanceof BillApiRejectedError);
    assert.match(err.message, /BILL_API_SECRET/);
    assert.match(err.message, /BILL_SIGNER \(now "hmac-sha256"\)/);
    assert.doesNotMatch(err.message, /BILL_API_OK_CODES/);
  });

  test(`a service that echoes the secret back does not get it into a message (${via})`, async (t) => {
    const base = await service(t, () => json({ code: 1002, message: `expected secret ${SECRET}`, data: null }));
    const err = await caught(api(base).requeryBill('B1'));
    assert.match(err.message, /\[redacted\]/);
  });

  test(`a 2xx that is not JSON, or not an envelope, is BillApiResponseError (${via})`, async (t) => {
    const html = await service(t, () => new Response('<html>maintenance</html>', { status: 200 }));
    const notJson = await caught(api(html).requeryBill('B1'));
    assert.ok(notJson instanceof BillApiResponseError);
    assert.equal(notJson.field, null);
    assert.match(notJson.message, /not JSON/);

    const noCode = await service(t, () => json({ status: 'ok' }));
    const bad = await caught(api(noCode).requeryBill('B1'));
    assert.ok(bad instanceof BillApiResponseError);
    assert.equal(bad.field, 'code');
  });

  test(`a field of the wrong shape is named in BillApiResponseError (${via})`, async (t) => {
    const record = {
      billId: 'B1', merchantReference: 'M', requestReference: null, paymentReference: null, billAmount: 'ten',
      currency: 'USD', status: 1, statusName: 'Pending Payment', isFinal: false, dateTime: 1,
    };
    const base = await service(t, () => json({ code: 0, message: 'OK', data: { lists: [record, record], total: 2 } }));
    const err = await caught(api(base).listBills({}));
    assert.ok(err instanceof BillApiResponseError);
    assert.equal(err.field, 'data.lists[0].billAmount');
    assert.match(err.message, /data\.lists\[0\]\.billAmount/);
    assert.equal(err.outcomeUnknown, false);

    const created = await caught(api(base).createBill({ amount: '1', callbackUrl: 'http://m/c', redirectUrl: 'http://m/r' }));
    assert.ok(created instanceof BillApiResponseError);
    assert.equal(created.outcomeUnknown, true, 'a 2xx create answer we cannot read may still have made a bill');
  });

  test(`bind without the configured id field names BILL_BIND_ID_FIELD (${via})`, async (t) => {
    const base = await service(t, () => json({ code: 0, message: 'OK', data: { id: 'C9' } }));
    const err = await caught(api(base).bindCustomer({ name: 'Ann', email: 'a@x' }));
    assert.ok(err instanceof BillApiResponseError);
    assert.equal(err.field, 'data.customerId');
    assert.match(err.message, /BILL_BIND_ID_FIELD/);
  });

  test(`a failing or silent signer is BillApiSignerError and nothing is sent (${via})`, async (t) => {
    let calls = 0;
    const base = await service(t, () => {
      calls++;
      return json({ code: 0, message: 'OK', data: null });
    });
    const throws = await caught(api(base, ({ secret }) => {
      throw new Error(`no HSM for ${secret}`);
    }).requeryBill('B1'));
    assert.ok(throws instanceof BillApiSignerError);
    const empty = await caught(api(base, () => '').cancelBill('B1'));
    assert.ok(empty instanceof BillApiSignerError);
    assert.match(empty.message, /must return the Sign header value/);
    assert.equal(calls, 0);
  });

  test(`createBill refuses an amount that is not decimal text before sending (${via})`, async (t) => {
    let calls = 0;
    const base = await service(t, () => {
      calls++;
      return json({});
    });
    await assert.rejects(api(base).createBill({ amount: '12,50', callbackUrl: 'http://m/c', redirectUrl: 'http://m/r' }), TypeError);
    assert.equal(calls, 0);
  });
}
