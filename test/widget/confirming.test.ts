import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import type { BillView } from '../../contract/bill-view.js';
import type { BillCheckout } from '../../widget/bill-checkout.js';
import { noViolations } from './axe-check.js';
import {
  FakeEventSource, announced, final, harness, has, part, shadow, text, timeline, view, type Harness,
} from './support.js';

const confirmingText = 'Confirming your payment… No need to pay again.';

/** The bill in a processing status: paid by the customer, being confirmed by the service (never final). */
function processing(bill: BillView): BillView {
  return { ...bill, status: 6, statusName: 'Processing', isFinal: false, outcome: 'pending', processing: true, dateTime: Date.now() };
}

/** The parts of the pending screen: the way to pay, its quiet actions and the countdown. */
const payingParts = ['qr', 'pay-button', 'copy-button', 'toggle-button', 'cancel-button', 'cancel-confirm', 'countdown'];

function shownParts(el: BillCheckout): string[] {
  return payingParts.filter((name) => has(el, name));
}

function gets(h: Harness): number {
  return h.bff.count('GET');
}

describe('bill-checkout confirming a payment (a processing status)', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.restore());

  it('shows the confirming screen: the summary and the status, nothing to pay or cancel with, announced, without axe violations', async () => {
    const el = await h.mount({ 'order-id': 'order-1', mode: 'qr', cancellable: true });
    expect(has(el, 'qr') && has(el, 'cancel-button')).to.equal(true);
    const bill = h.bff.bills.get('B1')!.view;
    FakeEventSource.last.emit(processing(bill));
    await h.settle();

    expect(shownParts(el)).to.deep.equal([]);
    expect(text(el, 'status')).to.equal(confirmingText);
    expect(announced(el)).to.equal(confirmingText);
    expect(text(el, 'amount')).to.equal('$12,500.50');
    // Paid already: not "Amount to pay".
    expect((part(el, 'amount')!.previousElementSibling?.textContent ?? '').trim()).to.equal('Amount');
    expect(has(el, 'gold-amount')).to.equal(false);
    expect(has(el, 'icon') && !has(el, 'heading')).to.equal(true);
    // Announced as a status change, never as final.
    expect(timeline(h.events)).to.deep.equal(['bill-created:pending', 'bill-status:pending', 'bill-status:pending']);
    expect((h.events.at(-1) as CustomEvent<BillView>).detail.processing).to.equal(true);
    expect(FakeEventSource.last.closed, 'still following the bill').to.equal(false);
    await noViolations(h, el, 'confirming');
  });

  it('keeps the focus inside when the control that had it goes away', async () => {
    const el = await h.mount({ 'order-id': 'order-1', cancellable: true });
    part(el, 'cancel-button')!.focus();
    FakeEventSource.last.emit(processing(h.bff.bills.get('B1')!.view));
    await h.settle();
    expect(shadow(el).activeElement === part(el, 'status'), 'focus moves to the status').to.equal(true);
  });

  it('stays through the expiry (no countdown, no "checking", never expired), then shows paid', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    const bill = h.bff.bills.get('B1')!.view;
    FakeEventSource.last.emit(processing(bill));
    await h.settle();
    const before = gets(h);

    await h.tick(bill.expiredOn - Date.now() + 5 * 60_000);
    expect(text(el, 'status')).to.equal(confirmingText);
    expect(announced(el)).to.equal(confirmingText);
    expect(shownParts(el)).to.deep.equal([]);
    // The countdown's end asks the BFF at once: it did not end.
    expect(gets(h), 'no check at a deadline').to.equal(before);
    expect(timeline(h.events)).to.not.include('bill-final:expired');

    FakeEventSource.last.emit(final(bill, 'paid'));
    await h.settle();
    expect(text(el, 'heading')).to.equal('Payment received');
    expect(announced(el)).to.equal('Payment received');
    expect(timeline(h.events).filter((t) => t.startsWith('bill-final'))).to.deep.equal(['bill-final:paid']);
  });

  it('encodes no QR code for a processing bill, and resumes the countdown and the QR code if it is pending again', async () => {
    // qrcode's byte segment encodes the text with a TextEncoder: the one the element's code calls.
    const encode = sinon.spy(TextEncoder.prototype, 'encode');
    const bill = processing(view({ billId: 'B7', billUrl: 'https://pay.example/bill/B7' }));
    h.bff.add(bill, 'T7');
    const el = await h.mount({ 'bill-id': 'B7', token: 'T7', mode: 'qr' });
    expect(text(el, 'status')).to.equal(confirmingText);
    expect(encode.callCount).to.equal(0);

    FakeEventSource.last.emit({ ...bill, status: 1, statusName: 'Pending Payment', processing: false, dateTime: Date.now() });
    await h.settle();
    expect(encode.callCount).to.equal(1);
    expect(has(el, 'qr')).to.equal(true);
    expect(text(el, 'countdown')).to.equal('Time left: 15:00');
    await h.tick(1000);
    expect(text(el, 'countdown')).to.equal('Time left: 14:59');
  });

  it('shows "checking" once back to pending after the deadline passed while confirming', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    const bill = h.bff.bills.get('B1')!.view;
    FakeEventSource.last.emit(processing(bill));
    await h.settle();
    await h.tick(bill.expiredOn - Date.now() + 60_000);
    FakeEventSource.last.emit({ ...bill, dateTime: Date.now() });
    await h.settle();
    expect(text(el, 'status')).to.equal('Checking your payment…');
    expect(shownParts(el)).to.deep.equal([]);
  });
});
