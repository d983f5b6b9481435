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

/**
 * Whom an address counts as, for limits: an IPv4 address itself (also when IPv4-mapped in IPv6),
 * an IPv6 address by its /64, the smallest prefix a provider gives one customer: every address of
 * one subscriber's /64 is one client, so a client cannot escape a limit by changing its suffix.
 */
export function clientKeyOf(address: string): string {
  const a = address.trim().toLowerCase().replace(/^\[|\]$/g, '').split('%')[0]!;
  if (!a.includes(':')) return a;
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a);
  if (mapped) return mapped[1]!;
  const [head = '', tail] = a.split('::');
  const first = head === '' ? [] : head.split(':');
  // With `::`, the missing groups are zeros; an embedded IPv4 tail is two groups.
  const last = tail === undefined || tail === '' ? [] : tail.split(':');
  const lastCount = last.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups = tail === undefined ? first : [...first, ...Array<string>(Math.max(0, 8 - first.length - lastCount)).fill('0'), ...last];
  const prefix = groups.slice(0, 4).map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16).toString(16) : g));
  while (prefix.length < 4) prefix.push('0');
  return `${prefix.join(':')}::/64`;
}
