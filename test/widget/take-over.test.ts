// The element's take-over of the server's markup (issue 34): a page holds what renderCheckout
// (server/http/render/checkout.ts, imported here as it is) writes, <bill-checkout> with its card in
// a declarative shadow root, before the element is defined, as the HTML parser leaves it before the
// drop-in's script arrives. When the definition comes, the element upgrades and takes the card
// over: the QR code is not drawn twice (one at any time, its path the server's: not encoded again),
// every part keeps its box, the countdown starts, and a bill-status event fires as on any page.
//
// This file imports neither ./support.js nor widget/define.js statically (either would define the
// element before the markup is there): the definition is imported in the test, after the markup.
import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import type { BillView } from '../../contract/bill-view.js';
import { acceptedLanguages } from '../../contract/languages.js';
import { amountDisplay } from '../../server/http/amount-display.js';
import { renderCheckout } from '../../server/http/render/checkout.js';
import type { BillCheckout } from '../../widget/bill-checkout.js';
import { noViolations } from './axe-check.js';
import type { Harness } from './support.js';

/** An EventSource that never says anything (the status stream the element opens). */
class QuietEventSource extends EventTarget {
  static opened: string[] = [];
  readyState = 0;
  constructor(readonly url: string) {
    super();
    QuietEventSource.opened.push(url);
  }
  close(): void {
    this.readyState = 2;
  }
}

type Box = { x: number; y: number; width: number; height: number };

/** Each part with a box (not display: none), relative to the host, by its part name. */
function boxes(el: Element): Map<string, Box> {
  const host = el.getBoundingClientRect();
  const found = new Map<string, Box>();
  for (const node of el.shadowRoot!.querySelectorAll('[part]')) {
    const r = node.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    found.set(node.getAttribute('part')!, { x: r.x - host.x, y: r.y - host.y, width: r.width, height: r.height });
  }
  return found;
}

const qrCodes = (el: Element) => el.shadowRoot!.querySelectorAll('[part~="qr"]');
const partText = (el: Element, name: string) =>
  (el.shadowRoot!.querySelector(`[part~="${name}"]`)?.textContent ?? '').replace(/\s+/g, ' ').trim();

describe('bill-checkout takes over the server\'s markup', () => {
  let clock: sinon.SinonFakeTimers;
  let container: HTMLElement;
  const realEventSource = globalThis.EventSource;

  beforeEach(() => {
    clock = sinon.useFakeTimers({
      now: Date.UTC(2026, 10, 21, 12),
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
    });
    container = document.createElement('div');
    container.style.width = '24rem';
    document.body.append(container);
  });

  afterEach(() => {
    container.remove();
    clock.restore();
    sinon.restore();
    globalThis.EventSource = realEventSource;
  });

  it('upgrades in place: one QR code, the server\'s path, every box the same, the countdown running, bill-status fired', async () => {
    expect(customElements.get('bill-checkout'), 'not defined before the markup is there').to.equal(undefined);
    const bill: BillView = {
      billId: 'B1',
      merchantReference: 'order-1',
      billUrl: 'https://pay.example/bill/B1',
      billAmount: '12500.50',
      currency: 'USD',
      requireGCAmount: '0.0123',
      expiredOn: Date.now() + 15 * 60_000,
      status: 1,
      statusName: 'Pending Payment',
      isFinal: false,
      outcome: 'pending',
      dateTime: null,
    };
    const markup = await renderCheckout(bill, { token: 'T1', mode: 'qr', locale: 'en', now: Date.now() });
    // As the HTML parser leaves it: declarative shadow root attached, the element not upgraded.
    container.setHTMLUnsafe(markup);
    const el = container.querySelector('bill-checkout') as BillCheckout;
    expect(el.shadowRoot, 'a declarative shadow root').to.not.equal(null);
    const serverQr = qrCodes(el);
    expect(serverQr.length).to.equal(1);
    const path = serverQr[0]!.querySelector('path')!;
    expect(path.getAttribute('d')).to.match(/^M4 4\.5h7m/);
    // Marked with a run of no length (it draws nothing): an element that encoded the URL again would
    // draw the same symbol without the mark.
    const serverPath = `${path.getAttribute('d')!}M0 0.5h0`;
    path.setAttribute('d', serverPath);
    expect(partText(el, 'countdown')).to.equal('Time left: 15:00');
    const before = boxes(el);
    for (const name of ['base', 'amount', 'gold-amount', 'reference', 'qr', 'countdown', 'status', 'copy-button', 'toggle-button']) {
      expect(before.has(name), `${name} is drawn by the server`).to.equal(true);
    }

    // The BFF's read of the bill, and its event stream. The read carries the amounts as the BFF
    // formats them (its own amountDisplay), made here before the count of Intl.NumberFormat below
    // and sent only to a read that asks for their language (Accept-Language), as the BFF does.
    const english = amountDisplay(bill, 'en')!;
    const fetch = sinon.stub(globalThis, 'fetch').callsFake(async (_input, init) => {
      const [language] = acceptedLanguages(new Headers(init?.headers).get('accept-language'));
      const display = language === english.locale ? english : undefined;
      return new Response(JSON.stringify(display ? { ...bill, display } : bill), {
        headers: { 'content-type': 'application/json', 'x-server-time': String(Date.now()) },
      });
    });
    // A phone's first Intl.NumberFormat takes 50–120 ms of its main thread: the element formats
    // nothing itself when the BFF has formatted the amounts in its language.
    const formats = sinon.spy(Intl, 'NumberFormat');
    QuietEventSource.opened = [];
    globalThis.EventSource = QuietEventSource as unknown as typeof EventSource;
    const statusEvents: BillView[] = [];
    el.addEventListener('bill-status', (event) => statusEvents.push((event as CustomEvent<BillView>).detail));
    // At no moment two QR codes: every change of the shadow root is seen as it happens.
    let most = 0;
    const watcher = new MutationObserver(() => {
      most = Math.max(most, qrCodes(el).length);
    });
    watcher.observe(el.shadowRoot!, { childList: true, subtree: true });

    await import('../../widget/define.js');
    for (let i = 0; i < 20 && el.shadowRoot!.querySelector('.print'); i++) {
      await clock.tickAsync(0);
      await el.updateComplete;
    }
    watcher.disconnect();

    expect(el.shadowRoot!.querySelector('.print'), 'the server\'s expiry line is gone: taken over').to.equal(null);
    expect(fetch.callCount).to.equal(1);
    expect(String(fetch.firstCall.args[0])).to.equal('/api/bills/B1?token=T1');
    expect(new Headers(fetch.firstCall.args[1]?.headers).get('accept-language'), 'the read asks for the element\'s language').to.equal('en');
    expect(formats.callCount, 'no Intl.NumberFormat of its own').to.equal(0);
    expect(QuietEventSource.opened).to.deep.equal(['/api/bills/B1/events?token=T1']);

    const taken = qrCodes(el);
    expect(taken.length, 'one QR code').to.equal(1);
    expect(most, 'never two QR codes at once').to.be.at.most(1);
    expect(taken[0]!.querySelector('path')!.getAttribute('d'), 'the server\'s path, not encoded again').to.equal(serverPath);
    // The server's <style> stays (its print rules); the card is the element's now, in the same place.
    expect(el.shadowRoot!.querySelectorAll('style').length).to.equal(1);
    const after = boxes(el);
    for (const [name, box] of before) {
      const now = after.get(name);
      expect(now, `${name} is still drawn`).to.not.equal(undefined);
      for (const side of ['x', 'y', 'width', 'height'] as const) {
        expect(Math.abs(now![side] - box[side]), `${name}'s ${side}: ${box[side]} then ${now![side]}`).to.be.below(0.5);
      }
    }

    expect(statusEvents.map((v) => [v.billId, v.outcome]), 'bill-status, as on any page').to.deep.equal([['B1', 'pending']]);
    expect(partText(el, 'countdown')).to.equal('Time left: 15:00');
    await clock.tickAsync(1_000);
    await el.updateComplete;
    expect(partText(el, 'countdown'), 'the countdown runs').to.equal('Time left: 14:59');

    await noViolations({ clock } as unknown as Harness, el, 'taken over');
  });
});
