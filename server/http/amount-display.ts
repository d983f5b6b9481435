import type { AmountDisplay, BillView } from '../../contract/bill-view.js';
import { formatAmount } from '../../contract/decimal.js';
import { acceptedLanguages } from '../../contract/languages.js';
import type { CachedBill } from '../domain/status/bill-cache.js';

/**
 * The bill's amounts as text in the first language of an Accept-Language header, or undefined when
 * it names none that is a valid tag. The element shows them when that language is its own: they
 * are what it would format, without the 50–120 ms a phone spends on its first Intl.NumberFormat.
 */
export function amountDisplay(view: BillView, acceptLanguage: string | undefined): AmountDisplay | undefined {
  const [tag] = acceptedLanguages(acceptLanguage);
  let locale: string | undefined;
  try {
    locale = tag === undefined || tag === '*' ? undefined : Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
  if (!locale) return undefined;
  return {
    locale,
    billAmount: formatAmount(view.billAmount, locale, view.currency),
    requireGCAmount: view.requireGCAmount === null ? null : formatAmount(view.requireGCAmount, locale),
  };
}

// The read's JSON with the display spliced in, kept per cached bill for the last header it was made
// for: a browser polling one bill sends the same header each time, and the read stays a lookup.
const withDisplay = new WeakMap<CachedBill, { header: string; json: string }>();

/** The JSON a read answers: the cached bill's, with `display` for the Accept-Language header. */
export function readJson(found: CachedBill, acceptLanguage: string | undefined): string {
  if (!acceptLanguage) return found.json;
  const made = withDisplay.get(found);
  if (made?.header === acceptLanguage) return made.json;
  const display = amountDisplay(found.view, acceptLanguage);
  const json = display ? `${found.json.slice(0, -1)},"display":${JSON.stringify(display)}}` : found.json;
  withDisplay.set(found, { header: acceptLanguage, json });
  return json;
}
