// Whom the create rate limit and the SSE cap count: the client's address. Behind reverse proxies
// the socket's peer is the nearest proxy, so every customer would share one limit; each proxy
// appends the address it saw to X-Forwarded-For, and with TRUSTED_PROXY_HOPS proxies in front the
// client is the entry the outermost one appended. Entries further left were written by the
// client and can say anything, so they are never used.

/**
 * The client's address: the socket's `peer` with no proxy in front (`hops` 0), else the
 * `hops`-th X-Forwarded-For entry from the right (the leftmost when there are fewer).
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, hops: number): string {
  if (hops > 0 && forwardedFor) {
    const entries = forwardedFor.split(',').map((s) => s.trim()).filter(Boolean);
    const entry = entries[Math.max(0, entries.length - hops)];
    if (entry) return entry;
  }
  return peer ?? 'unknown';
}
