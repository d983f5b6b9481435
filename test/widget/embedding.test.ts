import { expect } from '@open-wc/testing';
import { loadStrings } from '../../widget/strings.js';
import { FakeEventSource, final, harness, has, part, type Harness } from './support.js';

class ShopPage extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).innerHTML = '<section class="checkout"></section>';
  }
}
customElements.define('shop-page', ShopPage);

function noHorizontalOverflow(el: HTMLElement): void {
  expect(el.getBoundingClientRect().width).to.be.at.most(320);
  for (const node of el.shadowRoot!.querySelectorAll<HTMLElement>('*:not(.sr)')) {
    const box = node.getBoundingClientRect();
    if (box.width === 0) continue;
    expect(box.right - el.getBoundingClientRect().left, `${node.getAttribute('part') ?? node.tagName} fits`).to.be.at.most(320.5);
    expect(node.scrollWidth - node.clientWidth, `${node.getAttribute('part') ?? node.tagName} does not scroll`).to.be.at.most(0);
  }
}

describe('bill-checkout embedded', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.restore());

  it('works inside another component\'s shadow root; its events reach the page', async () => {
    const shop = document.createElement('shop-page');
    h.container.append(shop);
    const slot = shop.shadowRoot!.querySelector('section')!;
    const seen: { target: EventTarget | null; path: EventTarget[] }[] = [];
    const listen = new AbortController();
    document.addEventListener('bill-created', (e) => seen.push({ target: e.target, path: e.composedPath() }), listen);
    const el = await h.mount({ 'order-id': 'order-1', mode: 'qr' }, slot);
    expect(has(el, 'qr')).to.equal(true);
    expect(getComputedStyle(part(el, 'base')!).display).to.equal('grid');
    listen.abort();
    expect(seen).to.have.length(1);
    expect(seen[0]!.target === shop, 'retargeted to the host the page can see').to.equal(true);
    expect(seen[0]!.path.includes(el) && seen[0]!.path.includes(slot)).to.equal(true);

    FakeEventSource.last.emit(final(h.bff.bills.get('B1')!.view, 'paid'));
    await h.settle();
    expect(h.events.filter((e) => e.type === 'bill-final')).to.have.length(1);
  });

  it('fits 320 px without horizontal overflow in every view', async () => {
    h.container.style.width = '320px';
    const long = 'ORDER-'.repeat(30);
    h.bff.override = (call) => {
      if (call.method !== 'POST') return undefined;
      return {
        status: 201,
        body: {
          ...h.bff.bills.get('B1')?.view,
          billId: 'B1', merchantReference: long, billUrl: `https://pay.example/${'x'.repeat(110)}`,
          billAmount: '123456789012.123456', currency: 'IDR', requireGCAmount: '0.000000012345',
          expiredOn: Date.now() + 26 * 3_600_000, status: 1, statusName: 'Pending Payment', isFinal: false,
          outcome: 'pending', dateTime: null, token: 'T1',
        },
      };
    };
    const el = await h.mount({ 'order-id': 'o', mode: 'qr', cancellable: true, locale: 'id' });
    // Indonesian comes as its own module, fetched for real: the element shows nothing until it is there.
    await loadStrings('id');
    await h.settle();
    h.bff.add({ ...(h.events[0] as CustomEvent).detail }, 'T1');
    noHorizontalOverflow(el);
    part(el, 'toggle-button')!.click();
    await h.settle();
    expect(has(el, 'pay-button')).to.equal(true);
    noHorizontalOverflow(el);
    FakeEventSource.last.emit(final(h.bff.bills.get('B1')!.view, 'cancelled'));
    await h.settle();
    noHorizontalOverflow(el);
  });
});
