// The page that tells a customer without JavaScript what became of the payment (the status link
// of the server-rendered checkout): the outcome as the BFF knows it, in the customer's language,
// asking again by itself every few seconds while the bill is pending. No script; one inline style
// allowed by its hash, as the return page.
import type { BillView } from '../../../contract/bill-view.js';
import { formatAmount } from '../../../contract/decimal.js';
import type { Language } from '../../../contract/languages.js';
import { loadStrings, stringsFor } from '../../../widget/strings.js';
import { escapeHtml } from '../../../contract/escape-html.js';
import { RETURN_PAGE_TEXTS } from '../return-page.js';
import { RENDER_TEXTS } from './texts.js';

/** How often a pending bill's status page asks again, s. */
export const STATUS_PAGE_REFRESH_S = 5;

const STYLE = ':root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.5}' +
  'body{margin:0;padding:1.25rem;background:Canvas;color:CanvasText}' +
  'main{max-width:30rem;margin:2rem auto}h1{font-size:1.5rem;line-height:1.25;margin:0 0 .75rem}' +
  'dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:1.25rem 0}dt{opacity:.75}' +
  'dd{margin:0;font-weight:600;overflow-wrap:anywhere}' +
  'a.pay{display:block;text-align:center;padding:.75rem 1rem;border-radius:.5rem;background:#0b57d0;color:#fff;font-weight:600;text-decoration:none}';

async function hashOf(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let binary = '';
  for (const b of digest) binary += String.fromCharCode(b);
  return `'sha256-${btoa(binary)}'`;
}
let styleHash: Promise<string> | undefined;

const csp = (style: string) =>
  `default-src 'none'; style-src ${style}; base-uri 'none'; form-action 'none'; frame-ancestors 'self'`;

export interface StatusPage {
  html: string;
  csp: string;
}

export interface StatusPageInput {
  bill: BillView;
  language: Language;
  /** The bill URL when it may be shown (safe): the pay link while pending. */
  payUrl: string | null;
}

export async function statusPage({ bill, language, payUrl }: StatusPageInput): Promise<StatusPage> {
  const t = RETURN_PAGE_TEXTS[language];
  const r = RENDER_TEXTS[language];
  const outcome = bill.outcome;
  const heading = escapeHtml(t.heading[outcome]);
  const pending = outcome === 'pending';
  // Paid and being confirmed (a processing status): the element's line for it, and no pay link to pay twice with.
  const confirming = pending && bill.processing === true;
  if (confirming) await loadStrings(language);
  const html = '<!doctype html>' +
    `<html lang="${language}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="color-scheme" content="light dark"><meta name="referrer" content="no-referrer">' +
    (pending ? `<meta http-equiv="refresh" content="${STATUS_PAGE_REFRESH_S}">` : '') +
    `<title>${heading}</title><style>${STYLE}</style></head>` +
    `<body><main data-outcome="${outcome}"><h1>${heading}</h1>` +
    (confirming ? `<p>${escapeHtml(stringsFor(language)!.confirming)}</p>` : '') +
    `<p>${escapeHtml(pending ? r.refreshes : t.lead[outcome])}</p>` +
    (outcome === 'paid' || pending ? '' : `<p>${escapeHtml(r.noMoney)}</p>`) +
    `<dl><dt>${escapeHtml(t.amount)}</dt><dd>${escapeHtml(formatAmount(bill.billAmount, language, bill.currency))}</dd>` +
    `<dt>${escapeHtml(t.reference)}</dt><dd>${escapeHtml(bill.merchantReference)}</dd></dl>` +
    (pending && payUrl && !confirming ? `<a class="pay" href="${escapeHtml(payUrl)}">${escapeHtml(r.pay)}</a>` : '') +
    '</main></body></html>';
  return { html, csp: csp(await (styleHash ??= hashOf(STYLE))) };
}

/** The same 404 page for an unknown bill and a wrong token, on the HTML routes. */
export function notFoundPage(language: Language): string {
  return '<!doctype html>' +
    `<html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>404</title></head><body><p>${escapeHtml(RENDER_TEXTS[language].notFound)}</p></body></html>`;
}

export const NOT_FOUND_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
