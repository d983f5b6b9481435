import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import type { BillCheckout } from '../../widget/bill-checkout.js';
import { press } from './engine.js';
import { FakeEventSource, announced, final, harness, has, part, shadow, text, view, type Harness } from './support.js';

/** The label above the amount. */
function amountLabel(el: BillCheckout): string {
  return (part(el, 'amount')!.previousElementSibling?.textContent ?? '').trim();
}

/** The rectangle of an element's text (not of its box). */
function textRect(node: Element): DOMRect {
  const range = document.createRange();
  range.selectNodeContents(node);
  return range.getBoundingClientRect();
}

describe('bill-checkout finish', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.restore());

  it('makes the pay button as tall as the copy button (44 px), its text vertically centred', async () => {
    const el = await h.mount({ 'order-id': 'order-1', mode: 'button' });
    const pay = part(el, 'pay-button')!;
    const copy = part(el, 'copy-button')!;
    const payBox = pay.getBoundingClientRect();
    const copyBox = copy.getBoundingClientRect();
    expect(payBox.height).to.equal(44);
    expect(copyBox.height).to.equal(44);

    const words = textRect(pay);
    expect(words.height, 'the text has a box').to.be.greaterThan(0);
    const middle = (r: DOMRect) => (r.top + r.bottom) / 2;
    expect(Math.abs(middle(words) - middle(payBox)), 'centred in the pay button').to.be.at.most(1);
    expect(Math.abs((middle(textRect(copy)) - copyBox.top) - (middle(words) - payBox.top)), 'like the copy button').to.be.at.most(1);
  });

  it('offers "Copy link" in button mode too, and copies the bill URL', async () => {
    const copied = sinon.stub(navigator.clipboard, 'writeText').resolves();
    const el = await h.mount({ 'order-id': 'order-1', mode: 'button' });
    expect(has(el, 'pay-button')).to.equal(true);
    expect(text(el, 'copy-button')).to.equal('Copy link');
    part(el, 'copy-button')!.click();
    await h.settle();
    expect(copied.calledOnceWithExactly('https://pay.example/bill/B1')).to.equal(true);
    expect(text(el, 'copy-button')).to.equal('Link copied');
    expect(announced(el)).to.equal('Link copied');
  });

  it('says "Amount to pay" while pending, "Amount paid" when paid', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    expect(amountLabel(el)).to.equal('Amount to pay');
    FakeEventSource.last.emit(final(h.bff.bills.get('B1')!.view, 'paid'));
    await h.settle();
    expect(amountLabel(el)).to.equal('Amount paid');
    expect(text(el, 'amount')).to.equal('$12,500.50');
  });

  for (const outcome of ['failed', 'cancelled', 'expired'] as const) {
    it(`says "Amount", not "paid" nor "to pay", when ${outcome}`, async () => {
      const el = await h.mount({ 'order-id': 'order-1' });
      FakeEventSource.last.emit(final(h.bff.bills.get('B1')!.view, outcome));
      await h.settle();
      expect(amountLabel(el)).to.equal('Amount');
    });
  }

  it('asks before cancelling: No goes back without a request', async () => {
    const el = await h.mount({ 'order-id': 'order-1', cancellable: true });
    part(el, 'cancel-button')!.click();
    await h.settle();
    expect(has(el, 'cancel-button')).to.equal(false);
    expect(text(el, 'base')).to.contain('Cancel this payment?');
    const group = part(el, 'cancel-confirm')!;
    expect(group.getAttribute('role')).to.equal('group');
    expect(shadow(el).getElementById(group.getAttribute('aria-labelledby')!)!.textContent).to.equal('Cancel this payment?');
    const [yes, no] = [...group.querySelectorAll('button')];
    expect([yes!.textContent, no!.textContent]).to.deep.equal(['Yes', 'No']);

    no!.click();
    await h.settle();
    expect(has(el, 'cancel-confirm')).to.equal(false);
    expect(text(el, 'base')).to.not.contain('Cancel this payment?');
    expect(text(el, 'cancel-button')).to.equal('Cancel');
    expect(h.bff.count('POST', '/cancel')).to.equal(0);
    await h.tick(60_000);
    expect(h.bff.count('POST', '/cancel')).to.equal(0);
    expect(text(el, 'status')).to.equal('Waiting for payment…');
  });

  it('cancels on Yes, with one request however often Yes is pressed', async () => {
    const el = await h.mount({ 'order-id': 'order-1', cancellable: true });
    part(el, 'cancel-button')!.click();
    await h.settle();
    const yes = part(el, 'cancel-confirm')!.querySelector('button')!;
    yes.click();
    yes.click();
    await h.settle();
    expect(h.bff.count('POST', '/cancel')).to.equal(1);
    expect(text(el, 'heading')).to.equal('Payment cancelled');
    expect(h.events.filter((e) => e.type === 'bill-final')).to.have.length(1);
  });

  it('keeps keyboard focus in the element through the question and the final state', async () => {
    const el = await h.mount({ 'order-id': 'order-1', mode: 'qr', cancellable: true });
    const focused = () => shadow(el).activeElement;
    part(el, 'cancel-button')!.focus();
    await press('Enter');
    await h.settle();
    expect(focused()?.textContent, 'focus lands on No').to.equal('No');
    expect(part(el, 'cancel-confirm')!.contains(focused())).to.equal(true);

    await press('Enter');
    await h.settle();
    expect(focused() === part(el, 'cancel-button'), 'No returns focus to the cancel button').to.equal(true);
    expect(h.bff.count('POST', '/cancel')).to.equal(0);

    await press('Space');
    await h.settle();
    expect(focused()?.textContent).to.equal('No');
    await press('Shift+Tab');
    expect(focused()?.textContent).to.equal('Yes');
    await press('Enter');
    await h.settle();
    expect(h.bff.count('POST', '/cancel')).to.equal(1);
    expect(text(el, 'heading')).to.equal('Payment cancelled');
    expect(document.activeElement === el, 'focus stays in the element, not on <body>').to.equal(true);
    expect(focused() === part(el, 'heading'), 'on the heading').to.equal(true);
  });

  it('shows the gold unit of gold-unit, else of strings.goldUnit, else none', async () => {
    const gram = await h.mount({ 'order-id': 'order-1', 'gold-unit': 'g' });
    expect(text(gram, 'gold-amount')).to.equal('Gold required: 0.0123 g');
    gram.strings = { goldUnit: 'oz' };
    await h.settle();
    expect(text(gram, 'gold-amount'), 'the attribute wins').to.equal('Gold required: 0.0123 g');

    const strings = await h.mount({ 'order-id': 'order-2' });
    expect(text(strings, 'gold-amount')).to.equal('Gold required: 0.0123');
    strings.strings = { goldUnit: 'oz' };
    await h.settle();
    expect(text(strings, 'gold-amount')).to.equal('Gold required: 0.0123 oz');
    strings.strings = {};
    await h.settle();
    expect(text(strings, 'gold-amount')).to.equal('Gold required: 0.0123');

    FakeEventSource.last.emit(final({ ...h.bff.bills.get('B2')!.view }, 'paid'));
    gram.remove();
    await h.settle();
    // Once final, the gold to pay informs nothing: the paid card says the amount paid, and no "required".
    expect(has(strings, 'gold-amount'), 'no gold line once final').to.equal(false);
    expect(has(strings, 'amount')).to.equal(true);
  });

  it('says what happened to the money: nothing taken on failed, cancelled and expired; nothing said on paid', async () => {
    for (const outcome of ['failed', 'cancelled', 'expired', 'paid'] as const) {
      const el = await h.mount({ 'order-id': `order-${outcome}` });
      FakeEventSource.last.emit(final(h.bff.bills.get([...h.bff.bills.keys()].at(-1)!)!.view, outcome));
      await h.settle();
      expect(text(el, 'money'), outcome).to.equal(outcome === 'paid' ? '' : 'No money was taken.');
      el.remove();
    }
  });

  it('announces the time left at 5 min, 1 min and 30 s, and not every second in between', async () => {
    h.bff.add(view({ expiredOn: Date.now() + 6 * 60_000 }), 'T1');
    const el = await h.mount({ 'bill-id': 'B1', token: 'T1' });
    expect(text(el, 'countdown')).to.equal('Time left: 06:00');
    expect(announced(el)).to.equal('Waiting for payment…');
    // Every change of the live region, with the countdown shown at that moment.
    const heard: [string, string][] = [];
    const region = shadow(el).querySelector('[role="status"]')!;
    const observer = new MutationObserver(() => heard.push([text(el, 'countdown'), announced(el)]));
    observer.observe(region, { subtree: true, childList: true, characterData: true });

    await h.tick(59_000);
    expect(text(el, 'countdown')).to.equal('Time left: 05:01');
    expect(announced(el)).to.equal('Waiting for payment…');
    await h.tick(1_000);
    expect(announced(el)).to.equal('Time left: 05:00');
    await h.tick(239_000);
    expect(text(el, 'countdown')).to.equal('Time left: 01:01');
    expect(announced(el), 'not at 4:59 … 1:01').to.equal('Time left: 05:00');
    await h.tick(1_000);
    expect(announced(el)).to.equal('Time left: 01:00');
    await h.tick(30_000);
    expect(announced(el)).to.equal('Time left: 00:30');
    await h.tick(29_000);
    expect(text(el, 'countdown')).to.equal('Time left: 00:01');
    observer.disconnect();
    expect(heard).to.deep.equal([
      ['Time left: 05:00', 'Time left: 05:00'],
      ['Time left: 01:00', 'Time left: 01:00'],
      ['Time left: 00:30', 'Time left: 00:30'],
    ]);
    await h.tick(1_000);
    expect(announced(el), 'then it is checked').to.equal('Checking your payment…');
  });
});
