// A merchant's own signing scheme (BILL_SIGNER=path): not one of the built-in ones.
import type { SignBase } from '../../../server/upstream/types.js';

const encoder = new TextEncoder();

export default async function sign({ method, path, query, body, key, secret }: SignBase): Promise<string> {
  const mac = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-512' }, false, ['sign']);
  const bytes = new Uint8Array(await crypto.subtle.sign('HMAC', mac, encoder.encode([key, method, path, query, body].join('|'))));
  return `v9=${btoa(String.fromCharCode(...bytes))}`;
}
