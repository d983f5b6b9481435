/** Formats decimal text (`"10000.50"`) keeping every digit it has, never through a float; as money when given a currency. */
export function formatAmount(amount: string, locale?: string, currency?: string): string {
  const match = /^-?\d+(?:\.(\d*))?$/.exec(amount);
  try {
    if (!match) throw 0;
    return new Intl.NumberFormat(locale, {
      ...(currency && { style: 'currency', currency }),
      maximumFractionDigits: Math.min(100, Math.max(2, match[1]?.length ?? 0)),
    }).format(amount as `${number}`);
  } catch {
    return `${amount} ${currency ?? ''}`.trim();
  }
}

/** `mm:ss`, or `h:mm:ss` from an hour up, of a duration in milliseconds (rounded up to the second). */
export function formatDuration(ms: number): string {
  const total = Math.ceil(ms / 1000);
  const pad = (n: number) => String(n % 60).padStart(2, '0');
  const minutes = Math.floor(total / 60);
  return `${minutes >= 60 ? `${Math.floor(minutes / 60)}:${pad(minutes)}` : pad(minutes)}:${pad(total)}`;
}
