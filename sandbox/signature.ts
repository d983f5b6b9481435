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
  if (typeof expected !== 'string' || expected === '') throw new TypeError('The dialect\'s sign returned no text');
  if (!sameText(expected, req.headers.get(signHeader) ?? '')) throw new SandboxError(Code.badSign, `Bad ${signHeader}`);
}
