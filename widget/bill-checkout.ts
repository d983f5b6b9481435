import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { AmountDisplay, BillView, Outcome } from '../contract/bill-view.js';
import { BffClient, BffError, isBillView, retryable, type BillRef, type Transport } from './bff-client.js';
import { Clock } from './clock.js';
import { CountdownController } from './controllers/countdown-controller.js';
import { prefersButton } from './device.js';
import { BillCreatedEvent, BillErrorEvent, BillFinalEvent, BillStatusEvent, BillTicketExpiredEvent } from './events.js';
import { formatAmount } from '../contract/decimal.js';
import { formatDuration } from './format.js';
import { icons } from './icons.js';
import { nextTask } from './next-task.js';
import type { BridgeMessage } from './native-bridge.js';
import { qrPath, type QrPath } from './qr-code.js';
import { parseSchemes, safeUrl } from './safe-url.js';
import { SessionController, type Problem } from './controllers/session-controller.js';
import { StatusController } from './controllers/status-controller.js';
import { en, languageOf, loadStrings, stringsFor, type Strings } from './strings.js';
import { styles } from './styles.js';

type FinalOutcome = Exclude<Outcome, 'pending'>;

/**
 * What the element shows, one screen at a time, decided in one place (`#screen`) and drawn by one
 * render method each:
 * - `idle`: nothing to show (no order, amount or bill to start from);
 * - `loading`: creating or reading the bill, and saying so while the BFF is unreachable;
 * - `problem`: no bill, and retrying will not bring one (the create or its ticket refused, the bill unknown);
 * - `pending`: the bill to pay: QR code or pay button, countdown, copy, toggle, cancel;
 * - `checking`: the countdown ended before a final status: asking the BFF, never "expired";
 * - `final`: the bill's outcome.
 */
type Screen =
  | { _name: 'idle' | 'loading' }
  | { _name: 'problem'; _problem: Exclude<Problem, 'unreachable'> }
  | { _name: 'pending'; _bill: BillView; _left: number }
  | { _name: 'checking' | 'final'; _bill: BillView };

let bridge: Promise<typeof import('./native-bridge.js')> | undefined;

const inputs = ['endpoint', 'orderId', 'orderTicket', 'amount', 'billId', 'token'] as const;

/** Time left at which the countdown is announced to screen readers. */
const announceAt = [300_000, 60_000, 30_000];

/**
 * A bill of the bill payment service, shown as a QR code or a pay button, its status followed
 * live, ending on a clear final state. Starts from `order-id` (with the `order-ticket` the
 * merchant's server minted for it) or `amount` (creating the bill
 * through the BFF at `endpoint`), or shows an existing bill from `bill-id` and `token`.
 *
 * @fires {BillCreatedEvent} bill-created - the BFF created a bill; `detail` is its BillView.
 * @fires {BillStatusEvent} bill-status - the bill's status changed (the first view included); `detail` is the BillView.
 * @fires {BillFinalEvent} bill-final - the bill reached a final status, exactly once per bill; `detail` is the BillView.
 * @fires {BillErrorEvent} bill-error - something failed; `detail` is the Error. The element shows it and retries where it can.
 * @fires {BillTicketExpiredEvent} bill-ticket-expired - the BFF refused `order-ticket` (expired, or not the order's); `detail` is `{orderId}`. The element asks the customer to reload the page; set a new `orderTicket` instead and it starts again with it.
 *
 * With `native-bridge` (or `parent-origin`), created, status and final are also posted to the host
 * app (or the framing page) as `{type: "bill-checkout", version: 1, event, bill}`: a hint, which
 * the app confirms on its own server.
 *
 * @slot paid - Merchant content shown once the bill is paid.
 * @slot failed - Merchant content shown when the payment failed.
 * @slot cancelled - Merchant content shown when the bill was cancelled.
 * @slot expired - Merchant content shown when the bill expired.
 *
 * @csspart base - The card that holds everything shown.
 * @csspart amount - The amount to pay.
 * @csspart gold-amount - The gold-conversion amount required, followed by `gold-unit`.
 * @csspart reference - The merchant's reference of the bill.
 * @csspart countdown - The time left to pay (from 100 hours before the deadline).
 * @csspart qr - The QR code of the bill URL (an SVG).
 * @csspart pay-button - The link that opens the bill URL.
 * @csspart copy-button - Copies the bill URL.
 * @csspart toggle-button - Switches between the QR code and the pay button.
 * @csspart cancel-button - Cancels the pending bill (with `cancellable`), after asking.
 * @csspart cancel-confirm - The Yes and No buttons of the question whether to cancel.
 * @csspart status - The status line.
 * @csspart error - Why the bill URL is not shown.
 * @csspart icon - The icon of a final or error state.
 * @csspart heading - The heading of a final state.
 * @csspart start-again-button - Creates a new bill after a failed, cancelled or expired one.
 * @csspart retry-button - Tries to create the bill again after a refusal.
 * @csspart reload-button - Reloads the page after the BFF refused the order ticket.
 *
 * @cssprop --bill-checkout-background - Card background (default: the system's Canvas color).
 * @cssprop --bill-checkout-color - Text color (default: CanvasText). Light and dark follow `color-scheme`.
 * @cssprop --bill-checkout-border-color - Borders of the card and buttons.
 * @cssprop --bill-checkout-accent - Background of the main buttons and the focus ring.
 * @cssprop --bill-checkout-accent-color - Text of the main buttons.
 * @cssprop --bill-checkout-success - Icon color when paid.
 * @cssprop --bill-checkout-danger - Icon color of failures and errors.
 * @cssprop --bill-checkout-warning - Icon color of cancelled, expired and checking.
 * @cssprop --bill-checkout-radius - Corner radius of the card.
 * @cssprop --bill-checkout-font - Font family.
 * @cssprop --bill-checkout-qr-size - Largest width of the QR code (it is always dark on white).
 */
export class BillCheckout extends LitElement {
  static override styles = styles;

  static override properties = {
    endpoint: {},
    orderId: { attribute: 'order-id' },
    orderTicket: { attribute: 'order-ticket' },
    amount: {},
    billId: { attribute: 'bill-id' },
    token: {},
    mode: {},
    locale: {},
    cancellable: { type: Boolean },
    allowedSchemes: { attribute: 'allowed-schemes' },
    nativeBridge: { attribute: 'native-bridge', type: Boolean },
    parentOrigin: { attribute: 'parent-origin' },
    goldUnit: { attribute: 'gold-unit' },
    strings: { attribute: false },
    _bill: { state: true },
    _problem: { state: true },
    _reconnecting: { state: true },
    _chosenView: { state: true },
    _announcement: { state: true },
    _confirming: { state: true },
    _copied: { state: true },
  };

  /** Base URL of the BFF's API. */
  endpoint = '/api';

  /** The merchant's order to create a bill for. */
  orderId?: string;

  /** The ticket the merchant's server minted for `order-id` (`<expiresAtMs>.<sig>`); the BFF refuses the order without it when it checks tickets. */
  orderTicket?: string;

  /** An amount (decimal text) to create a bill for, when the BFF accepts amounts from browsers. */
  amount?: string;

  /** An existing bill to show, together with `token`. */
  billId?: string;

  /** The capability token that reads the bill of `bill-id`. */
  token?: string;

  /** `auto`: the pay button on touch devices, narrow screens and in-app webviews, the QR code elsewhere; or `qr`, `button`. */
  mode: 'auto' | 'qr' | 'button' = 'auto';

  /** BCP 47 locale of the texts and amounts; the browser's when unset. */
  locale?: string;

  /** Shows a cancel button while the bill is pending. */
  cancellable = false;

  /** Comma-separated URL schemes (`myapp:`) the bill URL may use besides `https:`. */
  allowedSchemes?: string;

  /** Posts created, status and final to the host app through the first native channel there is (React Native, WKWebView, Android, Flutter). */
  nativeBridge = false;

  /** The origin of a framing page to post created, status and final to (never `*`). */
  parentOrigin?: string;

  /** The unit shown after the gold amount (`g`, `oz`…); `strings.goldUnit` when unset. */
  goldUnit?: string;

  /** Overrides of the shown texts (a Partial of the English strings object). */
  strings: Partial<Strings> = {};

  /** The fetch used to call the BFF; `globalThis.fetch` when unset (a hook for tests and wrappers). */
  fetchImpl?: typeof fetch;

  /** The EventSource class used for live status; `globalThis.EventSource` when unset. */
  eventSourceImpl?: typeof EventSource;

  private _bill?: BillView;
  private _problem?: Problem;
  private _reconnecting = false;
  private _chosenView?: 'qr' | 'button';
  private _announcement = '';
  private _confirming = false;
  private _copied = false;

  readonly #clock = new Clock();
  readonly #status = new StatusController(this, {
    _onView: (view) => this.#applyView(view),
    _onError: (error) => this.#statusFailed(error),
  });
  readonly #countdown = new CountdownController(this, this.#clock, () => {
    if (this._bill && !this._bill.isFinal) {
      this._announcement = this.#text.checking;
      this.#status._checkNow();
    }
  });
  readonly #session = new SessionController(this, {
    _onStart: () => this.#reset(),
    _onBill: (ref, view) => this.#show(ref, view),
    _onCreated: (view) => this.#emit(new BillCreatedEvent(view)),
    _onProblem: (problem, error) => this.#fail(problem, error),
  });
  #client?: BffClient;
  #ref?: BillRef;
  #finalFor?: string;
  #unsafeFor?: string;
  #autoView?: 'qr' | 'button';
  #qrCache?: { _url: string; _qr: QrPath };
  #display?: AmountDisplay;
  #hadFocus = false;
  #cancelling = false;
  #left = Infinity;

  protected override async scheduleUpdate(): Promise<void> {
    // On a phone's CPU the render is a long task with what comes before it in the same task: the
    // script's evaluation (the first render), or the answer that brought a new bill and the
    // encoding of its QR code: each gets a task of its own (nextTask).
    if (!this.hasUpdated || this.#qrToEncode()) await nextTask();
    if (this.#encode()) await nextTask();
    super.scheduleUpdate();
  }

  /** The bill URL whose QR code is to be shown, when it is not encoded yet. */
  #qrToEncode(): string | false | null | undefined {
    const url = this._bill && this.#showing === 'qr' && this.#url(this._bill);
    return url !== this.#qrCache?._url && url;
  }

  /** Encodes the QR code of `url` (by default #qrToEncode), unless it is encoded; true when it did. */
  #encode(url = this.#qrToEncode()): boolean {
    if (!url || this.#qrCache?._url === url) return false;
    this.#qrCache = { _url: url, _qr: qrPath(url) };
    return true;
  }

  get #showing(): 'qr' | 'button' {
    // Chosen once, when the first bill is shown: the view does not change under the customer.
    return this._chosenView ?? (this.mode === 'auto' ? (this.#autoView ??= prefersButton() ? 'button' : 'qr') : this.mode);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // Not English: the language's module loads once, and the element shows nothing until it is there.
    if (!stringsFor(this.#locale)) {
      void loadStrings(this.#locale).then(() => {
        // Announced before the language was there, so in English: say it in the language.
        const key = (Object.keys(en) as (keyof Strings)[]).find((k) => en[k] === this._announcement);
        if (key) this._announcement = this.#text[key];
        this.requestUpdate();
      });
    }
    if (inputs.some((name) => changed.has(name))) this.#session._start();
    this.#hadFocus = this.matches(':focus-within');
    const left = this.#countdown._remaining;
    if (this.#left < Infinity && left > 0 && announceAt.some((at) => left <= at && this.#left > at)) {
      this._announcement = `${this.#text.timeLeft}: ${formatDuration(left)}`;
    }
    this.#left = left;
  }

  protected override updated(): void {
    // Keep keyboard focus inside when the focused control went away (cancel → final state).
    if (this.#hadFocus && !this.matches(':focus-within')) {
      this.renderRoot.querySelector<HTMLElement>('[data-focus]')?.focus();
    }
  }

  get #locale(): string {
    // WebKitGTK on a POSIX system says "C", no language tag; left to Intl's default that formats "$ 12500.50".
    try {
      return Intl.getCanonicalLocales((this.locale ?? navigator.language).replace(/_/g, '-'))[0]!;
    } catch {
      return 'en';
    }
  }

  get #text(): Strings {
    return { ...(stringsFor(this.#locale) ?? en), ...this.strings };
  }

  #emit(event: BillCreatedEvent | BillStatusEvent | BillFinalEvent): void {
    this.dispatchEvent(event);
    const { nativeBridge, parentOrigin } = this;
    if (!nativeBridge && !parentOrigin) return;
    // bill-created → created, bill-status → status, bill-final → final.
    const message: BridgeMessage = { type: 'bill-checkout', version: 1, event: event.type.slice(5) as BridgeMessage['event'], bill: event.detail };
    // Only pages in an app's webview or a frame load the bridge; messages keep their order, chained on its import.
    (bridge ??= import('./native-bridge.js')).then(({ postToHost }) => postToHost(message, nativeBridge, parentOrigin), (error: unknown) => this.#emitError(error));
  }

  #reset(): BffClient {
    this.#status.stop();
    this.#countdown.set(undefined);
    this._bill = this.#ref = this._problem = this._chosenView = undefined;
    this._reconnecting = this._copied = this._confirming = false;
    return (this.#client = new BffClient(this.endpoint, this.#transport(), this.#clock));
  }

  #transport(): Transport {
    return {
      fetch: this.fetchImpl ?? ((input, init) => globalThis.fetch(input, init)),
      EventSource: this.eventSourceImpl ?? globalThis.EventSource,
    };
  }

  #show(ref: BillRef, view: BillView): void {
    this.#ref = ref;
    this._problem = undefined;
    this.#applyView(view);
    if (!view.isFinal) this.#status._follow(this.#client!, ref, this.#transport().EventSource);
  }

  #applyView(view: BillView): void {
    const previous = this._bill;
    // Never backwards: nothing after a final, nor an answer older than the one shown (a slow poll).
    if (previous?.billId === view.billId && (previous.isFinal || (view.dateTime ?? 0) < (previous.dateTime ?? 0))) return;
    const s = this.#text;
    this._bill = view;
    // Creates and reads carry it, the stream's views not: kept while the bill is the same.
    this.#display = view.display ?? (previous?.billId === view.billId ? this.#display : undefined);
    this._reconnecting = false;
    this.#countdown.set(view.isFinal ? undefined : view.expiredOn);
    if (!view.isFinal && this.#unsafeFor !== view.billUrl && !this.#url(view)) {
      this.#unsafeFor = view.billUrl;
      this.#emitError(new BffError('unsafe_url', 'Unsafe bill URL'));
    }
    if (
      previous?.billId !== view.billId || previous.status !== view.status
      || previous.outcome !== view.outcome || previous.isFinal !== view.isFinal
    ) {
      this.#emit(new BillStatusEvent(view));
      this._announcement = view.isFinal
        ? s[finalOutcome(view)]
        : this.#countdown._remaining > 0 ? s.waiting : s.checking;
    }
    if (view.isFinal && this.#finalFor !== view.billId) {
      this.#finalFor = view.billId;
      this.#status.stop();
      this.#emit(new BillFinalEvent(view));
    }
  }

  #statusFailed(error: unknown): boolean {
    if (!retryable(error)) {
      this.#session._forget();
      this.#fail('notFound', error);
      return false;
    }
    if (!this._reconnecting) {
      this._reconnecting = true;
      this._announcement = this.#text.reconnecting;
      this.#emitError(error);
    }
    return true;
  }

  #fail(problem: Problem, error: unknown): void {
    this.#status.stop();
    this.#countdown.set(undefined);
    this._bill = undefined;
    this._problem = problem;
    this._announcement = this.#text[problem];
    this.#emitError(error);
    if (problem === 'ticketExpired') this.dispatchEvent(new BillTicketExpiredEvent(this.orderId!));
  }

  #emitError(error: unknown): void {
    this.dispatchEvent(new BillErrorEvent(error as Error));
  }

  #url(view: BillView): string | null {
    return safeUrl(view.billUrl, parseSchemes(this.allowedSchemes));
  }

  async #cancel(): Promise<void> {
    const ref = this.#ref;
    if (!ref || this.#cancelling) return;
    this.#cancelling = true;
    try {
      const body = await this.#client!.cancel(ref, new AbortController().signal);
      if (isBillView(body)) this.#applyView(body);
    } catch (error) {
      this.#emitError(error);
    } finally {
      this.#cancelling = this._confirming = false;
      this.#status._checkNow();
    }
  }

  #startAgain(): void {
    this.#session._forget();
    this.#session._start();
  }

  async #copy(url: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(url);
      this._copied = true;
      this._announcement = this.#text.copied;
    } catch (error) {
      this.#emitError(error);
    }
  }

  protected override render(): TemplateResult {
    // Read in the voice of the language shown, whatever the page's own `lang`.
    return html`<div lang=${languageOf(this.#locale)}>${stringsFor(this.#locale) ? this.#body(this.#text) : nothing}<p class="sr" role="status">${this._announcement}</p></div>`;
  }

  /** What the element shows now; the one place that decides it. */
  get #screen(): Screen {
    const { _bill: bill, _problem: problem } = this;
    // `unreachable` is no screen of its own: the loading one, while the call is retried.
    if (problem && problem !== 'unreachable') return { _name: 'problem', _problem: problem };
    if (!bill) return { _name: (this.billId && this.token) || this.orderId || this.amount ? 'loading' : 'idle' };
    if (bill.isFinal) return { _name: 'final', _bill: bill };
    const left = this.#countdown._remaining;
    return left > 0 ? { _name: 'pending', _bill: bill, _left: left } : { _name: 'checking', _bill: bill };
  }

  #body(s: Strings): TemplateResult | typeof nothing {
    const screen = this.#screen;
    switch (screen._name) {
      case 'idle':
        return nothing;
      case 'loading':
        return this.#loading(s);
      case 'problem':
        return this.#problem(screen._problem, s);
      case 'pending':
        return this.#pending(screen._bill, screen._left, s);
      case 'checking':
        return this.#checking(screen._bill, s);
      case 'final':
        return this.#final(screen._bill, s);
    }
  }

  #loading(s: Strings): TemplateResult {
    const retrying = this._problem === 'unreachable';
    return html`<div part="base">
        <p part="status" class=${retrying ? 'strong' : ''}>${retrying ? s.unreachable : s.loading}</p>
      </div>`;
  }

  #problem(problem: Exclude<Problem, 'unreachable'>, s: Strings): TemplateResult {
    return html`<div part="base">
        ${icon(problem === 'ticketExpired' ? 'expired' : 'failed')}
        <p part="status" class="strong" tabindex="-1" data-focus>${s[problem]}</p>
        ${problem === 'createFailed'
          ? html`<button part="retry-button" class="primary" @click=${this.#startAgain}>${s.startAgain}</button>`
          : problem === 'ticketExpired'
            // The page's server mints a new ticket; a page that sets one itself restarts the element (willUpdate).
            ? html`<button part="reload-button" class="primary" @click=${() => location.reload()}>${s.reload}</button>`
            : nothing}
      </div>`;
  }

  #pending(bill: BillView, left: number, s: Strings): TemplateResult {
    const url = this.#url(bill);
    const showing = this.#showing;
    return html`<div part="base">
      ${this.#summary(bill, s)}
      ${left < 36e7 ? html`<p part="countdown" role="timer">${s.timeLeft}: ${formatDuration(left)}</p>` : nothing}
      ${this.#payment(url, showing, s)}
      <p part="status">${s.waiting}</p>
      ${this.#reconnecting(s)}
      ${url === null
        ? nothing
        : html`<button part="toggle-button" @click=${() => (this._chosenView = showing === 'button' ? 'qr' : 'button')}>
            ${showing === 'button' ? s.showQr : s.showButton}
          </button>`}
      ${this.cancellable ? this.#cancelControls(s) : nothing}
    </div>`;
  }

  #checking(bill: BillView, s: Strings): TemplateResult {
    return html`<div part="base">
        ${this.#summary(bill, s)} ${icon('expired')}
        <p part="status" class="strong">${s.checking}</p>
        ${this.#reconnecting(s)}
      </div>`;
  }

  #final(bill: BillView, s: Strings): TemplateResult {
    const outcome = finalOutcome(bill);
    return html`<div part="base">
        ${icon(outcome)}
        <h2 part="heading" tabindex="-1" data-focus>${s[outcome]}</h2>
        ${this.#summary(bill, s)}
        <slot name=${outcome}></slot>
        ${outcome !== 'paid' && !(this.billId && this.token) && (this.orderId || this.amount)
          ? html`<button part="start-again-button" class="primary" @click=${this.#startAgain}>${s.startAgain}</button>`
          : nothing}
      </div>`;
  }

  /** The amounts and the reference, on the pending, checking and final screens. */
  #summary(bill: BillView, s: Strings): TemplateResult {
    const unit = this.goldUnit ?? s.goldUnit;
    const shown = this.#display?.locale === this.#locale ? this.#display : null;
    return html`<p class="muted">${bill.isFinal ? (bill.outcome === 'paid' ? s.amountPaid : s.amountFinal) : s.amount}</p>
      <p part="amount">${shown?.billAmount ?? formatAmount(bill.billAmount, this.#locale, bill.currency)}</p>
      ${bill.requireGCAmount === null
        ? nothing
        : html`<p part="gold-amount">${s.gold}: ${shown?.requireGCAmount ?? formatAmount(bill.requireGCAmount, this.#locale)}${unit ? ` ${unit}` : ''}</p>`}
      ${bill.merchantReference
        ? html`<p part="reference" class="muted">${s.reference}: ${bill.merchantReference}</p>`
        : nothing}`;
  }

  #reconnecting(s: Strings): TemplateResult | typeof nothing {
    return this._reconnecting ? html`<p class="strong">${s.reconnecting}</p>` : nothing;
  }

  /** The QR code or the pay button, and the copy button; or why the bill URL is not shown. */
  #payment(url: string | null, showing: 'qr' | 'button', s: Strings): TemplateResult {
    if (url === null) return html`<p part="error" class="strong">${s.unsafeUrl}</p>`;
    let payment;
    if (showing === 'button') {
      payment = html`<a part="pay-button" class="primary" href=${url}>${s.pay}</a>`;
    } else {
      this.#encode(url);
      const { size, d } = this.#qrCache!._qr;
      payment = html`<svg part="qr" role="img" aria-label=${s.qrLabel} viewBox="0 0 ${size} ${size}"
          shape-rendering="crispEdges"><rect width=${size} height=${size}></rect><path d=${d}></path></svg>
        <p class="muted">${s.scan}</p>`;
    }
    // In both views: in-app browsers that block handing the link to an app leave copying it.
    return html`${payment}<button part="copy-button" @click=${() => this.#copy(url)}>${this._copied ? s.copied : s.copy}</button>`;
  }

  /** The cancel button, or the question it asks first. */
  #cancelControls(s: Strings): TemplateResult {
    return this._confirming
      ? html`<p id="ask" class="strong">${s.cancelAsk}</p>
        <div part="cancel-confirm" role="group" aria-labelledby="ask">
          <button @click=${this.#cancel}>${s.yes}</button>
          <button data-focus @click=${() => (this._confirming = false)}>${s.no}</button>
        </div>`
      : html`<button part="cancel-button" data-focus @click=${() => (this._confirming = true)}>${s.cancel}</button>`;
  }
}

function finalOutcome(view: BillView): FinalOutcome {
  return view.outcome === 'pending' ? 'failed' : view.outcome;
}

function icon(name: keyof typeof icons): TemplateResult {
  return html`<svg part="icon" class="icon ${name}" viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="10"></circle><path d=${icons[name]}></path></svg>`;
}
