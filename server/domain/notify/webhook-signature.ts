// Standard Webhooks signatures (https://www.standardwebhooks.com): `v1,` + base64 HMAC-SHA256 of
// `${id}.${timestamp}.${body}`, keyed with the base64 part of a `whsec_` secret; timestamp in
// seconds. Web Crypto only, so it runs wherever Hono runs.

const PREFIX = 'whsec_';
const encoder = new TextEncoder();

export interface SignWebhookInput {
  /** `whsec_` + base64 (a bare base64 secret is accepted too). */
  secret: string;
  /** The `webhook-id` header. */
  id: string;
  /** The `webhook-timestamp` header: unix seconds. */
  timestamp: number;
  /** The exact body text sent. */
  body: string;
}

export interface VerifyWebhookInput {
  secret: string;
  /** Header values as received. */
  id: string;
  timestamp: string | number;
  /** The `webhook-signature` header: one or more space-separated `v1,<base64>`. */
  signature: string;
  body: string;
  /** Receiver's clock, unix ms (default Date.now()). */
  now?: number;
  /** Largest accepted distance between `timestamp` and `now`, seconds (default 300). */
  toleranceSeconds?: number;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

function toBase64(bytes: ArrayBuffer): string {
  let binary = '';
  for (const b of new Uint8Array(bytes)) binary += String.fromCharCode(b);
  return btoa(binary);
}

function importKey(secret: string, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  const raw = fromBase64(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret);
  // Never echo the secret, not even in an error.
  if (!raw || raw.length === 0) throw new Error('Webhook secret must be "whsec_" followed by base64');
  return crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

function signedContent(id: string, timestamp: string | number, body: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(`${id}.${timestamp}.${body}`);
}

// Imported once per secret: an import costs about as much as the signature itself. A process has
// a few secrets (rotation), so the map stays small; it is emptied should a caller pass many.
const signingKeys = new Map<string, Promise<CryptoKey>>();
const MAX_SIGNING_KEYS = 16;

function signingKey(secret: string): Promise<CryptoKey> {
  let key = signingKeys.get(secret);
  if (!key) {
    if (signingKeys.size >= MAX_SIGNING_KEYS) signingKeys.clear();
    key = importKey(secret, 'sign');
    // A secret that fails to import is not kept: its error is thrown again to the next caller.
    key.catch(() => signingKeys.delete(secret));
    signingKeys.set(secret, key);
  }
  return key;
}

export async function signWebhook({ secret, id, timestamp, body }: SignWebhookInput): Promise<string> {
  const key = await signingKey(secret);
  const mac = await crypto.subtle.sign('HMAC', key, signedContent(id, Math.trunc(timestamp), body));
  return `v1,${toBase64(mac)}`;
}

/** True when one `v1` signature matches and the timestamp is within tolerance. Constant-time. */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<boolean> {
  const timestamp = String(input.timestamp);
  if (!/^\d+$/.test(timestamp)) return false;
  const nowSeconds = Math.floor((input.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > (input.toleranceSeconds ?? 300)) return false;

  const key = await importKey(input.secret, 'verify');
  const content = signedContent(input.id, timestamp, input.body);
  for (const part of input.signature.split(' ')) {
    const comma = part.indexOf(',');
    if (comma < 0 || part.slice(0, comma) !== 'v1') continue;
    const mac = fromBase64(part.slice(comma + 1));
    // HMAC verify in Web Crypto compares in constant time.
    if (mac && (await crypto.subtle.verify('HMAC', key, mac, content))) return true;
  }
  return false;
}
