import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import { FakeEventSource, final, harness, has, text, timeline, type Harness } from './support.js';

function polls(h: Harness): number {
  return h.bff.calls.filter((c) => c.method === 'GET').length;
}

describe('bill-checkout live status', () => {
  let h: Harness;
  let hidden = false;
  beforeEach(() => {
    h = harness();
    hidden = false;
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
  });
  afterEach(() => {
    delete (document as { hidden?: boolean }).hidden;
    h.restore();
  });

  async function setHidden(value: boolean) {
    hidden = value;
    document.dispatchEvent(new Event('visibilitychange'));
    await h.settle();
  }

  it('follows Server-Sent Events first, without polling', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    await h.tick(60_000);
    expect(polls(h)).to.equal(0);
    FakeEventSource.last.emit(final(h.bff.bills.get('B1')!.view, 'paid'));
    await h.settle();
    expect(text(el, 'heading')).to.equal('Payment received');
  });

  it('falls back to polling at once when the stream fails, then every 3 s while pending', async () => {
    // The stream is tried again after 3/4 of 1 s; a check at once then, every 3 s from there.
    sinon.stub(Math, 'random').returns(0.5);
    const el = await h.mount({ 'order-id': 'order-1' });
    const es = FakeEventSource.last;
    es.fail();
    await h.settle();
    expect(es.closed).to.equal(true);
    expect(polls(h)).to.equal(1);
    await h.tick(749);
    expect(polls(h)).to.equal(1);
    expect(FakeEventSource.instances).to.have.length(1);
    await h.tick(1);
    expect(FakeEventSource.instances, 'the stream is tried again').to.have.length(2);
    // With a check at once (the fake clock runs a zero-delay timer set while it ticks 1 ms later).
    await h.tick(1);
    expect(polls(h), 'with a check at once').to.equal(2);
    // The new stream has not spoken yet: polling goes on every 3 s.
    for (let n = 3; n <= 12; n++) {
      await h.tick(2_999);
      expect(polls(h)).to.equal(n - 1);
      await h.tick(1);
      expect(polls(h)).to.equal(n);
    }

    h.bff.set(final(h.bff.bills.get('B1')!.view, 'paid'));
    await h.tick(3_000);
    expect(text(el, 'heading')).to.equal('Payment received');
    const count = polls(h);
    await h.tick(10 * 60_000);
    expect(polls(h), 'stops at the final status').to.equal(count);
    expect(FakeEventSource.instances, 'and stops trying the stream').to.have.length(2);
    expect(FakeEventSource.open).to.have.length(0);
  });

  it('backs off exponentially up to 30 s with jitter while the BFF is down, showing a retrying state', async () => {
    sinon.stub(Math, 'random').returns(0.5);
    const el = await h.mount({ 'order-id': 'order-1' });
    h.bff.override = (call) => (call.method === 'GET' ? 'network' : undefined);
    FakeEventSource.last.fail();
    await h.settle();
    expect(polls(h)).to.equal(1);
    expect(text(el, 'status')).to.equal('Waiting for payment…');
    expect(text(el, 'base')).to.contain('Connection lost. Retrying…');
    expect(has(el, 'heading')).to.equal(false);

    // With random() = 0.5 each delay is 3/4 of min(30 s, 1 s · 2^(n-1)): 750, 1500, 3000…
    // The stream is tried again 750 ms after it failed (3/4 of its own 1 s), just before the first
    // check's timer, with a check at once instead (1 ms later on the fake clock, which delays a
    // zero-delay timer set while it ticks), and the backoff goes on from there, the stream still silent.
    const expected = [751, 1_500, 3_000, 6_000, 12_000, 22_500, 22_500];
    for (const [n, delay] of expected.entries()) {
      const before = polls(h);
      await h.tick(delay - 1);
      expect(polls(h), `not before ${delay} ms`).to.equal(before);
      await h.tick(1);
      expect(polls(h), `after ${delay} ms`).to.equal(before + 1);
      expect(FakeEventSource.instances, `the stream tried again once, at the first check (${n})`).to.have.length(2);
    }
    expect(timeline(h.events).filter((t) => t === 'bill-error'), 'one error per outage').to.have.length(1);
    expect(has(el, 'heading')).to.equal(false);

    h.bff.override = undefined;
    await h.tick(22_500);
    expect(text(el, 'base')).to.not.contain('Retrying');
    const before = polls(h);
    await h.tick(3_000);
    expect(polls(h), 'steady interval again').to.equal(before + 1);
  });

  it('pauses while the page is hidden and checks at once when it shows again (polling)', async () => {
    await h.mount({ 'order-id': 'order-1' });
    FakeEventSource.last.fail();
    await h.settle();
    expect(polls(h)).to.equal(1);
    await setHidden(true);
    await h.tick(5 * 60_000);
    expect(polls(h)).to.equal(1);
    await setHidden(false);
    expect(polls(h)).to.equal(2);
    await h.tick(3_000);
    expect(polls(h)).to.equal(3);
  });

  it('closes the stream while hidden and reopens it when visible again', async () => {
    await h.mount({ 'order-id': 'order-1' });
    const first = FakeEventSource.last;
    await setHidden(true);
    expect(first.closed).to.equal(true);
    expect(FakeEventSource.open).to.have.length(0);
    await h.tick(60_000);
    await setHidden(false);
    expect(FakeEventSource.open).to.have.length(1);
    expect(FakeEventSource.last.url).to.equal(first.url);
  });

  it('retries a create while the BFF is unreachable, with the same idempotency key', async () => {
    sinon.stub(Math, 'random').returns(1);
    h.bff.override = (call) => (call.method === 'POST' ? 'network' : undefined);
    const el = await h.mount({ 'order-id': 'order-1' });
    expect(text(el, 'status')).to.equal('Cannot reach the payment service. Retrying…');
    await h.tick(1_000 + 2_000);
    expect(h.bff.count('POST')).to.equal(3);
    h.bff.override = (call) => (call.method === 'POST' ? { status: 503, body: { error: { code: 'unavailable', message: 'down' } } } : undefined);
    await h.tick(4_000);
    expect(h.bff.count('POST')).to.equal(4);
    h.bff.override = undefined;
    await h.tick(8_000);
    const keys = new Set(h.bff.calls.map((c) => c.headers.get('idempotency-key')));
    expect(keys.size).to.equal(1);
    expect(text(el, 'status')).to.equal('Waiting for payment…');
    expect(timeline(h.events)).to.deep.equal(['bill-error', 'bill-created:pending', 'bill-status:pending']);
  });

  it('stops with a visible error when polling learns the bill is gone', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    h.bff.bills.clear();
    FakeEventSource.last.fail();
    await h.settle();
    expect(text(el, 'status')).to.equal('Bill not found.');
    const count = polls(h);
    await h.tick(60_000);
    expect(polls(h)).to.equal(count);
  });

  it('stops everything when removed from the page and resumes when put back', async () => {
    const el = await h.mount({ 'order-id': 'order-1' });
    FakeEventSource.last.fail();
    await h.settle();
    el.remove();
    const count = polls(h);
    await h.tick(60_000);
    expect(polls(h)).to.equal(count);
    h.container.append(el);
    await h.settle();
    expect(polls(h)).to.equal(count + 1);
  });
});
