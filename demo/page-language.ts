// Each demo page's language (contract/page-language.ts): `?locale=` is remembered for this tab, so
// that the way back from the payment page keeps it, and carried on by the demo's links.
import type { Language } from '../contract/languages.js';
import { keptLanguage, setUpPage as setUpPageIn } from '../contract/page-language.js';
import { BRAND, DEMO_STRINGS, type DemoStrings, type TextKey } from './server/demo-strings.js';

const KEPT = 'northwind:locale';

export interface PageLanguage {
  lang: Language;
  t: DemoStrings;
}

/**
 * Sets up the page in its language and shows it (contract/page-language.ts's setUpPage); the
 * demo's links then carry a chosen language on.
 */
export function setUpPage(title: TextKey): PageLanguage {
  const { lang, chosen, texts: t } = setUpPageIn(KEPT, DEMO_STRINGS, (texts) => `${BRAND}: ${texts[title]}`);
  if (chosen) {
    for (const a of document.querySelectorAll<HTMLAnchorElement>('header.site a[href]')) {
      const url = new URL(a.href);
      if (url.origin !== location.origin) continue;
      url.searchParams.set('locale', chosen);
      a.href = url.pathname + url.search;
    }
  }
  return { lang, t };
}

/** `base` with the page's chosen language carried on (?locale=), for the shop's own reloads. */
export function withLanguage(base: string): string {
  const chosen = keptLanguage(KEPT);
  if (!chosen) return base;
  const url = new URL(base, location.href);
  url.searchParams.set('locale', chosen);
  return url.pathname + url.search;
}
