// Order tickets: the merchant's server says "this page may start the checkout of this order until
// then". A ticket is `<expiresAtMs>.<sig>`, sig = base64url (unpadded) of HMAC-SHA256 keyed with
// the UTF-8 bytes of ORDER_TICKET_SECRET over `<orderId>.<expiresAtMs>`: any backend language can
// mint one (docs/server.md, "Order tickets"). Without a valid ticket an order id opens nothing.
import { base64url } from '../create/random.js';

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();
const TICKET = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    // A handful of secrets at most (rotation); never one per request.
    if (keys.size > 16) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

async function signature(orderId: string, expiresAtMs: string, secret: string): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', await hmacKey(secret), encoder.encode(`${orderId}.${expiresAtMs}`));
  return base64url(new Uint8Array(mac));
}

/**
 * A ticket for `orderId`, valid for `ttlMs` from `now` (default: the clock). Mint it on your server
 * when you render the page that pays the order, and pass it as the element's `order-ticket`.
 */
export async function orderTicket(orderId: string, secret: string, ttlMs: number, now: number = Date.now()): Promise<string> {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new RangeError(`ttlMs must be a positive whole number of milliseconds, got ${ttlMs}`);
  const expiresAtMs = String(Math.trunc(now) + ttlMs);
  return `${expiresAtMs}.${await signature(orderId, expiresAtMs, secret)}`;
}

/** Whether `ticket` was minted for `orderId` with `secret` and is unexpired at `now`. */
export async function verifyOrderTicket(orderId: string, ticket: string, secret: string, now: number): Promise<boolean> {
  const m = TICKET.exec(ticket);
  if (!m || Number(m[1]) <= now) return false;
  const given = Uint8Array.from(atob(m[2]!.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  // One spelling per signature: base64 leaves two spare bits in the last character.
  if (base64url(given) !== m[2]) return false;
  // crypto.subtle.verify compares in constant time.
  return crypto.subtle.verify('HMAC', await hmacKey(secret), given, encoder.encode(`${orderId}.${m[1]}`));
}
