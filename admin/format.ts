// How the admin page writes times, amounts, durations and the BFF's words, in the page's language.
import type { LocalBill, NoticeView } from '../contract/admin.js';
import { formatAmount } from '../contract/decimal.js';
import type { Language } from '../contract/languages.js';
import type { AdminStrings } from './strings.js';
import { el } from './dom.js';

export type Formats = ReturnType<typeof formats>;

export function formats(lang: Language, a: AdminStrings) {
  const dateTime = new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'medium' });
  const timeOnly = new Intl.DateTimeFormat(lang, { timeStyle: 'medium' });
  const day = new Intl.DateTimeFormat('en-CA', { dateStyle: 'short' });
  const ms = new Intl.NumberFormat(lang, { style: 'unit', unit: 'millisecond', unitDisplay: 'short', maximumFractionDigits: 0 });

  /** Today's times by the clock alone ("12:03:04"), older ones with their date. */
  function when(at: number | null): string {
    if (at === null || !Number.isFinite(at)) return '';
    return day.format(at) === day.format(Date.now()) ? timeOnly.format(at) : dateTime.format(at);
  }

  /** How the final status was learned and when ("Callback · 12:03:04"); null while pending. */
  function learned(local: LocalBill): HTMLElement | null {
    if (!local.finalReason) return null;
    return el('span', { className: 'learned', title: a.learnedTitle },
      a.learned(a.reasons[local.finalReason], when(local.finalAt)));
  }

  /** "Retrying" once an attempt failed, "Queued" before the first. */
  function noticeState(n: Pick<NoticeView, 'state' | 'attempts' | 'log'>): string {
    if (n.state !== 'pending') return a.notice[n.state];
    return n.attempts > 0 || n.log.length > 0 ? a.notice.retrying : a.notice.queued;
  }

  return {
    when,
    learned,
    noticeState,
    dateTime: (at: number | null) => (at === null || !Number.isFinite(at) ? '' : dateTime.format(at)),
    amount: (amount: string, currency: string | null) => formatAmount(amount, lang, currency ?? undefined),
    duration: (millis: number) => ms.format(millis),
    status: (name: string | null, code: number | null) => (code === null ? (name ?? '') : `${name ?? ''} (${code})`),
  };
}
