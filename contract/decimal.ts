// Money is decimal text from end to end. These helpers work on digits (BigInt), never on floats.

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

export class DecimalError extends Error {
  override name = 'DecimalError';
}

interface Parts {
  negative: boolean;
  /** All significant digits, no dot. */
  digits: bigint;
  /** Number of digits after the decimal point. */
  scale: number;
}

function parts(text: string): Parts {
  const m = DECIMAL.exec(text.trim());
  if (!m) throw new DecimalError(`"${text}" is not a decimal number`);
  const [, sign, int = '0', frac = '', exp = '0'] = m;
  let scale = frac.length - Number(exp);
  let digits = BigInt(int + frac);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  if (scale > 64) throw new DecimalError(`"${text}" has too many decimal places`);
  return { negative: sign === '-' && digits !== 0n, digits, scale };
}

function render({ negative, digits, scale }: Parts): string {
  let s = digits.toString().padStart(scale + 1, '0');
  if (scale > 0) {
    s = `${s.slice(0, -scale)}.${s.slice(-scale)}`.replace(/\.?0+$/, '');
  }
  return negative && digits !== 0n ? `-${s}` : s;
}

/** True when `text` is a plain or exponent decimal number. */
export function isDecimal(text: string): boolean {
  return DECIMAL.test(text.trim());
}

/**
 * Canonical decimal text for a number or numeric text: no exponent, no trailing zeros after the
 * point, no leading `+`. A JSON number arrives here already as a double; it is taken through its
 * shortest round-trip text, which is what the sender wrote for any amount with 15 or fewer digits.
 */
export function toDecimal(value: number | string): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new DecimalError(`${value} is not a finite amount`);
    return render(parts(String(value)));
  }
  return render(parts(value));
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`, compared exactly. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const pa = parts(a);
  const pb = parts(b);
  const scale = Math.max(pa.scale, pb.scale);
  const va = (pa.negative ? -1n : 1n) * pa.digits * 10n ** BigInt(scale - pa.scale);
  const vb = (pb.negative ? -1n : 1n) * pb.digits * 10n ** BigInt(scale - pb.scale);
  return va < vb ? -1 : va > vb ? 1 : 0;
}

/** The exact product `a × b` rounded half-up to `places` decimal places. */
export function multiplyDecimal(a: string, b: string, places: number): string {
  const pa = parts(a);
  const pb = parts(b);
  const negative = pa.negative !== pb.negative;
  let digits = pa.digits * pb.digits;
  let scale = pa.scale + pb.scale;
  if (scale > places) {
    const divisor = 10n ** BigInt(scale - places);
    const rest = digits % divisor;
    digits = digits / divisor + (rest * 2n >= divisor ? 1n : 0n);
    scale = places;
  }
  return render({ negative, digits, scale });
}

/** Number of digits after the decimal point of canonical decimal text. */
export function decimalPlaces(text: string): number {
  return parts(text).scale;
}

/**
 * Formats decimal text (`"10000.50"`) in `locale` keeping every digit it has and at least the
 * currency's own, never through a float; as money when given a currency. What the element, the
 * BFF's return page and the demo show; text Intl cannot format is shown as it is.
 */
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
