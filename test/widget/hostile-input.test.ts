// Hostile service data reaching the element: markup and script in its text, script and data URLs,
// absurd amounts and dates. Nothing may run, nothing may leave the element's box.
import { expect } from '@open-wc/testing';
import type { BillView } from '../../contract/bill-view.js';
import { FakeEventSource, final, harness, has, part, shadow, text, view, type Harness } from './support.js';

declare global {
  interface Window {
    __pwned?: number;
  }
}

const SCRIPTY = [
  '<img src=x onerror="window.__pwned=(window.__pwned||0)+1">',
  '<script>window.__pwned=(window.__pwned||0)+1</script>',
  '"><svg onload="window.__pwned=(window.__pwned||0)+1">',
  '${window.__pwned=1}',
  '</p><iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
  '\u202e\u0000\ud800 text with nul and a lone surrogate',
];

const ABSURD: Partial<BillView>[] = [
  { billAmount: '9'.repeat(400) },
  { billAmount: '0.' + '1'.repeat(300) },
  { billAmount: '1e999' },
  { billAmount: '-12.50' },
  { billAmount: 'NaN', requireGCAmount: 'Infinity' },
  { billAmount: '', currency: '' },
  { currency: 'NOT-A-CURRENCY<b>' },
  { requireGCAmount: '9'.repeat(200) + '.' + '9'.repeat(200) },
  { expiredOn: Number.MAX_VALUE },
  { expiredOn: Number.MAX_SAFE_INTEGER },
  { expiredOn: -Number.MAX_VALUE },
  { expiredOn: 0 },
  { dateTime: -1 },
  { merchantReference: 'W'.repeat(5000) },
  { statusName: 'S'.repeat(5000) },
];

/** The element stays inside its 320 px container, and nothing in it is wider than its box. */
function expectContained(el: HTMLElement, container: HTMLElement): void {
  const box = container.getBoundingClientRect();
  const own = el.getBoundingClientRect();
  expect(own.width, 'element width').to.be.at.most(box.width + 0.5);
  for (const node of shadow(el).querySelectorAll<HTMLElement>('[part]')) {
    const r = node.getBoundingClientRect();
    expect(r.right, `${node.getAttribute('part')} right edge`).to.be.at.most(own.right + 0.5);
    expect(r.left, `${node.getAttribute('part')} left edge`).to.be.at.least(own.left - 0.5);
  }
}

/** Elements that only markup in the data could have made. */
function injected(el: HTMLElement): number {
  return shadow(el).querySelectorAll('img, script, iframe, object, embed, foreignObject, [onerror], [onload]').length;
}

describe('bill-checkout with hostile service data', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
    window.__pwned = 0;
    h.container.style.width = '320px';
  });
  afterEach(() => h.restore());

  const mountWith = async (bill: BillView, mode = 'qr') => {
    h.bff.override = (call) => (call.method === 'POST' ? { status: 201, body: { ...bill, token: 'T1' } } : undefined);
    h.bff.add(bill);
    return h.mount({ 'order-id': 'o', mode, cancellable: true });
  };

  for (const [i, payload] of SCRIPTY.entries()) {
    it(`shows markup in service text as text, pending and final (#${i})`, async () => {
      const bill = view({ merchantReference: payload, currency: payload, statusName: payload, billAmount: payload, requireGCAmount: payload });
      const el = await mountWith(bill);
      expect(injected(el)).to.equal(0);
      expect(text(el, 'reference')).to.contain(payload.replace(/\s+/g, ' ').trim().slice(0, 20));
      FakeEventSource.last.emit(final(bill, 'paid'));
      await h.settle();
      expect(injected(el)).to.equal(0);
      expect(text(el, 'heading')).to.equal('Payment received');
      await h.tick(1000);
      expect(window.__pwned).to.equal(0);
      expectContained(el, h.container);
    });
  }

  it('a billUrl longer than a QR code holds is shown as its pay link, in QR mode too, and the element keeps working', async () => {
    // 'é' is 6 bytes once percent-encoded: 6,020 bytes, beyond the 2,331 of a version 40 code at level M.
    const billUrl = `https://pay.example/${'é'.repeat(1000)}`;
    const el = await mountWith(view({ billUrl }));
    expect(has(el, 'qr')).to.equal(false);
    // Its pay link, through the BFF (which answers 303 to billUrl): no QR code is asked to hold it.
    expect(part(el, 'pay-button')?.getAttribute('href')).to.equal('/api/bills/B1/pay?token=T1');
    // Asking for the QR code changes nothing: there is none to draw.
    (part(el, 'toggle-button') as HTMLButtonElement | null)?.click();
    await h.settle();
    expect(has(el, 'qr')).to.equal(false);
    expect(has(el, 'pay-button')).to.equal(true);
    expect(text(el, 'status')).to.equal('Waiting for payment…');
  });

  for (const billUrl of ['javascript:window.__pwned=1', 'JaVaScRiPt:window.__pwned=1', ' javascript:window.__pwned=1',
    'java\tscript:window.__pwned=1', 'data:text/html,<script>parent.__pwned=1</script>', 'data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX19wd25lZD0xPC9zY3JpcHQ+',
    'vbscript:msgbox(1)', 'blob:https://evil.example/1', '//evil.example/pay', '\u0000javascript:window.__pwned=1']) {
    for (const mode of ['qr', 'button']) {
      it(`links to nothing and encodes nothing for ${JSON.stringify(billUrl.slice(0, 18))} (${mode})`, async () => {
        const el = await mountWith(view({ billUrl }), mode);
        expect(shadow(el).querySelector('a[href]')).to.equal(null);
        expect(has(el, 'qr')).to.equal(false);
        expect(text(el, 'error')).to.equal('This payment link is not safe.');
        // A later event cannot smuggle the URL in either.
        FakeEventSource.last.emit(view({ billUrl, status: 1, dateTime: Date.now() }));
        await h.settle();
        expect(shadow(el).querySelector('a[href]')).to.equal(null);
        expect(window.__pwned).to.equal(0);
      });
    }
  }

  for (const overrides of ABSURD) {
    const label = JSON.stringify(overrides).slice(0, 60);
    it(`keeps its layout and keeps counting with ${label}`, async () => {
      const bill = view(overrides);
      const el = await mountWith(bill);
      expect(part(el, 'base')).to.not.equal(null);
      expectContained(el, h.container);
      // A deadline 100 hours or more away is not counted down at all (no "1.79e+305:00:00").
      expect(text(el, 'countdown')).to.match(/^$|^Time left: (\d{1,2}:)?\d\d:\d\d$/);
      await h.tick(3000);
      expectContained(el, h.container);
      FakeEventSource.last.emit(final(bill, 'cancelled'));
      await h.settle();
      expect(text(el, 'heading')).to.equal('Payment cancelled');
      expectContained(el, h.container);
    });
  }

  it('refuses a service answer that is not a bill view at all', async () => {
    h.bff.override = (call) => (call.method === 'POST'
      ? { status: 201, body: { billId: { toString: 1 }, billUrl: ['javascript:1'], billAmount: 5, expiredOn: '1', isFinal: 'yes', token: 'T1' } }
      : undefined);
    const el = await h.mount({ 'order-id': 'o' });
    expect(shadow(el).querySelector('a[href], svg[role="img"]')).to.equal(null);
    expect(window.__pwned).to.equal(0);
    expectContained(el, h.container);
  });
});
