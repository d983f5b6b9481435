import { languageOf as tagLanguage, type Language } from '../contract/languages.js';

/** Every text the element shows or announces, in English (shipped in the element). */
export const en = {
  loading: 'Loading your bill…',
  unreachable: 'Cannot reach the payment service. Retrying…',
  reconnecting: 'Connection lost. Retrying…',
  amount: 'Amount to pay',
  amountPaid: 'Amount paid',
  amountFinal: 'Amount',
  gold: 'Gold required',
  /** The unit after the gold amount (the service's documents do not name it): empty by default, or the `gold-unit` attribute. */
  goldUnit: '',
  reference: 'Reference',
  timeLeft: 'Time left',
  qrLabel: 'Payment QR code',
  scan: 'Scan it with your payment app.',
  pay: 'Pay now',
  copy: 'Copy link',
  copied: 'Link copied',
  showQr: 'Show QR code',
  showButton: 'Pay on this device',
  waiting: 'Waiting for payment…',
  checking: 'Checking your payment…',
  /** A processing status: the customer has paid and the service is confirming it. */
  confirming: 'Confirming your payment… No need to pay again.',
  cancel: 'Cancel',
  cancelAsk: 'Cancel this payment?',
  yes: 'Yes',
  no: 'No',
  paid: 'Payment received',
  failed: 'Payment failed',
  cancelled: 'Payment cancelled',
  expired: 'Bill expired',
  /** Under a failed, cancelled or expired heading: what happened to the money. */
  noMoney: 'No money was taken.',
  startAgain: 'Start again',
  unsafeUrl: 'This payment link is not safe.',
  notFound: 'Bill not found.',
  createFailed: 'Could not create the bill.',
  ticketExpired: 'This checkout has expired. Reload the page to start again.',
  reload: 'Reload page',
};

/** The strings object; the `strings` property takes a Partial of it. */
export type Strings = typeof en;

/** The languages shipped besides English, each a small module loaded on demand next to the element's. */
const languages = {
  id: () => import('./locales/id.js'),
  ms: () => import('./locales/ms.js'),
  th: () => import('./locales/th.js'),
  vi: () => import('./locales/vi.js'),
  'zh-CN': () => import('./locales/zh-CN.js'),
} satisfies Record<Exclude<Language, 'en'>, () => Promise<{ default: Strings }>>;


// Each language's strings once loaded (English when its module could not load: for the rest of the page's life), and the loads under way.
const ready = new Map<Language, Strings>([['en', en]]);
const loads = new Map<Language, Promise<unknown>>();

/** The shipped language of a BCP 47 locale (contract/languages.ts's `languageOf`), English when not shipped. */
export function languageOf(locale?: string): Language {
  return tagLanguage(locale) ?? 'en';
}

/** Loads the module of a locale's language once; resolves when `stringsFor` gives it (or English, when it cannot load). */
export function loadStrings(locale?: string): Promise<unknown> {
  const lang = languageOf(locale);
  let load = loads.get(lang);
  if (!ready.has(lang) && !load) {
    load = languages[lang as keyof typeof languages]().then(
      (module) => ready.set(lang, { ...en, ...module.default }),
      () => ready.set(lang, en),
    );
    loads.set(lang, load);
  }
  return load ?? Promise.resolve();
}

/** The strings of a locale's language once loaded (`loadStrings`), else `undefined`. */
export function stringsFor(locale?: string): Strings | undefined {
  return ready.get(languageOf(locale));
}
