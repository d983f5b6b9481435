// The admin page's language (contract/page-language.ts): its texts from strings.ts, kept for this
// tab under its own key; what the page draws later it takes from the same strings.
import type { Language } from '../contract/languages.js';
import { setUpPage as setUpPageIn } from '../contract/page-language.js';
import { ADMIN_STRINGS, type AdminStrings } from './strings.js';

/** Sets up the page in its language and shows it (contract/page-language.ts's setUpPage). */
export function setUpPage(): { lang: Language; a: AdminStrings } {
  const { lang, texts } = setUpPageIn('bill-checkout:admin-locale', ADMIN_STRINGS, (a) => `bill-checkout: ${a.pageTitle}`);
  return { lang, a: texts };
}
