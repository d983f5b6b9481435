// Request authentication: `Key` must match, `Sign` must be the lower-case hex HMAC-SHA256 of
// METHOD \n PATH \n QUERY \n BODY keyed with the secret (README, "Signing schemes").
import { Code, SandboxError } from './envelope.js';

const encoder = new TextEncoder();

export function canonicalText(method: string, path: string, query: string, body: string): string {
  return `${method.toUpperCase()}\n${path}\n${query}\n${body}`;
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
}

export async function signHex(secret: string, text: string): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', await hmacKey(secret), encoder.encode(text));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Throws SandboxError 1001/1002 unless the request carries the right Key and Sign. */
export async function verifyRequest(req: Request, body: string, key: string, secret: string): Promise<void> {
  const given = req.headers.get('key');
  if (given === null || given !== key) throw new SandboxError(Code.unknownKey, 'Unknown or missing Key');
  const sign = req.headers.get('sign') ?? '';
  if (!/^[0-9a-f]{64}$/.test(sign)) throw new SandboxError(Code.badSign, 'Bad Sign');
  const url = new URL(req.url);
  const text = canonicalText(req.method, url.pathname, url.search.replace(/^\?/, ''), body);
  const mac = new Uint8Array(sign.match(/../g)!.map((h) => parseInt(h, 16)));
  // subtle.verify compares in constant time.
  const good = await crypto.subtle.verify('HMAC', await hmacKey(secret), mac, encoder.encode(text));
  if (!good) throw new SandboxError(Code.badSign, 'Bad Sign');
}
