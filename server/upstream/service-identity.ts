// Which service a bill was made at (DESIGN rule 10's "an order's bill stays the order's"): a bill is
// asked about, reused and withdrawn only at the service that made it. Moving the database to another
// service or key must not requery its bills there, where they are "not found" or someone else's.
import { stripUserinfo } from '../redact.js';

/** FNV-1a, 32 bits, from `seed`: a fingerprint, not a secret's protection (the Key is sent in every request). */
function fnv1a(text: string, seed: number): string {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** `<base URL without userinfo or trailing slash>#<fingerprint of the Key>`. */
export function serviceIdentity(baseUrl: string, key: string): string {
  return `${stripUserinfo(baseUrl).replace(/\/+$/, '')}#${fnv1a(key, 0x811c9dc5)}${fnv1a(key, 0x01000193)}`;
}
