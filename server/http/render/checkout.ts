// renderCheckout: the checkout in the first HTML. `<bill-checkout bill-id token>` holding its card
// in a declarative shadow root, drawn by the element's own templates (widget/card/card.ts) with the
// server's string tag (html-tag.ts): the amount, the gold amount, the reference, the expiry, the QR
// code as inline SVG (or the pay link), and without JavaScript a link that checks the status and,
// beside a QR code, one that pays on this device. The
// element takes this markup over when its script arrives (widget/bill-checkout.ts, `#server`):
// the same markup, so nothing moves, and the QR code is not encoded again.
import type { BillView } from '../../../contract/bill-view.js';
import { formatAmount } from '../../../contract/decimal.js';
import type { Language } from '../../../contract/languages.js';
import { card, type CardHost } from '../../../widget/card/card.js';
import { cardCss, serverCss } from '../../../widget/card/styles.js';
import { parseSchemes, safeUrl } from '../../../widget/safe-url.js';
import { languageOf, loadStrings, stringsFor } from '../../../widget/strings.js';
import { html, Markup, nothing } from './html-tag.js';
import { qrCode, qrFits } from './qr-images.js';
import { RENDER_TEXTS } from './texts.js';

export interface RenderCheckoutOptions {
  /** The bill's token (the create's answer): the element reads and watches the bill with it. */
  token: string;
  /** The BFF's API base, as the page reaches it (the element's `endpoint`); `/api` by default. */
  endpoint?: string;
  /** BCP 47 locale of the texts and amounts (English when not shipped); `en` by default. */
  locale?: string;
  /**
   * `qr` (by default) or `button`: what the card shows first. Give `button` to phones. A bill URL
   * too long for one QR code is shown as `button` whatever is asked (qr-images.ts, qrFits).
   */
  mode?: 'qr' | 'button';
  /** The element's `cancellable`, `gold-unit` and `allowed-schemes`, written as its attributes. */
  cancellable?: boolean;
  goldUnit?: string;
  allowedSchemes?: string;
  /** The service's time now (ms), which the countdown counts from; `Date.now()` by default. */
  now?: number;
  /** The time zone the expiry is written in for a page without JavaScript and a printed page; `UTC` by default. */
  timeZone?: string;
  /**
   * The link that checks the status without JavaScript; by default the BFF's own page under
   * `endpoint` (`/bills/:billId/status.html?token=…`). `null`: none.
   */
  statusUrl?: string | null;
  /**
   * Where the pay link (`mode: 'button'`, and in `mode: 'qr'` the "pay on this device" link shown
   * without JavaScript) goes; by default the BFF's pay route under `endpoint`
   * (`/bills/:billId/pay?token=…`), which marks this browser as the one that started the bill (its
   * return from the pay page then goes on to RETURN_URL) and sends it on to billUrl. `null`: billUrl
   * itself. A billUrl of one of `allowedSchemes` (an app's) is always linked as it is.
   */
  payUrl?: string | null;
}

/** The `<style>` the markup carries: the card's CSS and what only the server's markup needs. */
export const CHECKOUT_STYLE = cardCss + serverCss;

let styleHash: Promise<string> | undefined;

/** The CSP source that allows the markup's one `<style>` (`'sha256-…'`): add it to your page's `style-src`. */
export function checkoutStyleHash(): Promise<string> {
  styleHash ??= (async () => {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(CHECKOUT_STYLE)));
    let binary = '';
    for (const b of digest) binary += String.fromCharCode(b);
    return `'sha256-${btoa(binary)}'`;
  })();
  return styleHash;
}

/** The language the checkout's markup is written in for `locale`: what its `Content-Language` says. */
export function checkoutLanguage(locale: string | undefined): Language {
  return languageOf(canonicalLocale(locale));
}

function canonicalLocale(locale: string | undefined): string {
  try {
    return Intl.getCanonicalLocales((locale ?? 'en').replace(/_/g, '-'))[0] ?? 'en';
  } catch {
    return 'en';
  }
}

function expiryText(expiredOn: number, locale: string, timeZone: string): string {
  const options: Intl.DateTimeFormatOptions = {
    year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short',
  };
  try {
    return new Intl.DateTimeFormat(locale, { ...options, timeZone }).format(expiredOn);
  } catch {
    return new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' }).format(expiredOn);
  }
}

const noop = () => undefined;

/** The element's check of a bill URL, for the other routes of the server-rendered checkout. */
export { safeUrl };

/**
 * The server-rendered checkout of `bill`: `<bill-checkout …>` with its card inside (a declarative
 * shadow root, `<template shadowrootmode="open">`). Every value the service sent is escaped; the
 * markup carries nothing secret beyond the bill's own token, no script, and one `<style>` (allowed
 * by `checkoutStyleHash()`). The same HTML as `GET /api/bills/:billId/checkout.html`.
 */
export async function renderCheckout(bill: BillView, options: RenderCheckoutOptions): Promise<string> {
  const locale = canonicalLocale(options.locale);
  await loadStrings(locale);
  const s = stringsFor(locale)!;
  const language = languageOf(locale);
  const t = RENDER_TEXTS[language];
  const endpoint = options.endpoint ?? '/api';
  const schemes = parseSchemes(options.allowedSchemes);
  const url = safeUrl(bill.billUrl, schemes);
  // A URL too long for one QR code (its encoded form: a 2 KB URL of non-ASCII characters is up to
  // 18 KB once percent-encoded) is shown as the pay link: the bill is payable through it all the same.
  const mode = options.mode === 'button' || (url !== null && !qrFits(url)) ? 'button' : 'qr';
  const now = options.now ?? Date.now();
  const billPath = `${endpoint}/bills/${encodeURIComponent(bill.billId)}`;
  const statusUrl = options.statusUrl === undefined
    ? `${billPath}/status.html?token=${encodeURIComponent(options.token)}`
    : options.statusUrl;
  const payUrl = options.payUrl === undefined ? `${billPath}/pay?token=${encodeURIComponent(options.token)}` : options.payUrl;
  // Through the BFF when billUrl is a web page it may send the browser to; an app's link as it is.
  const payLink = (view: BillView) => (payUrl !== null && safeUrl(view.billUrl) !== null ? payUrl : safeUrl(view.billUrl, schemes));
  // The QR code's toggle needs the element's script: a phone shown the QR code without it gets a link instead.
  const payHere = mode === 'qr' && !bill.isFinal && !bill.processing && bill.expiredOn > now ? payLink(bill) : null;
  const expiry = new Date(bill.expiredOn);
  const host: CardHost = {
    billId: bill.billId,
    token: options.token,
    cancellable: options.cancellable ?? false,
    goldUnit: options.goldUnit,
    _bill: bill,
    _left: bill.expiredOn - now,
    _reconnecting: false,
    _confirming: false,
    _copied: false,
    _locale: locale,
    _display: {
      locale,
      billAmount: formatAmount(bill.billAmount, locale, bill.currency),
      requireGCAmount: bill.requireGCAmount === null ? null : formatAmount(bill.requireGCAmount, locale),
    },
    _showing: mode,
    // The QR code says billUrl itself.
    _url: (view) => (mode === 'button' ? payLink(view) : safeUrl(view.billUrl, schemes)),
    _qr: (url) => qrCode(url),
    _expiry: html`<p part="expiry" class="print">${t.payBy}: <time datetime=${expiry.toISOString()}>${expiryText(bill.expiredOn, locale, options.timeZone ?? 'UTC')}</time></p>`,
    _after: html`${payHere === null ? nothing : html`<noscript><a part="pay-here-link" href=${payHere}>${s.showButton}</a></noscript>`}${statusUrl === null
      ? nothing
      : html`<noscript><a part="status-link" href=${statusUrl}>${t.checkStatus}</a></noscript>`}`,
    _copy: noop,
    _toggle: noop,
    _ask: noop,
    _cancel: noop,
    _startAgain: noop,
  };
  const body = card(html, nothing, host, s) as Markup;
  // The element's attributes first (React and others write them so too); `mode` and `locale` say
  // what the server drew, so that the element draws the same.
  return html`<bill-checkout bill-id=${bill.billId} token=${options.token} endpoint=${options.endpoint} mode=${mode} locale=${locale}
    ?cancellable=${options.cancellable} gold-unit=${options.goldUnit} allowed-schemes=${options.allowedSchemes}><template shadowrootmode="open"><style>${new Markup(CHECKOUT_STYLE)}</style><div lang=${language}>${body}<p class="sr" role="status"></p></div></template></bill-checkout>`.text;
}
