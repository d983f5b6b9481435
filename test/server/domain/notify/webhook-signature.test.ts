// Standard Webhooks signatures: the reference algorithm, computed independently with node:crypto.

import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { signWebhook, verifyWebhook } from '../../../../server/domain/notify/webhook-signature.js';

function reference(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

describe('signWebhook', () => {
  it('matches the Standard Webhooks test vector', async () => {
    const signature = await signWebhook({
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
    });
    assert.equal(signature, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('matches HMAC-SHA256 over id.timestamp.body with the decoded secret, for any secret and body', async () => {
    for (let i = 0; i < 20; i++) {
      const secret = `whsec_${randomBytes(24 + i).toString('base64')}`;
      const body = JSON.stringify({ type: 'bill.final', n: i, text: 'é ✓ "quoted"\n' });
      const id = `msg_${randomBytes(6).toString('hex')}`;
      const timestamp = 1_800_000_000 + i;
      assert.equal(await signWebhook({ secret, id, timestamp, body }), reference(secret, id, timestamp, body));
    }
  });

  it('refuses a secret that is not base64, without echoing it', async () => {
    await assert.rejects(signWebhook({ secret: 'whsec_not*base64!', id: 'x', timestamp: 1, body: '' }), (err: Error) => {
      assert.match(err.message, /whsec_/);
      assert.doesNotMatch(err.message, /not\*base64/);
      return true;
    });
  });
});

describe('verifyWebhook', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const id = 'msg_b1';
  const timestamp = 1_800_000_000;
  const now = timestamp * 1000 + 20_000;
  const body = '{"type":"bill.final"}';

  it('accepts a genuine signature, also among others', async () => {
    const signature = reference(secret, id, timestamp, body);
    assert.equal(await verifyWebhook({ secret, id, timestamp: String(timestamp), signature, body, now }), true);
    const rotated = `v1,${randomBytes(32).toString('base64')} v2,abc ${signature}`;
    assert.equal(await verifyWebhook({ secret, id, timestamp, signature: rotated, body, now }), true);
  });

  it('refuses a changed body, id, timestamp or secret, and garbage', async () => {
    const signature = reference(secret, id, timestamp, body);
    const ok = { secret, id, timestamp, signature, body, now };
    assert.equal(await verifyWebhook({ ...ok, body: body.replace('final', 'paid') }), false);
    assert.equal(await verifyWebhook({ ...ok, id: 'msg_b2' }), false);
    assert.equal(await verifyWebhook({ ...ok, timestamp: timestamp + 1 }), false);
    assert.equal(await verifyWebhook({ ...ok, secret: `whsec_${randomBytes(32).toString('base64')}` }), false);
    assert.equal(await verifyWebhook({ ...ok, signature: signature.replace('v1,', 'v2,') }), false);
    assert.equal(await verifyWebhook({ ...ok, signature: 'v1,%%%' }), false);
    assert.equal(await verifyWebhook({ ...ok, signature: '' }), false);
    assert.equal(await verifyWebhook({ ...ok, timestamp: '1.8e9' }), false);
  });

  it('refuses a timestamp outside the tolerance window', async () => {
    const signature = reference(secret, id, timestamp, body);
    const at = (ms: number, toleranceSeconds?: number) =>
      verifyWebhook({ secret, id, timestamp, signature, body, now: timestamp * 1000 + ms, toleranceSeconds });
    assert.equal(await at(300_000), true);
    assert.equal(await at(301_000), false);
    assert.equal(await at(-301_000), false);
    assert.equal(await at(20_000, 10), false);
  });
});
