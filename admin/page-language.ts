// The admin page's language: `?locale=` (remembered for this tab), else the browser's. The page's
// texts are named in its HTML with data-text (and data-aria-label) and translated here from
// strings.ts; what the page draws later it takes from the same strings.
import { LANGUAGES, bestLanguage, languageOf, type Language } from '../contract/languages.js';
import { ADMIN_STRINGS, textParts, type AdminStrings } from './strings.js';

const KEPT = 'bill-checkout:admin-locale';

function kept(): Language | null {
  try {
    return languageOf(sessionStorage.getItem(KEPT));
  } catch {
    return null;
  }
}

function chosenLanguage(): Language | null {
  const asked = languageOf(new URLSearchParams(location.search).get('locale'));
  if (asked) {
    try {
      sessionStorage.setItem(KEPT, asked);
    } catch {
      // Storage refused (private mode): the query still names it.
    }
    return asked;
  }
  return kept();
}

/** Fills `el` with `text`, its `code` parts as <code>. */
export function setText(el: Element, text: string): void {
  el.replaceChildren(...textParts(text).map((p) => (p.code ? Object.assign(document.createElement('code'), { textContent: p.text }) : p.text)));
}

/**
 * Sets up the page in its language: <html lang>, the texts its HTML names, the title and the
 * language picker (`#language`, which reloads the page with ?locale=). Then shows <main>, hidden
 * until now (`data-rendering`) so that nothing in it moves once painted: the caller renders the
 * rest of it in the same task, before the next paint.
 */
export function setUpPage(): { lang: Language; a: AdminStrings } {
  const lang = chosenLanguage() ?? bestLanguage(navigator.languages?.length ? navigator.languages : [navigator.language]);
  const a = ADMIN_STRINGS[lang];
  const text = (key: string | undefined): string | null => {
    const found = key === undefined ? undefined : (a as Record<string, unknown>)[key];
    return typeof found === 'string' ? found : null;
  };
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll<HTMLElement>('[data-text]')) {
    const found = text(el.dataset.text);
    if (found !== null) setText(el, found);
  }
  for (const el of document.querySelectorAll<HTMLElement>('[data-aria-label]')) {
    const found = text(el.dataset.ariaLabel);
    if (found !== null) el.setAttribute('aria-label', found);
  }
  document.title = `bill-checkout: ${a.pageTitle}`;

  const picker = document.querySelector<HTMLSelectElement>('#language');
  if (picker) {
    picker.value = lang;
    picker.addEventListener('change', () => {
      const url = new URL(location.href);
      url.searchParams.set('locale', (LANGUAGES as readonly string[]).includes(picker.value) ? picker.value : 'en');
      location.assign(url);
    });
  }
  const main = document.querySelector('main');
  if (main) delete main.dataset.rendering;
  return { lang, a };
}
