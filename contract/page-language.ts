// The language of our own pages beside the element (the demo's, the admin page): `?locale=`
// (remembered for this tab), else the browser's. The page's texts are named in its HTML with
// data-text (and data-aria-label) and translated here from the page's strings. In contract/ as the
// one folder both pages may import; browser-only, so tsconfig.server.json leaves it out of dist/server.
import { LANGUAGES, bestLanguage, languageOf, type Language } from './languages.js';
import { textParts } from './text-parts.js';

/** The language kept for this tab under `key`, if any. */
export function keptLanguage(key: string): Language | null {
  try {
    return languageOf(sessionStorage.getItem(key));
  } catch {
    return null;
  }
}

/** The language `?locale=` names (then kept under `key`), else the one kept before, else null. */
function chosenLanguage(key: string): Language | null {
  const asked = languageOf(new URLSearchParams(location.search).get('locale'));
  if (asked) {
    try {
      sessionStorage.setItem(key, asked);
    } catch {
      // Storage refused (private mode): the query still names it.
    }
    return asked;
  }
  return keptLanguage(key);
}

/** Fills `el` with `text`, its `code` parts as <code>. */
export function setText(el: Element, text: string): void {
  el.replaceChildren(...textParts(text).map((p) => (p.code ? Object.assign(document.createElement('code'), { textContent: p.text }) : p.text)));
}

export interface PageLanguage<S> {
  lang: Language;
  /** The language `?locale=` or this tab chose, null when it is the browser's. */
  chosen: Language | null;
  texts: S;
}

/**
 * Sets up the page in its language (chosen, kept under `key`, else the browser's): <html lang>, the
 * texts its HTML names (looked up in `strings`), the title and the language picker (`#language`,
 * which reloads the page with ?locale=). Then shows <main>, hidden until now (`data-rendering`) so
 * that nothing in it moves once painted: the caller renders the rest of it in the same task, before
 * the next paint.
 */
export function setUpPage<S extends object>(key: string, strings: Record<Language, S>, title: (texts: S) => string): PageLanguage<S> {
  const chosen = chosenLanguage(key);
  const lang = chosen ?? bestLanguage(navigator.languages?.length ? navigator.languages : [navigator.language]);
  const texts = strings[lang];
  const text = (name: string | undefined): string | null => {
    const found = name === undefined ? undefined : (texts as Record<string, unknown>)[name];
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
  document.title = title(texts);

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
  return { lang, chosen, texts };
}
