/** The languages the checkout speaks: the element's, the BFF's return page's, the sandbox pay page's and the demo's. */
export const LANGUAGES = ['en', 'id', 'ms', 'th', 'vi', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The language of one BCP 47 tag, or null: `zh` unless Traditional (Hant, TW, HK, MO) is `zh-CN`, `in` is `id`. */
export function languageOf(tag: string | null | undefined): Language | null {
  const [lang, ...rest] = (tag ?? '').trim().toLowerCase().split(/[-_]/);
  if (lang === 'zh') return rest.some((sub) => /^(hant|tw|hk|mo)$/.test(sub)) ? null : 'zh-CN';
  const name = lang === 'in' ? 'id' : lang;
  return LANGUAGES.find((l) => l === name) ?? null;
}

/** The first of `tags` (most wanted first) that the checkout speaks, else English. */
export function bestLanguage(tags: readonly string[]): Language {
  for (const tag of tags) {
    const found = languageOf(tag);
    if (found) return found;
  }
  return 'en';
}

/** The tags of an Accept-Language header, most wanted first (by q, then order; q=0 left out). */
export function acceptedLanguages(header: string | null | undefined): string[] {
  return (header ?? '').slice(0, 1000).split(',').map((part, index) => {
    const [tag = '', ...params] = part.split(';');
    const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
    return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
  }).filter((r) => r.tag && r.q > 0).sort((a, b) => b.q - a.q || a.index - b.index).map((r) => r.tag);
}

/** The best language of an Accept-Language header that the checkout speaks, else English. */
export function headerLanguage(header: string | null | undefined): Language {
  return bestLanguage(acceptedLanguages(header));
}
