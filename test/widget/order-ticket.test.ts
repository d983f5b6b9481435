import { expect } from '@open-wc/testing';
import type { BillCheckout } from '../../widget/bill-checkout.js';
import { BillTicketExpiredEvent } from '../../widget/events.js';
import { FakeBff, FakeEventSource, announced, harness, has, part, shadow, text, timeline, type Call, type Harness } from './support.js';

const expiredText = 'This checkout has expired. Reload the page to start again.';

/** The BFF's answer to an order create whose ticket is expired or not the order's. */
const refused = { status: 403, body: { error: { code: 'order_ticket_invalid', message: 'Invalid or expired order ticket' } } };

/** Refuses every order create but those carrying `valid` (none when unset). */
function refuseTicketsBut(valid?: string): (call: Call) => typeof refused | undefined {
  return (call) => (call.method === 'POST' && (call.body as { orderTicket?: string }).orderTicket !== valid ? refused : undefined);
}

describe('bill-checkout with a refused order ticket', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.restore());

  const creates = () => h.bff.calls.filter((c) => c.method === 'POST' && c.path === '/api/bills');

  it('tells the customer to reload, offers it, and fires bill-ticket-expired with the order', async () => {
    h.bff.override = refuseTicketsBut();
    const el = await h.mount({ 'order-id': 'order-7', 'order-ticket': '1700000000000.old' });

    expect(text(el, 'status')).to.equal(expiredText);
    expect(announced(el)).to.equal(expiredText);
    expect(text(el, 'reload-button')).to.equal('Reload page');
    expect(part(el, 'reload-button')!.tagName).to.equal('BUTTON');
    expect(part(el, 'icon')!.classList.contains('expired')).to.equal(true);
    expect(has(el, 'retry-button'), 'resending the same ticket cannot help').to.equal(false);
    expect(has(el, 'qr') || has(el, 'pay-button') || has(el, 'heading')).to.equal(false);
    expect(creates(), 'a refusal is not retried').to.have.length(1);

    expect(timeline(h.events)).to.deep.equal(['bill-error', 'bill-ticket-expired']);
    const expired = h.events[1] as BillTicketExpiredEvent;
    expect(expired).to.be.instanceOf(BillTicketExpiredEvent);
    expect(expired.detail).to.deep.equal({ orderId: 'order-7' });
    expect(expired.bubbles && expired.composed).to.equal(true);
    expect(expired.target).to.equal(el);
    expect((h.events[0] as CustomEvent<{ code: string }>).detail.code).to.equal('order_ticket_invalid');
  });

  it('starts again with the ticket the page sets after the event, and shows the bill', async () => {
    h.bff.override = refuseTicketsBut('1900000000000.new');
    // The page asks its own server for a new ticket when told, and sets it on the element.
    let mint!: (ticket: string) => void;
    h.container.addEventListener('bill-ticket-expired', (e) => {
      const checkout = e.target as BillCheckout;
      void new Promise<string>((resolve) => (mint = resolve)).then((ticket) => (checkout.orderTicket = ticket));
    });
    const el = await h.mount({ 'order-id': 'order-7', 'order-ticket': '1700000000000.old', mode: 'qr' });
    expect(text(el, 'status')).to.equal(expiredText);

    mint('1900000000000.new');
    await h.settle();
    expect(creates().map((c) => c.body)).to.deep.equal([
      { orderId: 'order-7', orderTicket: '1700000000000.old' },
      { orderId: 'order-7', orderTicket: '1900000000000.new' },
    ]);
    expect(has(el, 'qr')).to.equal(true);
    expect(text(el, 'status')).to.equal('Waiting for payment…');
    expect(announced(el)).to.equal('Waiting for payment…');
    expect(has(el, 'reload-button')).to.equal(false);
    expect(FakeEventSource.last.url).to.equal('/api/bills/B1/events?token=T1');
    expect(timeline(h.events)).to.deep.equal(['bill-error', 'bill-ticket-expired', 'bill-created:pending', 'bill-status:pending']);
  });

  it('tells the page again when the new ticket is refused too', async () => {
    h.bff.override = refuseTicketsBut();
    const el = await h.mount({ 'order-id': 'order-7', 'order-ticket': '1700000000000.old' });
    el.orderTicket = '1700000000000.also-old';
    await h.settle();
    expect(creates()).to.have.length(2);
    expect(text(el, 'status')).to.equal(expiredText);
    expect(timeline(h.events).filter((t) => t === 'bill-ticket-expired')).to.have.length(2);
  });
});

describe('bill-checkout reload after a refused order ticket', () => {
  let frame: HTMLIFrameElement;
  afterEach(() => frame.remove());

  it('reloads the page when the customer presses Reload page', async () => {
    frame = document.createElement('iframe');
    // A page of its own that loads the element, so that reloading it leaves the tests' page alone.
    const define = new URL('../../widget/define.ts', import.meta.url).href;
    frame.srcdoc = `<!doctype html><html lang="en"><body><script type="module" src="${define}"></script></body></html>`;
    const loaded = () => new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    const first = loaded();
    document.body.append(frame);
    await first;
    const win = frame.contentWindow as Window & typeof globalThis & { beforeReload?: boolean };
    await win.customElements.whenDefined('bill-checkout');

    const bff = new FakeBff();
    bff.override = refuseTicketsBut();
    const el = win.document.createElement('bill-checkout') as BillCheckout;
    el.fetchImpl = bff.fetch;
    el.setAttribute('order-id', 'order-7');
    el.setAttribute('order-ticket', '1700000000000.old');
    const expired = new Promise((resolve) => el.addEventListener('bill-ticket-expired', resolve, { once: true }));
    win.document.body.append(el);
    await expired;
    await el.updateComplete;

    win.beforeReload = true;
    const reloaded = loaded();
    shadow(el).querySelector<HTMLButtonElement>('[part~="reload-button"]')!.click();
    await reloaded;
    const again = frame.contentWindow as typeof win;
    expect(again.beforeReload, 'a new page').to.equal(undefined);
    expect(again.document.querySelector('script[type="module"]')!.getAttribute('src')).to.equal(define);
  });
});
