import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { AmountDisplay, BillView } from '../contract/bill-view.js';
import { BffClient, BffError, isBillView, retryable, type BillRef } from './bff-client.js';
import { Clock } from './clock.js';
import { CountdownController } from './controllers/countdown-controller.js';
import { prefersButton } from './device.js';
import { BillCreatedEvent, BillErrorEvent, BillFinalEvent, BillStatusEvent, BillTicketExpiredEvent } from './events.js';
import { card, finalOutcome, qrUrlOf } from './card/card.js';
import { formatDuration } from './format.js';
import { nextTask } from './next-task.js';
import type { BridgeMessage } from './native-bridge.js';
import { qrPath, type QrPath } from './qr-code.js';
import { parseSchemes, safeUrl } from './safe-url.js';
import { SessionController, type Problem } from './controllers/session-controller.js';
import { StatusController } from './controllers/status-controller.js';
import { en, languageOf, loadStrings, stringsFor, type Strings } from './strings.js';
import { styles } from './styles.js';

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
 * @csspart pay-button - The link that opens the bill URL (a web one through the BFF's pay link, which marks this browser as the one that started the bill).
 * @csspart copy-button - Copies the bill URL.
 * @csspart toggle-button - Switches between the QR code and the pay button.
 * @csspart cancel-button - Cancels the pending bill (with `cancellable`), after asking.
 * @csspart cancel-confirm - The Yes and No buttons of the question whether to cancel.
 * @csspart status - The status line.
 * @csspart money - Under a failed, cancelled or expired heading: "No money was taken."
 * @csspart expiry - In the server's markup (`renderCheckout`): the bill's expiry, shown without JavaScript and on a printed page.
 * @csspart status-link - In the server's markup: the link that checks the status without JavaScript.
 * @csspart pay-here-link - In the server's QR markup: the link that pays on this device without JavaScript.
 * @csspart error - Why the bill URL is not shown.
 * @csspart icon - The icon of a final or error state, and the clock of checking and confirming a payment.
 * @csspart heading - The heading of a final state.
 * @csspart start-again-button - Creates a new bill after a failed, cancelled or expired one.
 * @csspart retry-button - Tries to create the bill again after a refusal.
 * @csspart reload-button - Reloads the page after the BFF refused the order ticket.
 *
 * @attr {"embedded"} variant - `embedded`: no border and no padding of its own, for a checkout inside the page's own card (the card never draws a surface of its own: it is on the host's, light or dark).
 *
 * @cssprop --bill-checkout-background - Card background (default: none, the host's surface shows through).
 * @cssprop --bill-checkout-color - Text color (default: inherited from the host, so light and dark follow the page).
 * @cssprop --bill-checkout-border-color - The card's border (none with `variant="embedded"`).
 * @cssprop --bill-checkout-accent - Background of the one primary action (pay, start again) and the focus ring.
 * @cssprop --bill-checkout-accent-color - Text of the primary action.
 * @cssprop --bill-checkout-success - Icon color when paid.
 * @cssprop --bill-checkout-danger - Icon color of failures and errors.
 * @cssprop --bill-checkout-warning - Icon color of cancelled, expired, checking and confirming.
 * @cssprop --bill-checkout-radius - Corner radius of the card.
 * @cssprop --bill-checkout-font - Font family (by default the page's, inherited).
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

  /** @internal */
  _bill?: BillView;
  /** @internal */
  _problem?: Problem;
  /** @internal */
  _reconnecting?: boolean;
  private _chosenView?: 'qr' | 'button';
  private _announcement?: string;
  /** @internal */
  _confirming?: boolean;
  /** @internal */
  _copied?: boolean;

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
  /** @internal */
  _display?: AmountDisplay;
  #hadFocus?: boolean;
  #cancelling?: boolean;
  #left = Infinity;
  /**
   * The card the server rendered (`renderCheckout`: a declarative shadow root, there before the
   * element): shown until the element has more than its loading screen to put in its place.
   */
  #server = this.shadowRoot;

  protected override async scheduleUpdate(): Promise<void> {
    // On a phone's CPU the render is a long task with what comes before it in the same task: the
    // script's evaluation (the first render), or the answer that brought a new bill and the
    // encoding of its QR code: each gets a task of its own (nextTask).
    if (!this.hasUpdated || this.#qrToEncode()) await nextTask();
    if (this.#encode()) await nextTask();
    super.scheduleUpdate();
  }

  /** The bill URL whose QR code the card draws (qrUrlOf: its screen decides), when it is not encoded yet. */
  #qrToEncode(): string | false | null {
    const url = qrUrlOf(this);
    return url !== this.#qrCache?._url && url;
  }

  /** Encodes the QR code of `url` (by default #qrToEncode), unless it is encoded; true when it did. */
  #encode(url = this.#qrToEncode()): boolean {
    if (!url || this.#qrCache?._url === url) return false;
    // The server's QR code of the bill, while its card is shown: not encoded again.
    const svg = this.#server?.querySelector<SVGSVGElement>('[part~=qr]');
    this.#qrCache = { _url: url, _qr: svg ? { size: svg.viewBox.baseVal.width, d: (svg.lastChild as Element).getAttribute('d')! } : qrPath(url) };
    return true;
  }

  /** @internal */
  get _showing(): 'qr' | 'button' {
    // A URL longer than a QR code holds (2,331 bytes at version 40, level M; the href is ASCII) is paid by its link.
    // Chosen once, when the first bill is shown: the view does not change under the customer.
    return this._bill && this._url(this._bill)?.[2331] ? 'button' : this._chosenView ?? (this.mode === 'auto' ? (this.#autoView ??= prefersButton() ? 'button' : 'qr') : this.mode);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // Not English: the language's module loads once, and the element shows nothing until it is there.
    if (!stringsFor(this._locale)) {
      void loadStrings(this._locale).then(() => {
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

  /** @internal */
  get _locale(): string {
    // WebKitGTK on a POSIX system says "C", no language tag; left to Intl's default that formats "$ 12500.50".
    try {
      return Intl.getCanonicalLocales((this.locale ?? navigator.language).replace(/_/g, '-'))[0]!;
    } catch {
      return 'en';
    }
  }

  get #text(): Strings {
    return { ...(stringsFor(this._locale) ?? en), ...this.strings };
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
    return (this.#client = new BffClient(this.endpoint, this.fetchImpl, this.#clock, this._locale));
  }

  #show(ref: BillRef, view: BillView): void {
    this.#ref = ref;
    this._problem = undefined;
    this.#applyView(view);
    if (!view.isFinal) this.#status._follow(this.#client!, ref, this.eventSourceImpl ?? EventSource);
  }

  #applyView(view: BillView): void {
    const previous = this._bill;
    // Never backwards: nothing after a final, nor an answer older than the one shown (a slow poll).
    if (previous?.billId === view.billId && (previous.isFinal || (view.dateTime ?? 0) < (previous.dateTime ?? 0))) return;
    const s = this.#text;
    this._bill = view;
    // Creates and reads carry it, the stream's views not: kept while the bill is the same.
    this._display = view.display ?? (previous?.billId === view.billId ? this._display : undefined);
    this._reconnecting = false;
    // Stopped while the service confirms a payment (it may end after the expiry), and resumed if
    // the bill goes back to pending.
    this.#countdown.set(view.isFinal || view.processing ? undefined : view.expiredOn);
    if (!view.isFinal && this.#unsafeFor !== view.billUrl && !this._url(view)) {
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
        : view.processing ? s.confirming : this.#countdown._remaining > 0 ? s.waiting : s.checking;
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
    // Clears what was shown, as a start does.
    this.#reset();
    this._problem = problem;
    this._announcement = this.#text[problem];
    this.#emitError(error);
    if (problem === 'ticketExpired') this.dispatchEvent(new BillTicketExpiredEvent(this.orderId!));
  }

  #emitError(error: unknown): void {
    this.dispatchEvent(new BillErrorEvent(error as Error));
  }

  /** @internal A web bill URL is paid through the BFF (BffClient._at); an app's own scheme is opened as it is. */
  _pay(url: string): string {
    return safeUrl(url) && this.#ref ? this.#client!._at(this.#ref, '/pay') : url;
  }

  /** @internal */
  _url(view: BillView): string | null {
    return safeUrl(view.billUrl, parseSchemes(this.allowedSchemes));
  }

  /** @internal */
  async _cancel(): Promise<void> {
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

  /** @internal */
  _startAgain(): void {
    this.#session._forget();
    this.#session._start();
  }

  /** @internal */
  async _copy(url: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(url);
      this._copied = true;
      this._announcement = this.#text.copied;
    } catch (error) {
      this.#emitError(error);
    }
  }

  protected override render(): TemplateResult | typeof nothing {
    const ready = stringsFor(this._locale);
    if (this.#server) {
      if (!ready || !(this._bill || this._problem)) return nothing;
      // Replaced in one frame by the same markup: nothing moves (its <style> stays, with the print rules).
      this.#server.querySelector('div')!.remove();
      this.#server = null;
    }
    // Read in the voice of the language shown, whatever the page's own `lang`.
    return html`<div lang=${languageOf(this._locale)}>${ready ? card(html, nothing, this, this.#text) : nothing}<p class="sr" role="status">${this._announcement}</p></div>`;
  }

  // The card's handlers and what it reads (CardHost: render passes the element itself): Lit calls the
  // handlers with the element as `this`. `_` members are the bundle's own: shortened by the build
  // (CONTRIBUTING, the `_` prefix) and, as @internal, left out of the published types.
  /** @internal */
  _toggle(): void {
    this._chosenView = this._showing === 'button' ? 'qr' : 'button';
  }

  /** @internal */
  _ask(): void {
    this._confirming = !this._confirming;
  }

  /** @internal */
  get _left(): number {
    return this.#countdown._remaining;
  }

  /** @internal The QR code of `url`, encoded once (scheduleUpdate encodes it in a task of its own). */
  _qr(url: string): QrPath {
    this.#encode(url);
    return this.#qrCache!._qr;
  }
}
