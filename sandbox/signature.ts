// Request authentication: `Key` must match and `Sign` must be what the dialect's signer computes
// (by default the lower-case hex HMAC-SHA256 of METHOD \n PATH \n QUERY \n BODY, README "Signing schemes").
import type { SandboxSigner } from './dialect.js';
import { Code, SandboxError } from './envelope.js';

const encoder = new TextEncoder();

export function canonicalText(method: string, path: string, query: string, body: string): string {
  return `${method.toUpperCase()}\n${path}\n${query}\n${body}`;
}

// Imported once per secret: importKey costs as much as the signature itself.
const keys = new Map<string, Promise<CryptoKey>>();

async function hmacSha256(secret: string, text: string): Promise<Uint8Array> {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 16) keys.clear();
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    keys.set(secret, key);
  }
  return new Uint8Array(await crypto.subtle.sign('HMAC', await key, encoder.encode(text)));
}

export async function signHex(secret: string, text: string): Promise<string> {
  return [...(await hmacSha256(secret, text))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export async function signBase64(secret: string, text: string): Promise<string> {
  return btoa(String.fromCharCode(...(await hmacSha256(secret, text))));
}

/** Compares in time that depends only on the expected value's length. */
function sameText(expected: string, given: string): boolean {
  const a = encoder.encode(expected);
  const b = encoder.encode(given);
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ (b[i] ?? 0);
  return diff === 0;
}

/** Throws SandboxError 1001/1002 unless the request carries the right Key and Sign. */
export async function verifyRequest(
  req: Request, body: string, key: string, secret: string, sign: SandboxSigner, now: number, signHeader = 'Sign',
): Promise<void> {
  const given = req.headers.get('key');
  if (given === null || given !== key) throw new SandboxError(Code.unknownKey, 'Unknown or missing Key');
  const url = new URL(req.url);
  const expected = await sign({
    method: req.method.toUpperCase(), path: url.pathname, query: url.search.replace(/^\?/, ''), body, key, secret,
    headers: req.headers, now,
  });
  if (expected === true) return;
  if (expected === false) throw new SandboxError(Code.badSign, `Bad ${signHeader}`);
  if (typeof expected !== 'string' || expected === '') throw new TypeError('The dialect\'s sign returned no text');
  if (!sameText(expected, req.headers.get(signHeader) ?? '')) throw new SandboxError(Code.badSign, `Bad ${signHeader}`);
}

/** A request's time (X-Timestamp, ISO 8601) within five minutes of the sandbox's clock. */
export function freshTimestamp(headers: Headers, now: number): string | null {
  const stamp = headers.get('x-timestamp') ?? '';
  return /^\d{4}-\d\d-\d\dT/.test(stamp) && Math.abs(Date.parse(stamp) - now) <= 300_000 ? stamp : null;
}

/**
 * The rsa-sha256 scheme as a service holding only the merchant's public key (SPKI PEM) checks it:
 * a fresh X-Timestamp, and Sign the base64 SHA256withRSA of METHOD\nPATH\nQUERY\nTIMESTAMP\nhex(SHA-256(BODY)).
 */
export function rsaSha256Verifier(publicKeyPem: string): (input: {
  method: string; path: string; query: string; body: string; headers: Headers; now: number;
}) => Promise<boolean> {
  const body = /-----BEGIN PUBLIC KEY-----([\s\S]*?)-----END PUBLIC KEY-----/.exec(publicKeyPem)?.[1];
  if (!body) throw new TypeError('rsaSha256Verifier needs an SPKI PEM public key (-----BEGIN PUBLIC KEY-----)');
  const der = Uint8Array.from(atob(body.replace(/\s+/g, '')), (c) => c.charCodeAt(0));
  const key = crypto.subtle.importKey('spki', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['verify']);
  return async (i) => {
    const stamp = freshTimestamp(i.headers, i.now);
    if (stamp === null) return false;
    const digest = [...new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(i.body)))].map((b) => b.toString(16).padStart(2, '0')).join('');
    let signature: Uint8Array<ArrayBuffer>;
    try {
      signature = Uint8Array.from(atob(i.headers.get('sign') ?? ''), (c) => c.charCodeAt(0));
    } catch {
      return false;
    }
    const text = `${i.method.toUpperCase()}\n${i.path}\n${i.query}\n${stamp}\n${digest}`;
    return crypto.subtle.verify('RSASSA-PKCS1-v1_5', await key, signature, encoder.encode(text));
  };
}
