// The signed webhook POST of one notice (server/domain/notify/webhook-post.ts): Standard Webhooks
// headers, one signature per secret, the payload, and what the delivery log keeps of the answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toBillNotice } from '../../../../server/domain/bill-view.js';
import { excerpt, postWebhook, RESPONSE_EXCERPT_BYTES, WebhookRefused, type WebhookPayload } from '../../../../server/domain/notify/webhook-post.js';
import { verifyWebhook } from '../../../../server/domain/notify/webhook-signature.js';
import type { HttpClient, HttpRequest } from '../../../../server/upstream/types.js';
import { storedBill } from '../../support/unit.js';

const OLD = `whsec_${Buffer.from('an old secret of 32 bytes......!').toString('base64')}`;
const NEW = `whsec_${Buffer.from('a new secret of 32 bytes.......!').toString('base64')}`;
const NOW = Date.parse('2030-05-01T12:00:00.750Z');
const FINAL_AT = Date.parse('2030-05-01T11:59:00Z');
const view = toBillNotice(storedBill({ status: 2, statusName: 'Paid', isFinal: true, outcome: 'paid', orderId: 'order-7', orderAmount: '10' }), true);

function merchant(status: number, text = 'ok') {
  const sent: { url: string; request: HttpRequest }[] = [];
  const post: HttpClient = async (url, request) => {
    sent.push({ url, request });
    return { status, headers: new Headers(), text: async () => text };
  };
  return { post, sent };
}

test('the notice goes to the configured URL, signed with every secret, id and timestamp in the headers, never following a redirect', async () => {
  const { post, sent } = merchant(200);
  const config = { url: 'https://shop.example/hooks/bills', secret: NEW, secrets: [NEW, OLD] };
  assert.deepEqual(await postWebhook(config, { id: 'msg_1' }, view, FINAL_AT, { post, now: () => NOW, timeoutMs: 5_000 }), { httpStatus: 200, response: 'ok' });
  assert.equal(sent.length, 1);
  const { url, request } = sent[0]!;
  assert.equal(url, 'https://shop.example/hooks/bills');
  assert.deepEqual([request.method, request.redirect], ['POST', 'manual']);
  const headers = request.headers as Record<string, string>;
  assert.equal(headers['content-type'], 'application/json');
  assert.equal(headers['webhook-id'], 'msg_1');
  assert.equal(headers['webhook-timestamp'], String(Math.floor(NOW / 1000)));
  const signatures = headers['webhook-signature']!.split(' ');
  assert.equal(signatures.length, 2);
  for (const [i, secret] of [NEW, OLD].entries()) {
    assert.ok(await verifyWebhook({ secret, id: 'msg_1', timestamp: headers['webhook-timestamp']!, signature: signatures[i]!, body: request.body as string, now: NOW }), `signed with secret ${i}`);
  }
  const payload = JSON.parse(request.body as string) as WebhookPayload;
  assert.deepEqual(payload, { type: 'bill.final', timestamp: '2030-05-01T11:59:00.000Z', livemode: true, data: JSON.parse(JSON.stringify(view)) });
});

test('one secret configured: one signature', async () => {
  const { post, sent } = merchant(204, '');
  assert.deepEqual(await postWebhook({ url: 'https://shop.example/h', secret: NEW }, { id: 'msg_2' }, view, FINAL_AT, { post, now: () => NOW, timeoutMs: 5_000 }),
    { httpStatus: 204, response: null });
  assert.equal((sent[0]!.request.headers as Record<string, string>)['webhook-signature']!.split(' ').length, 1);
});

test('a non-2xx answer is a refusal that carries what the merchant answered', async () => {
  for (const status of [301, 410, 500]) {
    const { post } = merchant(status, 'nope');
    await assert.rejects(postWebhook({ url: 'https://shop.example/h', secret: NEW }, { id: 'm' }, view, FINAL_AT, { post, now: () => NOW, timeoutMs: 5_000 }), (error) => {
      assert.ok(error instanceof WebhookRefused);
      assert.equal(error.message, `HTTP ${status}`);
      assert.deepEqual(error.posted, { httpStatus: status, response: 'nope' });
      return true;
    });
  }
});

test(`the delivery log keeps the first ${RESPONSE_EXCERPT_BYTES} bytes of a long answer, a character cut in two left out`, async () => {
  const { post } = merchant(200, `${'a'.repeat(RESPONSE_EXCERPT_BYTES - 1)}é${'b'.repeat(10_000)}`);
  const posted = await postWebhook({ url: 'https://shop.example/h', secret: NEW }, { id: 'm' }, view, FINAL_AT, { post, now: () => NOW, timeoutMs: 5_000 });
  assert.equal(posted.response, 'a'.repeat(RESPONSE_EXCERPT_BYTES - 1));
  const encoder = new TextEncoder();
  assert.equal(excerpt(encoder.encode('short')), 'short');
  assert.equal(excerpt(new Uint8Array()), null);
});
