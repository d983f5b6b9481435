// The floor under <bill-checkout> on the pre-created page of bench/phone.mjs: what DESIGN puts in
// every drop-in (Lit and the QR encoder, widget/qr-code.ts), built as dist/bill-checkout.js is
// (scripts/build/widget-config.mjs and minify.mjs: the same esbuild options and plugins, then
// terser), in the least element that uses them. It reads the bill the page preloaded and paints its QR code, and does nothing
// else: no loading state, no status, no countdown, no languages, no errors. Its bytes and its time
// to the QR painted are the floor every drop-in of this design stands on, on the phone. Bench only.
import { LitElement, html, nothing } from 'lit';
import { qrPath, type QrPath } from '../../widget/qr-code.js';

class LitQrFloor extends LitElement {
  // Declared without decorators, whose helper the element's build would add.
  static override properties = { billId: { attribute: 'bill-id' }, token: {}, _qr: { state: true } };

  /** The bill the page's server created. */
  billId = '';

  /** Its token. */
  token = '';

  private _qr?: QrPath;

  override connectedCallback(): void {
    super.connectedCallback();
    // The URL the page preloaded, so that the fetch takes the preloaded answer.
    void fetch(`/api/bills/${encodeURIComponent(this.billId)}?token=${encodeURIComponent(this.token)}`)
      .then((response) => response.json() as Promise<{ billUrl: string }>)
      .then(({ billUrl }) => {
        this._qr = qrPath(billUrl);
      });
  }

  override render() {
    const qr = this._qr;
    return qr
      ? html`<svg part="qr" viewBox="0 0 ${qr.size} ${qr.size}"><path d=${qr.d}></path></svg>`
      : nothing;
  }
}

// Under the drop-in's name, so that its page is the pre-created page with another script.
customElements.define('bill-checkout', LitQrFloor);
