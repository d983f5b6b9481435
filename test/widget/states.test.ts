import { expect } from '@open-wc/testing';
import { BillStatusEvent } from '../../widget/events.js';
import { loadStrings } from '../../widget/strings.js';
import { resize } from './engine.js';
import {
  FakeEventSource, announced, final, harness, has, part, shadow, text, timeline, view, type Harness,
} from './support.js';

describe('bill-checkout states', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.restore());

  it('creates a bill from order-id and shows it pending: amount, gold, countdown, QR', async () => {
    h.bff.override = (call) => (call.method === 'POST' ? 'hang' : undefined);
    const el = await h.mount({ 'order-id': 'order-1', mode: 'qr' });
    expect(text(el, 'status')).to.equal('Loading your bill…');
    expect(has(el, 'qr')).to.equal(false);

    h.bff.override = undefined;
    el.remove();
    h.container.append(el);
    await h.settle();

    const post = h.bff.calls.filter((c) => c.method === 'POST');
    expect(post.at(-1)!.path).to.equal('/api/bills');
    expect(post.at(-1)!.body).to.deep.equal({ orderId: 'order-1' });
    expect(text(el, 'amount')).to.equal('$12,500.50');
    expect(text(el, 'gold-amount')).to.equal('Gold required: 0.0123');
    expect(text(el, 'countdown')).to.equal('Time left: 15:00');
    const qr = part(el, 'qr')!;
    expect(qr.getAttribute('role')).to.equal('img');
    expect(qr.getAttribute('aria-label')).to.equal('Payment QR code');
    expect(qr.querySelector('path')!.getAttribute('d')).to.match(/^M4 4\.5h7m/);
    expect(text(el, 'status')).to.equal('Waiting for payment…');
    expect(FakeEventSource.last.url).to.equal('/api/bills/B1/events?token=T1');
  });

  it('sends the order ticket with the order, and no ticket member when it has none', async () => {
    const el = await h.mount({ 'order-id': 'order-1', 'order-ticket': '1900000000000.sig' });
    await h.settle();
    const posts = () => h.bff.calls.filter((c) => c.method === 'POST' && c.path === '/api/bills');
    expect(posts().at(-1)!.body).to.deep.equal({ orderId: 'order-1', orderTicket: '1900000000000.sig' });
    expect(posts().at(-1)!.headers.get('content-type')).to.equal('application/json');
    expect(text(el, 'status')).to.equal('Waiting for payment…');

    // A BFF that checks tickets refuses the order without one; a ticket that arrives later (the
    // page fetched it) starts the checkout over with it.
    h.bff.override = (call) => call.method === 'POST' && !(call.body as { orderTicket?: string }).orderTicket
      ? { status: 403, body: { error: { code: 'order_ticket_invalid', message: 'No ticket' } } }
      : undefined;
    const late = await h.mount({ 'order-id': 'order-2', 'order-ticket': '' });
    expect(posts().at(-1)!.body).to.deep.equal({ orderId: 'order-2' });
    expect(has(late, 'reload-button')).to.equal(true);
    late.setAttribute('order-ticket', '1900000000000.late');
    await h.settle();
    expect(posts().at(-1)!.body).to.deep.equal({ orderId: 'order-2', orderTicket: '1900000000000.late' });
    expect(has(late, 'qr') || has(late, 'pay-button')).to.equal(true);
  });

  it('counts down once a second on the fake clock', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    await h.tick(1000);
    expect(text(el, 'countdown')).to.equal('Time left: 14:59');
    await h.tick(61_000);
    expect(text(el, 'countdown')).to.equal('Time left: 13:58');
  });

  it('fires created, status on each change, and final exactly once, in that order', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    const bill = h.bff.bills.get('B1')!.view;
    const es = FakeEventSource.last;
    es.emit(bill);
    es.emit({ ...bill, statusName: 'Still pending' });
    es.emit(final(bill, 'paid'));
    es.emit(final(bill, 'paid'));
    await h.settle();
    h.bff.set(final(bill, 'paid'));
    await h.tick(60_000);

    expect(timeline(h.events)).to.deep.equal([
      'bill-created:pending', 'bill-status:pending', 'bill-status:paid', 'bill-final:paid',
    ]);
    const [created] = h.events;
    expect(created!.bubbles && created!.composed).to.equal(true);
    expect(created).to.have.property('detail').that.not.have.property('token');
    expect(text(el, 'heading')).to.equal('Payment received');
    expect(es.closed).to.equal(true);
  });

  for (const outcome of ['paid', 'failed', 'cancelled', 'expired'] as const) {
    it(`shows ${outcome} with a heading, an icon and the merchant's ${outcome} slot`, async () => {
      const el = await h.mount({ 'order-id': 'order-1' });
      const merchant = document.createElement('p');
      merchant.slot = outcome;
      merchant.textContent = `merchant ${outcome}`;
      el.append(merchant);
      FakeEventSource.last.emit(final(h.bff.bills.get('B1')!.view, outcome));
      await h.settle();

      const headings = { paid: 'Payment received', failed: 'Payment failed', cancelled: 'Payment cancelled', expired: 'Bill expired' };
      expect(text(el, 'heading')).to.equal(headings[outcome]);
      expect(part(el, 'icon')!.querySelector('path') !== null).to.equal(true);
      const slot = shadow(el).querySelector<HTMLSlotElement>(`slot[name="${outcome}"]`)!;
      expect(slot.assignedElements().length === 1 && slot.assignedElements()[0] === merchant).to.equal(true);
      expect(has(el, 'qr')).to.equal(false);
      expect(has(el, 'start-again-button')).to.equal(outcome !== 'paid');
      expect(announced(el)).to.equal(headings[outcome]);
    });
  }

  it('starts again after a failed bill: a new bill with a new idempotency key', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    FakeEventSource.last.emit(final(h.bff.bills.get('B1')!.view, 'failed'));
    await h.settle();
    part(el, 'start-again-button')!.click();
    await h.settle();

    const posts = h.bff.calls.filter((c) => c.method === 'POST');
    expect(posts).to.have.length(2);
    expect(posts[0]!.headers.get('idempotency-key')).to.not.equal(posts[1]!.headers.get('idempotency-key'));
    expect(has(el, 'qr') || has(el, 'pay-button')).to.equal(true);
    expect(FakeEventSource.last.url).to.contain('/bills/B2/');
    expect(timeline(h.events).filter((t) => t.startsWith('bill-final'))).to.deep.equal(['bill-final:failed']);
  });

  it('shows "checking", never "expired", when the countdown ends before a final status', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    const bill = h.bff.bills.get('B1')!.view;
    await h.tick(15 * 60_000);
    expect(text(el, 'status')).to.equal('Checking your payment…');
    expect(has(el, 'heading')).to.equal(false);
    expect(has(el, 'qr')).to.equal(false);
    expect(announced(el)).to.equal('Checking your payment…');
    expect(timeline(h.events)).to.not.include('bill-final:expired');

    FakeEventSource.last.emit(final(bill, 'paid'));
    await h.settle();
    expect(text(el, 'heading')).to.equal('Payment received');
  });

  it('shows an existing bill from bill-id and token without creating one', async () => {
    h.bff.add(view({ billId: 'B9', billUrl: 'https://pay.example/bill/B9' }), 'secret');
    const el = await h.mount({ 'bill-id': 'B9', token: 'secret', endpoint: 'https://bff.example/api/' });
    expect(h.bff.calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal(['GET /api/bills/B9']);
    expect(h.bff.calls[0]!.token).to.equal('secret');
    expect(FakeEventSource.last.url).to.equal('https://bff.example/api/bills/B9/events?token=secret');
    expect(has(el, 'qr') || has(el, 'pay-button')).to.equal(true);
    FakeEventSource.last.emit(final(h.bff.bills.get('B9')!.view, 'expired'));
    await h.settle();
    expect(has(el, 'start-again-button'), 'nothing to create from').to.equal(false);
  });

  it('says so when bill-id and token do not find a bill', async () => {
    const el = await h.mount({ 'bill-id': 'nope', token: 'x' });
    expect(text(el, 'status')).to.equal('Bill not found.');
    expect(timeline(h.events)).to.deep.equal(['bill-error']);
    expect(has(el, 'heading')).to.equal(false);
  });

  it('shows a refused create with a way to try again, never a final state', async () => {
    h.bff.override = () => ({ status: 422, body: { error: { code: 'amount_out_of_range', message: 'Too much' } } });
    const el = await h.mount({ amount: '999999999' });
    expect(text(el, 'status')).to.equal('Could not create the bill.');
    const error = h.events[0] as CustomEvent<Error & { code: string }>;
    expect(error.type).to.equal('bill-error');
    expect(error.detail.code).to.equal('amount_out_of_range');
    expect(h.bff.calls[0]!.body).to.deep.equal({ amount: '999999999' });

    h.bff.override = undefined;
    part(el, 'retry-button')!.click();
    await h.settle();
    expect(text(el, 'status')).to.equal('Waiting for payment…');
  });

  it('shows the pay button in button mode and lets the customer switch to the QR and back', async () => {
    const el = await h.mount({ 'order-id': 'order-1', mode: 'button' });
    const pay = part(el, 'pay-button') as HTMLAnchorElement;
    // Through the BFF, which marks this browser as the bill's starter and sends it on to billUrl.
    expect(pay.getAttribute('href')).to.equal('/api/bills/B1/pay?token=T1');
    expect(has(el, 'qr')).to.equal(false);
    part(el, 'toggle-button')!.click();
    await h.settle();
    expect(has(el, 'qr')).to.equal(true);
    expect(has(el, 'pay-button')).to.equal(false);
    expect(text(el, 'toggle-button')).to.equal('Pay on this device');
    part(el, 'toggle-button')!.click();
    await h.settle();
    expect(has(el, 'pay-button')).to.equal(true);
  });

  it('picks the pay button in auto mode on a narrow screen and the QR on a wide one, whatever the host width', async () => {
    const { width } = await resize(400, 800);
    try {
      expect(width, 'a phone-wide viewport (WebKitGTK windows stop at about 450 px)').to.be.below(600);
      h.container.style.width = '380px';
      const narrow = await h.mount({ 'order-id': 'narrow' });
      expect(has(narrow, 'pay-button')).to.equal(true);
    } finally {
      await resize(1280, 800);
    }
    // A narrow checkout column on a wide desktop screen still shows the QR.
    h.container.style.width = '380px';
    const wide = await h.mount({ 'order-id': 'wide' });
    expect(has(wide, 'qr')).to.equal(true);
  });

  it('picks the pay button in auto mode inside an in-app webview, even when wide', async () => {
    // The page's view of the user agent (WebKitGTK's WebDriver cannot change the browser's own).
    const webview = 'Mozilla/5.0 (Linux; Android 14; wv) AppleWebKit/537.36 Instagram 300.0';
    Object.defineProperty(navigator, 'userAgent', { configurable: true, get: () => webview });
    try {
      h.container.style.width = '800px';
      const el = await h.mount({ 'order-id': 'webview' });
      expect(has(el, 'pay-button')).to.equal(true);
    } finally {
      Reflect.deleteProperty(navigator, 'userAgent');
    }
    expect(navigator.userAgent).to.not.equal(webview);
  });

  it('cancels while pending when cancellable', async () => {
    const el = await h.mount({ 'order-id': 'order-1', cancellable: true });
    const cancel = part(el, 'cancel-button')!;
    cancel.focus();
    cancel.click();
    await h.settle();
    expect(h.bff.count('POST', '/cancel'), 'asks first').to.equal(0);
    const yes = part(el, 'cancel-confirm')!.querySelector('button')!;
    expect(yes.textContent).to.equal('Yes');
    yes.focus();
    yes.click();
    await h.settle();
    expect(h.bff.count('POST', '/cancel')).to.equal(1);
    const call = h.bff.calls.find((c) => c.path.endsWith('/cancel'))!;
    expect(call.method).to.equal('POST');
    expect(call.token).to.equal('T1');
    // JSON, or the BFF refuses it as a possible cross-site request.
    expect(call.headers.get('content-type')).to.equal('application/json');
    expect(call.body).to.deep.equal({});
    expect(text(el, 'heading')).to.equal('Payment cancelled');
    expect(timeline(h.events).slice(-2)).to.deep.equal(['bill-status:cancelled', 'bill-final:cancelled']);
    expect(shadow(el).activeElement === part(el, 'heading'), 'focus moves to the heading').to.equal(true);
  });

  it('has no cancel button unless cancellable', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    expect(has(el, 'cancel-button')).to.equal(false);
  });

  it('renders service text with HTML as text', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    FakeEventSource.last.emit({
      ...h.bff.bills.get('B1')!.view,
      merchantReference: '<img src=x onerror="window.hacked=1">',
      currency: '<b>X</b>',
      billAmount: '<i>1</i>',
    });
    await h.settle();
    expect(shadow(el).querySelector('img, b, i') === null).to.equal(true);
    expect(text(el, 'reference')).to.equal('Reference: <img src=x onerror="window.hacked=1">');
    expect(text(el, 'amount')).to.equal('<i>1</i> <b>X</b>');
  });

  it('speaks Indonesian with locale="id-ID" and takes string overrides', async () => {
    const el = await h.mount({ 'order-id': 'order-1', locale: 'id-ID', mode: 'qr' });
    FakeEventSource.last.emit({ ...h.bff.bills.get('B1')!.view, currency: 'IDR', billAmount: '150000' });
    // The language's module comes over the network, which the fake clock does not drive: its load is
    // awaited (the element's own), then the render it asked for.
    await loadStrings('id');
    await h.settle();
    expect(text(el, 'status')).to.equal('Menunggu pembayaran…');
    // The currency's own digits are the engine's data: Chromium gives the rupiah none, WebKit and Firefox ISO 4217's two.
    expect(text(el, 'amount').replace(/\s/g, ' ')).to.match(/^Rp 150\.000(,00)?$/);
    el.strings = { waiting: 'Silakan bayar' };
    await h.settle();
    expect(text(el, 'status')).to.equal('Silakan bayar');
  });

  it('shows the amounts as the BFF formatted them for its language, and formats them itself in another', async () => {
    const display = { locale: 'en-US', billAmount: 'USD 12,500.50 as the BFF wrote it', requireGCAmount: '0.0123 as the BFF wrote it' };
    h.bff.add({ ...view(), display });
    const el = await h.mount({ 'bill-id': 'B1', token: 'T1', locale: 'en-US' });
    expect(text(el, 'amount')).to.equal(display.billAmount);
    expect(text(el, 'gold-amount')).to.equal(`Gold required: ${display.requireGCAmount}`);
    // The stream's views carry none: what the read brought stays while the bill is the same.
    FakeEventSource.last.emit({ ...view(), status: 1, dateTime: Date.now() });
    await h.settle();
    expect(text(el, 'amount')).to.equal(display.billAmount);
    el.locale = 'id-ID';
    await loadStrings('id');
    await h.settle();
    expect(text(el, 'amount'), 'formatted for the new locale').to.include('12.500,50');
  });

  it('never shows the amounts the BFF formatted for another bill', async () => {
    h.bff.add({ ...view(), display: { locale: 'en-US', billAmount: '$12,500.50', requireGCAmount: null } });
    h.bff.add({ ...view({ billId: 'B2', billUrl: 'https://pay.example/bill/B2', billAmount: '7.25' }) }, 'T2');
    const el = await h.mount({ 'bill-id': 'B1', token: 'T1', locale: 'en-US' });
    expect(text(el, 'amount')).to.equal('$12,500.50');
    el.billId = 'B2';
    el.token = 'T2';
    await h.settle();
    expect(text(el, 'amount')).to.equal('$7.25');
  });

  it('speaks and formats English where the system names no language (WebKitGTK under LANG=C says "C")', async () => {
    Object.defineProperty(navigator, 'language', { configurable: true, get: () => 'C' });
    try {
      const el = await h.mount({ 'order-id': 'order-1' });
      await h.settle();
      expect(text(el, 'status')).to.equal('Waiting for payment…');
      // Intl's own default there is en-US-u-va-posix: "$ 12500.50".
      expect(text(el, 'amount')).to.equal('$12,500.50');
      expect(shadow(el).querySelector('[lang]')!.getAttribute('lang')).to.equal('en');
      el.locale = 'id_ID';
      await loadStrings('id');
      await h.settle();
      expect(text(el, 'amount'), 'one locale for texts and amounts').to.include('12.500,50');
      expect(text(el, 'status')).to.equal('Menunggu pembayaran…');
    } finally {
      Reflect.deleteProperty(navigator, 'language');
    }
  });

  it('keeps every digit of the amount without going through a float', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    FakeEventSource.last.emit({ ...h.bff.bills.get('B1')!.view, billAmount: '9007199254740993.125', requireGCAmount: null });
    await h.settle();
    expect(text(el, 'amount')).to.equal('$9,007,199,254,740,993.125');
    expect(has(el, 'gold-amount')).to.equal(false);
  });

  it('dispatches typed events that carry the view', async () => {
    const seen: BillStatusEvent[] = [];
    h.container.addEventListener('bill-status', (e) => seen.push(e));
    await h.mount({ 'order-id': 'order-1' });
    expect(seen[0]).to.be.instanceOf(BillStatusEvent);
    expect(seen[0]!.detail.billId).to.equal('B1');
  });
});
