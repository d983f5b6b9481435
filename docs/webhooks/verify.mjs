// Verify a bill-checkout webhook (Standard Webhooks) in Node, with node:crypto only.
//   WEBHOOK_SECRET=whsec_… WEBHOOK_ID=… WEBHOOK_TIMESTAMP=… WEBHOOK_SIGNATURE=… node verify.mjs < body.json
// In your server, call verifyWebhook(secret, headers, rawBody) on the raw body, before parsing it.
import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const TOLERANCE_SECONDS = 5 * 60;

export function verifyWebhook(secret, headers, rawBody, now = Date.now() / 1000) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) throw new Error('missing webhook headers');
  if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > TOLERANCE_SECONDS) {
    throw new Error('timestamp outside the tolerance');
  }
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest();
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) continue;
    const given = Buffer.from(signature, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return JSON.parse(rawBody);
  }
  throw new Error('no valid signature');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const headers = {
    'webhook-id': process.env.WEBHOOK_ID,
    'webhook-timestamp': process.env.WEBHOOK_TIMESTAMP,
    'webhook-signature': process.env.WEBHOOK_SIGNATURE,
  };
  const now = process.env.WEBHOOK_NOW ? Number(process.env.WEBHOOK_NOW) : undefined; // tests only
  try {
    const notice = verifyWebhook(process.env.WEBHOOK_SECRET, headers, Buffer.concat(chunks).toString('utf8'), now);
    console.log(`OK ${notice.type ?? ''}`.trim());
  } catch (error) {
    console.error(`REJECTED: ${error.message}`);
    process.exit(1);
  }
}
