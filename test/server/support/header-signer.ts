// A merchant's signer for a service that wants its own headers (BILL_SIGNER=path): the request's
// time, a nonce and an id in headers of their own, and a signature over them and the body's digest.
import { createHash, createHmac } from 'node:crypto';
import type { SignInput, SignResult } from '../../../server/upstream/types.js';

/** Every input this module was given, for the test to read. */
export const seen: SignInput[] = [];

/** What the service checks: METHOD:PATH:TIMESTAMP:NONCE:sha256(body) hex, HMAC-SHA256 under the secret, base64. */
export function expectedSignature(input: { method: string; path: string; timestamp: string; nonce: string; body: string; secret: string }): string {
  const digest = createHash('sha256').update(input.body).digest('hex');
  return createHmac('sha256', input.secret).update([input.method, input.path, input.timestamp, input.nonce, digest].join(':')).digest('base64');
}

export default function sign(input: SignInput): SignResult {
  seen.push(input);
  return {
    'X-Timestamp': input.timestamp,
    'X-Nonce': input.nonce,
    'X-Request-Id': input.requestId,
    'X-Signature': expectedSignature(input),
  };
}
