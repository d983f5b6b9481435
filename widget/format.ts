/** Formats decimal text (`"10000.50"`) keeping every digit it has and at least the currency's own, never through a float; as money when given a currency. */
export function formatAmount(amount: string, locale?: string, currency?: string): string {
  const match = /^-?\d+(?:\.(\d*))?$/.exec(amount);
  try {
    if (!match) throw 0;
    const format = (digits?: number) => new Intl.NumberFormat(locale, {
      ...(currency && { style: 'currency', currency }),
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    // More than 100 digits is a RangeError: shown as the text it is, below.
    return format(Math.max(match[1]?.length ?? 0, format().resolvedOptions().minimumFractionDigits ?? 0)).format(amount as `${number}`);
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
