const localHosts = ['localhost', '127.0.0.1', '[::1]'];

/** Parses `allowed-schemes` (`"myapp:, otherapp"`) into normalized schemes (`myapp:`). */
export function parseSchemes(list: string | null | undefined): string[] {
  return (list ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase().replace(/:?$/, ':'))
    .filter((s) => /^(?!javascript:|data:)[a-z][a-z0-9+.-]*:$/.test(s));
}

/**
 * The URL if a customer may be sent to it: `https:`, `http:` on a loopback host, or one of the
 * merchant's extra schemes; otherwise `null`.
 */
export function safeUrl(url: string, extraSchemes: readonly string[] = []): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const scheme = parsed.protocol;
  return scheme === 'https:' || (scheme === 'http:' ? localHosts.includes(parsed.hostname) : extraSchemes.includes(scheme)) ? parsed.href : null;
}
