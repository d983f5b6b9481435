// The card's screens as pure templates, one source of markup for both sides: the element draws them
// with Lit's `html` and `nothing`, the server (server/http/render/) with a string tag of its own,
// so that the markup the server sends is the element's, and the element takes it over unchanged.
// Nothing here imports Lit or the QR encoder: only types, text and the contract.
import type { AmountDisplay, BillView, Outcome } from '../../contract/bill-view.js';
import { formatAmount } from '../../contract/decimal.js';
import { formatDuration } from '../format.js';
import { icons } from '../icons.js';
import type { QrPath } from '../qr-code.js';
import type { Strings } from '../strings.js';

/** A tag function: Lit's `html` in the element, the server's string tag in server/http/render/. */
export type Tag<R> = (strings: TemplateStringsArray, ...values: unknown[]) => R;

/**
 * What the templates read: the element itself, or the server's stand-in for it. Handlers are the
 * element's methods (Lit calls them with the element as `this`); the server's tag drops every
 * `@event` binding.
 */
export interface CardHost {
  billId?: string | undefined;
  token?: string | undefined;
  orderId?: string | undefined;
  amount?: string | undefined;
  cancellable: boolean;
  goldUnit?: string | undefined;
  /** The bill shown, once there is one. */
  _bill?: BillView | undefined;
  /** Why there is no bill; `unreachable` is the loading screen, while the call is retried. */
  _problem?: 'unreachable' | 'createFailed' | 'ticketExpired' | 'notFound' | undefined;
  /** Milliseconds left to pay, on the service's clock. */
  _left: number;
  /** Absent: false (the element's, before its first start). */
  _reconnecting?: boolean | undefined;
  _confirming?: boolean | undefined;
  _copied?: boolean | undefined;
  /** The canonical locale of the texts and amounts. */
  _locale: string;
  /** The BFF's formatted amounts, used when they are for `_locale`. */
  _display?: AmountDisplay | undefined;
  _showing: 'qr' | 'button';
  /** The bill URL if it is safe to show, else null. */
  _url(bill: BillView): string | null;
  /** The pay link of a (safe) bill URL; the server's markup has its own in `_url`. */
  _pay?(url: string): string;
  /** The QR code of a (safe) bill URL. */
  _qr(url: string): QrPath;
  /**
   * The server's markup for a page without JavaScript and a printed page: the bill's expiry
   * (`<p part="expiry" class="print">`, where the countdown is), and after the secondary actions
   * a link that checks the status. The element has neither.
   */
  _expiry?: unknown;
  _after?: unknown;
  _copy(url: string): void;
  _toggle(): void;
  /** Asks whether to cancel, or (No) stops asking. */
  _ask(): void;
  _cancel(): void;
  _startAgain(): void;
}

/** The time left from which the countdown is shown, 100 hours in ms: a deadline further away (or absurd) is not counted down. */
const countdownFrom = 100 * 3_600_000;

/** The screens of the card, described at `card`. */
export type Screen = 'idle' | 'loading' | 'problem' | 'pending' | 'confirming' | 'checking' | 'final';

/** What decides the screen. */
export type ScreenState = Pick<CardHost, 'billId' | 'token' | 'orderId' | 'amount' | '_bill' | '_problem' | '_left'>;

/** The screen the card draws from `c`: decided here only, so that the element asks rather than predicts. */
export function screenOf(c: ScreenState): Screen {
  const { _bill: bill, _problem: why } = c;
  if (why && why !== 'unreachable') return 'problem';
  if (!bill) return (c.billId && c.token) || c.orderId || c.amount ? 'loading' : 'idle';
  if (bill.isFinal) return 'final';
  if (bill.processing) return 'confirming';
  return c._left > 0 ? 'pending' : 'checking';
}

/** The URL whose QR code the card draws from `c`, if it draws one: the pending screen, showing the QR code of a safe URL. */
export function qrUrlOf(c: ScreenState & Pick<CardHost, '_showing' | '_url'>): string | null | false {
  return screenOf(c) === 'pending' && c._showing === 'qr' && c._url(c._bill!);
}

export type FinalOutcome = Exclude<Outcome, 'pending'>;

export function finalOutcome(view: BillView): FinalOutcome {
  return view.outcome === 'pending' ? 'failed' : view.outcome;
}

/**
 * What the element shows, one screen at a time, decided in one place (screenOf)
 * and drawn by one template each:
 * - idle: nothing to show (no order, amount or bill to start from);
 * - loading: creating or reading the bill, and saying so while the BFF is unreachable;
 * - problem: no bill, and retrying will not bring one (the create or its ticket refused, the bill unknown);
 * - pending: the bill to pay: the QR code or the pay button (the one primary action), countdown,
 *   status, and the quiet ones: copy, switch view, cancel;
 * - confirming: the customer has paid and the service is confirming (a processing status, never
 *   final): no QR, no pay button, no cancel, no countdown; only a final status ends it;
 * - checking: the countdown ended before a final status: asking the BFF, never "expired";
 * - final: the bill's outcome, and what happened to the money.
 * The body is drawn inside the element's `<div lang>`, with `html` and `nothing`.
 */
export function card<R>(html: Tag<R>, nothing: unknown, c: CardHost, s: Strings): unknown {
  const icon = (name: keyof typeof icons) =>
    html`<svg part="icon" class="icon ${name}" viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="10"></circle><path d=${icons[name]}></path></svg>`;
  // The bill of the screens that have one (screenOf).
  const bill = c._bill!;
  const reconnecting = () => (c._reconnecting ? html`<p class="strong">${s.reconnecting}</p>` : nothing);
  // The amounts and the reference; the gold amount only while it is to be paid (not once paid and
  // being confirmed).
  const summary = (bill: BillView) => {
    const unit = c.goldUnit ?? s.goldUnit;
    const shown = c._display?.locale === c._locale ? c._display : null;
    const due = !bill.isFinal && !bill.processing;
    return html`<p class="muted">${due ? s.amount : bill.outcome === 'paid' ? s.amountPaid : s.amountFinal}</p>
      <p part="amount">${shown?.billAmount ?? formatAmount(bill.billAmount, c._locale, bill.currency)}</p>
      ${bill.requireGCAmount === null || !due
        ? nothing
        : html`<p part="gold-amount">${s.gold}: ${shown?.requireGCAmount ?? formatAmount(bill.requireGCAmount, c._locale)}${unit ? ` ${unit}` : ''}</p>`}
      ${bill.merchantReference
        ? html`<p part="reference" class="muted">${s.reference}: ${bill.merchantReference}</p>`
        : nothing}`;
  };

  const loading = () => html`<div part="base">
        <p part="status" class=${c._problem ? 'strong' : ''}>${c._problem ? s.unreachable : s.loading}</p>
      </div>`;

  const problem = () => {
    const why = c._problem!;
    return html`<div part="base">
        ${icon(why === 'ticketExpired' ? 'expired' : 'failed')}
        <p part="status" class="strong" tabindex="-1" data-focus>${s[why]}</p>
        ${why === 'createFailed'
          ? html`<button part="retry-button" class="primary" @click=${c._startAgain}>${s.startAgain}</button>`
          : why === 'ticketExpired'
            // The page's server mints a new ticket; a page that sets one itself restarts the element.
            ? html`<button part="reload-button" class="primary" @click=${() => location.reload()}>${s.reload}</button>`
            : nothing}
      </div>`;
  };

  const pending = () => {
    const left = c._left;
    const url = c._url(bill);
    const showing = c._showing;
    const qrUrl = qrUrlOf(c);
    const qr = qrUrl && c._qr(qrUrl);
    return html`<div part="base">
      ${summary(bill)}
      ${url === null
        ? html`<p part="error" class="strong">${s.unsafeUrl}</p>`
        : qr
          ? html`<svg part="qr" role="img" aria-label=${s.qrLabel} viewBox="0 0 ${qr.size} ${qr.size}"
          shape-rendering="crispEdges"><rect width=${qr.size} height=${qr.size}></rect><path d=${qr.d}></path></svg>
        <p class="muted">${s.scan}</p>`
          : html`<a part="pay-button" class="primary" href=${c._pay?.(url) ?? url}>${s.pay}</a>`}
      ${c._expiry}
      ${left < countdownFrom ? html`<p part="countdown" role="timer">${s.timeLeft}: ${formatDuration(left)}</p>` : nothing}
      <p part="status">${s.waiting}</p>
      ${reconnecting()}
      <div class="more">
        ${url === null ? nothing : html`<button part="copy-button" @click=${() => c._copy(url)}>${c._copied ? s.copied : s.copy}</button>
          <button part="toggle-button" @click=${c._toggle}>${showing === 'button' ? s.showQr : s.showButton}</button>`}
        ${!c.cancellable
          ? nothing
          : c._confirming
            ? html`<p id="ask" class="strong">${s.cancelAsk}</p>
        <div part="cancel-confirm" role="group" aria-labelledby="ask">
          <button @click=${c._cancel}>${s.yes}</button>
          <button data-focus @click=${c._ask}>${s.no}</button>
        </div>`
            : html`<button part="cancel-button" data-focus @click=${c._ask}>${s.cancel}</button>`}
      </div>
      ${c._after}
    </div>`;
  };

  // Confirming and checking: waiting for the service, with nothing to act on. The status line takes
  // the focus of a control that went away (the pay or cancel button, when the bill moved on).
  const waiting = (status: string) => html`<div part="base">
        ${summary(bill)} ${icon('expired')}
        <p part="status" class="strong" tabindex="-1" data-focus>${status}</p>
        ${reconnecting()}
        ${c._after}
      </div>`;

  const final = () => {
    const outcome = finalOutcome(bill);
    return html`<div part="base">
        ${icon(outcome)}
        <h2 part="heading" tabindex="-1" data-focus>${s[outcome]}</h2>
        ${outcome === 'paid' ? nothing : html`<p part="money">${s.noMoney}</p>`}
        ${summary(bill)}
        <slot name=${outcome}></slot>
        ${outcome !== 'paid' && !(c.billId && c.token) && (c.orderId || c.amount)
          ? html`<button part="start-again-button" class="primary" @click=${c._startAgain}>${s.startAgain}</button>`
          : nothing}
      </div>`;
  };

  const screen = screenOf(c);
  if (screen === 'problem') return problem();
  if (screen === 'loading') return loading();
  if (screen === 'final') return final();
  if (screen === 'pending') return pending();
  if (screen === 'idle') return nothing;
  // A screen added to Screen fails to compile here until it is drawn above.
  const waitingFor: 'confirming' | 'checking' = screen;
  return waiting(s[waitingFor]);
}
