// Each demo page's language: `?locale=` (remembered for this tab, so that the way back from the
// payment page keeps it), else the browser's. The page's own texts are named in its HTML with
// data-text (and data-aria-label), and translated here from the demo's strings.
import { LANGUAGES, bestLanguage, languageOf, type Language } from '../contract/languages.js';
import { BRAND, DEMO_STRINGS, textParts, type DemoStrings, type TextKey } from './server/demo-strings.js';

const KEPT = 'northwind:locale';

export interface PageLanguage {
  lang: Language;
  t: DemoStrings;
}

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
 * Sets up the page in its language: <html lang>, the texts its HTML names, the title, the language
 * picker (`#language`, which reloads the page with ?locale=) and the demo's links, which carry a
 * chosen language on. Then shows <main>, hidden until now (`data-rendering`) so that nothing in it
 * moves once painted: the caller renders the rest of it in the same task, before the next paint.
 */
export function setUpPage(title: TextKey): PageLanguage {
  const chosen = chosenLanguage();
  const lang = chosen ?? bestLanguage(navigator.languages?.length ? navigator.languages : [navigator.language]);
  const t = DEMO_STRINGS[lang];
  const text = (key: string | undefined): string | null => {
    if (key === undefined) return null;
    const found = t[key as TextKey];
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
  document.title = `${BRAND}: ${t[title]}`;

  const picker = document.querySelector<HTMLSelectElement>('#language');
  if (picker) {
    picker.value = lang;
    picker.addEventListener('change', () => {
      const url = new URL(location.href);
      url.searchParams.set('locale', (LANGUAGES as readonly string[]).includes(picker.value) ? picker.value : 'en');
      location.assign(url);
    });
  }
  if (chosen) {
    for (const a of document.querySelectorAll<HTMLAnchorElement>('header.site a[href]')) {
      const url = new URL(a.href);
      if (url.origin !== location.origin) continue;
      url.searchParams.set('locale', chosen);
      a.href = url.pathname + url.search;
    }
  }
  const main = document.querySelector('main');
  if (main) delete main.dataset.rendering;
  return { lang, t };
}

/** `base` with the page's chosen language carried on (?locale=), for the shop's own reloads. */
export function withLanguage(base: string): string {
  const chosen = kept();
  if (!chosen) return base;
  const url = new URL(base, location.href);
  url.searchParams.set('locale', chosen);
  return url.pathname + url.search;
}
