import { expect } from '@open-wc/testing';
import type { BillCheckout } from '../../widget/bill-checkout.js';
import { FakeBff, FakeEventSource } from './support.js';

type CspWindow = Window & typeof globalThis & { violations: string[] };

describe('bill-checkout under Content-Security-Policy default-src \'self\'', () => {
  let frame: HTMLIFrameElement;
  afterEach(() => frame.remove());

  it('styles itself through adopted style sheets, with no inline style and no violation', async () => {
    frame = document.createElement('iframe');
    frame.src = new URL('./csp-page.html', import.meta.url).href;
    const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    document.body.append(frame);
    await loaded;
    const win = frame.contentWindow as CspWindow;
    await win.customElements.whenDefined('bill-checkout');

    const bff = new FakeBff();
    const el = win.document.createElement('bill-checkout') as BillCheckout;
    el.fetchImpl = bff.fetch;
    el.eventSourceImpl = FakeEventSource as unknown as typeof EventSource;
    el.setAttribute('order-id', 'csp-1');
    el.setAttribute('mode', 'qr');
    const shown = new Promise((resolve) => el.addEventListener('bill-status', resolve, { once: true }));
    win.document.body.append(el);
    await shown;
    await el.updateComplete;

    const root = el.shadowRoot!;
    expect(root.adoptedStyleSheets.length).to.be.greaterThan(0);
    expect(root.querySelectorAll('style, [style]').length).to.equal(0);
    const base = root.querySelector('[part~="base"]')!;
    expect(win.getComputedStyle(base).display).to.equal('grid');
    expect(win.getComputedStyle(base).borderTopLeftRadius).to.equal('12px');
    expect(root.querySelector('[part~="qr"]')?.getAttribute('role')).to.equal('img');
    expect(win.violations).to.deep.equal([]);

    // The policy is really enforced: an inline style element is refused.
    const probe = win.document.createElement('style');
    probe.textContent = 'body { margin: 17px }';
    win.document.head.append(probe);
    expect(win.getComputedStyle(win.document.body).marginTop).to.not.equal('17px');
  });
});
