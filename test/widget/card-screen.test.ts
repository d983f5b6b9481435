// The card decides the screen once (widget/card/card.ts, screenOf), and the element asks it, here
// whether a QR code is to be encoded, instead of predicting what the card will draw.
import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import type { BillView } from '../../contract/bill-view.js';
import { qrUrlOf, screenOf, type CardHost, type ScreenState } from '../../widget/card/card.js';
import { noViolations } from './axe-check.js';
import { final, harness, has, text, view, type Harness } from './support.js';

function processing(bill: BillView): BillView {
  return { ...bill, status: 6, statusName: 'Processing', processing: true };
}

describe('screenOf: the screen the card draws', () => {
  const bill = view({ expiredOn: 0 });
  const state = (overrides: Partial<ScreenState>): ScreenState => ({ _left: 60_000, ...overrides });

  it('idle without anything to start from, loading while the bill is created or read (and while the BFF is unreachable)', () => {
    expect(screenOf(state({}))).to.equal('idle');
    expect(screenOf(state({ billId: 'B1' })), 'a bill id without its token').to.equal('idle');
    expect(screenOf(state({ billId: 'B1', token: 'T1' }))).to.equal('loading');
    expect(screenOf(state({ orderId: 'order-1' }))).to.equal('loading');
    expect(screenOf(state({ amount: '10.00' }))).to.equal('loading');
    expect(screenOf(state({ orderId: 'order-1', _problem: 'unreachable' }))).to.equal('loading');
  });

  it('problem when retrying will not bring a bill', () => {
    for (const problem of ['createFailed', 'ticketExpired', 'notFound'] as const) {
      expect(screenOf(state({ orderId: 'order-1', _problem: problem })), problem).to.equal('problem');
    }
  });

  it('pending while time is left, checking once it ran out, confirming while the service confirms a payment', () => {
    expect(screenOf(state({ _bill: bill }))).to.equal('pending');
    expect(screenOf(state({ _bill: bill, _left: 0 }))).to.equal('checking');
    expect(screenOf(state({ _bill: processing(bill) }))).to.equal('confirming');
    expect(screenOf(state({ _bill: processing(bill), _left: 0 })), 'never checking while confirming').to.equal('confirming');
  });

  it('final for every final outcome, whatever the time left', () => {
    for (const outcome of ['paid', 'failed', 'cancelled', 'expired'] as const) {
      expect(screenOf(state({ _bill: final(bill, outcome) })), outcome).to.equal('final');
      expect(screenOf(state({ _bill: final(bill, outcome), _left: 0 })), `${outcome}, no time left`).to.equal('final');
    }
  });

  it('qrUrlOf: the URL of the QR code drawn, only on the pending screen showing the QR code of a safe URL', () => {
    const drawn = (overrides: Partial<CardHost>) => qrUrlOf({
      _left: 60_000, _showing: 'qr', _url: (v) => (v.billUrl.startsWith('https:') ? v.billUrl : null), ...overrides,
    }) || null;
    expect(drawn({ _bill: bill })).to.equal(bill.billUrl);
    expect(drawn({ _bill: bill, _showing: 'button' }), 'the pay button').to.equal(null);
    expect(drawn({ _bill: { ...bill, billUrl: 'javascript:alert(1)' } }), 'an unsafe URL').to.equal(null);
    expect(drawn({ _bill: bill, _left: 0 }), 'checking').to.equal(null);
    expect(drawn({ _bill: processing(bill) }), 'confirming').to.equal(null);
    expect(drawn({ _bill: final(bill, 'paid') }), 'final').to.equal(null);
  });
});

describe('bill-checkout encodes a QR code only when its card draws one', () => {
  let h: Harness;
  let yields: sinon.SinonSpy;
  let scheduler: PropertyDescriptor | undefined;

  // The element gives the encoding of a QR code a task of its own (nextTask: scheduler.yield), one
  // before and one after it, besides the one before its first render: the yields count the encodings.
  beforeEach(() => {
    h = harness();
    yields = sinon.spy(() => Promise.resolve());
    scheduler = Object.getOwnPropertyDescriptor(globalThis, 'scheduler');
    Object.defineProperty(globalThis, 'scheduler', { value: { yield: yields }, configurable: true, writable: true });
  });
  afterEach(() => {
    if (scheduler) Object.defineProperty(globalThis, 'scheduler', scheduler);
    else Reflect.deleteProperty(globalThis, 'scheduler');
    h.restore();
  });

  async function show(bill: BillView, attributes: Record<string, string> = {}) {
    h.bff.add(bill);
    return h.mount({ 'bill-id': bill.billId, token: 'T1', mode: 'qr', ...attributes });
  }

  it('a pending bill: drawn and encoded once', async () => {
    const el = await show(view());
    expect(has(el, 'qr')).to.equal(true);
    expect(yields.callCount, 'the first render, then the encoding').to.equal(3);
    await noViolations(h, el, 'pending');
  });

  for (const outcome of ['paid', 'expired'] as const) {
    it(`a bill shown ${outcome}: nothing encoded`, async () => {
      const el = await show(final(view(), outcome));
      expect(has(el, 'heading') && !has(el, 'qr')).to.equal(true);
      expect(yields.callCount, 'the first render only').to.equal(1);
      await noViolations(h, el, outcome);
    });
  }

  it('a bill whose time ran out before a final status (checking): nothing encoded', async () => {
    const el = await show(view({ expiredOn: Date.now() - 1000 }));
    expect(text(el, 'status')).to.equal('Checking your payment…');
    expect(has(el, 'qr')).to.equal(false);
    expect(yields.callCount, 'the first render only').to.equal(1);
    await noViolations(h, el, 'checking');
  });

  it('a bill shown as the pay button: nothing encoded', async () => {
    const el = await show(view(), { mode: 'button' });
    expect(has(el, 'pay-button') && !has(el, 'qr')).to.equal(true);
    expect(yields.callCount).to.equal(1);
  });
});
