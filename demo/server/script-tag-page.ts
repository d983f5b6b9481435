// The script-tag page (demo/plain.html, built) as its server renders it for each visit: a fresh
// order and its ticket, and the page in the customer's language. The page loads no script but the
// element's, so its language is the server's to put in: <html lang>, the element's `locale`, and
// the texts the template names with data-text, data-aria-label and data-product.
import { escapeHtml } from '../../contract/escape-html.js';
import { headerLanguage, languageOf, type Language } from '../../contract/languages.js';
import { textParts } from '../../contract/text-parts.js';
import { BRAND, DEMO_STRINGS, type TextKey } from './demo-strings.js';
import type { DemoOrder } from './routes.js';

function html(text: string): string {
  return textParts(text).map((p) => (p.code ? `<code>${escapeHtml(p.text)}</code>` : escapeHtml(p.text))).join('');
}

/** `?locale=` when it names a language the demo speaks (`chosen`), else the best of Accept-Language. */
export function scriptTagLanguage(url: string, acceptLanguage: string | null | undefined): { lang: Language; chosen: boolean } {
  const asked = languageOf(new URL(url).searchParams.get('locale'));
  return asked ? { lang: asked, chosen: true } : { lang: headerLanguage(acceptLanguage), chosen: false };
}

export interface ScriptTagPage {
  html: string;
  /** For the answer's Content-Language; it also varies with Accept-Language. */
  lang: Language;
}

/** The page for `request`: `template` with the order, its ticket and the visitor's language filled in. */
export function renderScriptTagPage(
  template: string, order: Pick<DemoOrder, 'orderId' | 'orderTicket'>, request: Pick<Request, 'url' | 'headers'>,
): ScriptTagPage {
  const { lang, chosen } = scriptTagLanguage(request.url, request.headers.get('accept-language'));
  const t = DEMO_STRINGS[lang];
  const page = template
    .replace(/<html lang="[^"]*">/, `<html lang="${lang}">`)
    .replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(`${BRAND}: ${t.navScriptTag}`)}</title>`)
    .replace(/(<([a-z][a-z0-9]*)\b[^>]*\sdata-text="(\w+)"[^>]*>)[\s\S]*?(<\/\2>)/g, (all, open: string, _tag: string, key: string, close: string) => {
      const text = t[key as TextKey];
      return typeof text === 'string' ? open + html(text) + close : all;
    })
    .replace(/(<[a-z][a-z0-9]*\b[^>]*\saria-label=")[^"]*("[^>]*\sdata-aria-label="(\w+)")/g, (all, before: string, after: string, key: string) => {
      const text = t[key as TextKey];
      return typeof text === 'string' ? before + escapeHtml(text) + after : all;
    })
    .replace(/(<([a-z][a-z0-9]*)\b[^>]*\sdata-product="(\w+)"[^>]*>)[^<]*(<\/\2>)/g, (all, open: string, _tag: string, slug: string, close: string) => {
      const product = t.products[slug];
      return product ? open + escapeHtml(product.name) + close : all;
    })
    .replace(/<option value="([^"]*)"([^>]*?)( selected)?>/g, (_all, value: string, rest: string) =>
      `<option value="${value}"${rest}${value === lang ? ' selected' : ''}>`)
    .replace(/<bill-checkout\b/g, `<bill-checkout locale="${lang}"`)
    // A language asked for by name stays with the visitor from page to page.
    .replace(/(<a\b[^>]*\shref="\.\/[^"?#]*)"/g, (all, start: string) => (chosen ? `${start}?locale=${encodeURIComponent(lang)}"` : all))
    .replaceAll('__ORDER_ID__', escapeHtml(order.orderId))
    .replaceAll('__ORDER_TICKET__', escapeHtml(order.orderTicket ?? ''));
  return { html: page, lang };
}
