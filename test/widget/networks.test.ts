import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import { FakeEventSource, final, harness, part, text, timeline, view, type Harness } from './support.js';

function polls(h: Harness): number {
  return h.bff.calls.filter((c) => c.method === 'GET').length;
}

describe('bill-checkout on changing networks', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.restore());

  it('reopens the stream at once when the network comes back', async () => {
    await h.mount({ 'order-id': 'order-1' });
    const first = FakeEventSource.last;
    await h.tick(10_000);
    dispatchEvent(new Event('online'));
    await h.settle();
    expect(first.closed, 'a stream that may be dead is dropped').to.equal(true);
    expect(FakeEventSource.instances).to.have.length(2);
    expect(FakeEventSource.open).to.deep.equal([FakeEventSource.last]);
    expect(FakeEventSource.last.url).to.equal(first.url);
  });

  it('checks at once when the network comes back while polling, not at the next interval', async () => {
    await h.mount({ 'order-id': 'order-1' });
    FakeEventSource.last.fail();
    await h.settle();
    expect(polls(h)).to.equal(1);
    // Before the stream's own retry (half of 1 s at the soonest) and the 3 s interval.
    await h.tick(400);
    expect(polls(h)).to.equal(1);
    h.bff.set(final(h.bff.bills.get('B1')!.view, 'paid'));
    dispatchEvent(new Event('online'));
    await h.settle();
    expect(polls(h), 'a GET at once').to.equal(2);
    expect(FakeEventSource.instances, 'and the stream is tried again at once').to.have.length(2);
    expect(timeline(h.events).slice(-2)).to.deep.equal(['bill-status:paid', 'bill-final:paid']);
  });

  it('checks at once when the page comes back from the back/forward cache, and not on a plain pageshow', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    FakeEventSource.last.fail();
    await h.settle();
    await h.tick(400);
    expect(polls(h)).to.equal(1);
    const streams = FakeEventSource.instances.length;

    dispatchEvent(new PageTransitionEvent('pageshow', { persisted: false }));
    await h.settle();
    expect(polls(h), 'nothing on a plain pageshow').to.equal(1);
    expect(FakeEventSource.instances).to.have.length(streams);

    h.bff.set(final(h.bff.bills.get('B1')!.view, 'paid'));
    dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
    await h.settle();
    expect(polls(h), 'a GET at once').to.equal(2);
    expect(FakeEventSource.instances).to.have.length(streams + 1);
    expect(text(el, 'heading')).to.equal('Payment received');
  });

  it('does not react to online or pageshow once removed from the page', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    FakeEventSource.last.fail();
    await h.settle();
    el.remove();
    const count = polls(h);
    dispatchEvent(new Event('online'));
    dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
    await h.tick(60_000);
    expect(polls(h)).to.equal(count);
    expect(FakeEventSource.open).to.have.length(0);
  });

  it('tries the stream again after a capped backoff (1 s doubling to 60 s, half jittered) while polling', async () => {
    sinon.stub(Math, 'random').returns(0.5);
    await h.mount({ 'order-id': 'order-1' });
    // With random() = 0.5 each delay is 3/4 of min(60 s, 1 s · 2^(n-1)).
    const expected = [750, 1_500, 3_000, 6_000, 12_000, 24_000, 45_000, 45_000];
    for (const [n, delay] of expected.entries()) {
      FakeEventSource.last.fail();
      await h.settle();
      expect(FakeEventSource.open, `no stream right after failure ${n + 1}`).to.have.length(0);
      await h.tick(delay - 1);
      expect(FakeEventSource.instances, `not before ${delay} ms`).to.have.length(n + 1);
      await h.tick(1);
      expect(FakeEventSource.instances, `after ${delay} ms`).to.have.length(n + 2);
      expect(FakeEventSource.last.url).to.equal(FakeEventSource.instances[0]!.url);
    }
  });

  it('jitters the stream retry between half and all of the backoff', async () => {
    const random = sinon.stub(Math, 'random').returns(0);
    await h.mount({ 'order-id': 'order-1' });
    FakeEventSource.last.fail();
    await h.settle();
    await h.tick(499);
    expect(FakeEventSource.instances).to.have.length(1);
    await h.tick(1);
    expect(FakeEventSource.instances, 'at half of 1 s').to.have.length(2);

    random.returns(1);
    FakeEventSource.last.fail();
    await h.settle();
    await h.tick(1_999);
    expect(FakeEventSource.instances).to.have.length(2);
    await h.tick(1);
    expect(FakeEventSource.instances, 'at all of 2 s').to.have.length(3);
  });

  it('stops polling when the reopened stream speaks, and backs off from the start if it fails again', async () => {
    sinon.stub(Math, 'random').returns(0.5);
    const el = await h.mount({ 'order-id': 'order-1' });
    FakeEventSource.last.fail();
    await h.settle();
    await h.tick(750);
    expect(FakeEventSource.instances).to.have.length(2);
    const before = polls(h);
    await h.tick(3_000);
    expect(polls(h), 'still polling until the new stream speaks').to.be.greaterThan(before);

    FakeEventSource.last.emit(h.bff.bills.get('B1')!.view);
    await h.settle();
    const count = polls(h);
    await h.tick(60_000);
    expect(polls(h), 'no GET for a minute once the stream is back').to.equal(count);
    expect(FakeEventSource.open).to.have.length(1);

    FakeEventSource.last.emit(final(h.bff.bills.get('B1')!.view, 'paid'));
    await h.settle();
    expect(text(el, 'heading')).to.equal('Payment received');
    expect(FakeEventSource.open).to.have.length(0);
  });

  it('retries a stream that spoke and failed again after the first delay, not a longer one', async () => {
    sinon.stub(Math, 'random').returns(0.5);
    await h.mount({ 'order-id': 'order-1' });
    FakeEventSource.last.fail();
    await h.settle();
    await h.tick(750);
    FakeEventSource.last.fail();
    await h.settle();
    await h.tick(1_500);
    expect(FakeEventSource.instances).to.have.length(3);
    FakeEventSource.last.emit(h.bff.bills.get('B1')!.view);
    FakeEventSource.last.fail();
    await h.settle();
    await h.tick(749);
    expect(FakeEventSource.instances).to.have.length(3);
    await h.tick(1);
    expect(FakeEventSource.instances).to.have.length(4);
  });

  it('never moves backwards: an answer older than the one shown is ignored, a newer one is shown', async () => {
    const t = Date.now();
    h.bff.add(view({ status: 1, dateTime: t, billAmount: '10.00' }), 'T1');
    const el = await h.mount({ 'bill-id': 'B1', token: 'T1' });
    expect(text(el, 'amount')).to.equal('$10.00');
    const before = h.events.length;

    // A slow answer from before the shown one: the status not known yet, and another amount.
    FakeEventSource.last.emit(view({ status: null, statusName: 'Unknown', dateTime: t - 1_000, billAmount: '99.00' }));
    await h.settle();
    expect(text(el, 'amount')).to.equal('$10.00');
    expect(h.events.length, 'no bill-status').to.equal(before);

    // The same answer, newer than the shown one, is taken.
    FakeEventSource.last.emit(view({ status: null, statusName: 'Unknown', dateTime: t + 1_000, billAmount: '99.00' }));
    await h.settle();
    expect(text(el, 'amount')).to.equal('$99.00');
    expect(timeline(h.events.slice(before))).to.deep.equal(['bill-status:pending']);
  });

  it('ignores an older answer from a poll, too', async () => {
    const t = Date.now();
    h.bff.add(view({ status: 1, dateTime: t, billAmount: '10.00' }), 'T1');
    const el = await h.mount({ 'bill-id': 'B1', token: 'T1' });
    const before = h.events.length;
    h.bff.set(view({ status: null, statusName: 'Unknown', dateTime: null, billAmount: '99.00' }));
    FakeEventSource.last.fail();
    await h.settle();
    await h.tick(3_000);
    expect(polls(h)).to.equal(3);
    expect(text(el, 'amount')).to.equal('$10.00');
    expect(h.events.length).to.equal(before);
  });

  it('never leaves a final state: a pending view after it is ignored (a cancel answer racing the stream)', async () => {
    const el = await h.mount({ 'order-id': 'order-1', cancellable: true });
    const bill = h.bff.bills.get('B1')!.view;
    // The BFF answers the cancel with the bill still pending, newer than anything shown …
    h.bff.override = (call) => (call.path.endsWith('/cancel')
      ? { status: 200, body: { ...bill, dateTime: Date.now() + 60_000 } }
      : undefined);
    part(el, 'cancel-button')!.click();
    await h.settle();
    const yes = part(el, 'cancel-confirm')!.querySelector('button')!;
    yes.click();
    // … after the stream said it was paid.
    FakeEventSource.last.emit(final(bill, 'paid'));
    await h.settle();
    expect(h.bff.count('POST', '/cancel')).to.equal(1);
    expect(text(el, 'heading')).to.equal('Payment received');
    expect(timeline(h.events)).to.deep.equal([
      'bill-created:pending', 'bill-status:pending', 'bill-status:paid', 'bill-final:paid',
    ]);

    // And a late pending view on the old stream changes nothing either.
    FakeEventSource.last.emit({ ...bill, dateTime: Date.now() + 120_000 });
    await h.settle();
    expect(text(el, 'heading')).to.equal('Payment received');
    expect(h.events).to.have.length(4);
  });
});
