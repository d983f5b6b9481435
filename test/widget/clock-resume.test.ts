import { expect } from '@open-wc/testing';
import { Clock } from '../../widget/clock.js';
import { FakeEventSource, final, harness, has, text, timeline, view, type Harness } from './support.js';

describe('clock offset', () => {
  it('takes the server time at the middle of the request from X-Server-Time', () => {
    const clock = new Clock();
    clock._observe(new Headers({ 'x-server-time': '1000500' }), 1_000_000, 1_000_200);
    expect(clock.offset).to.equal(400);
  });

  it("prefers X-Service-Time, the payment service's clock that expiredOn is on, to the BFF's own", () => {
    const clock = new Clock();
    clock._observe(new Headers({ 'x-server-time': '1000100', 'x-service-time': '1090100' }), 1_000_000, 1_000_200);
    expect(clock.offset).to.equal(90_000);
  });

  it('falls back to the Date header, aiming at the middle of its second', () => {
    const clock = new Clock();
    const sent = Date.parse('2026-11-21T12:00:00Z');
    clock._observe(new Headers({ date: 'Sat, 21 Nov 2026 12:01:00 GMT' }), sent, sent);
    expect(clock.offset).to.equal(60_500);
  });

  it('keeps the offset when a response has neither', () => {
    const clock = new Clock();
    clock.offset = 42;
    clock._observe(new Headers(), 0, 10);
    expect(clock.offset).to.equal(42);
  });
});

describe('bill-checkout clock and resume', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.restore());

  it('counts down on the server clock, not the browser clock', async () => {
    h.bff.serverAhead = 2 * 60_000;
    h.bff.add(view({ expiredOn: Date.now() + 2 * 60_000 + 5 * 60_000 }), 'T1');
    const el = await h.mount({ 'bill-id': 'B1', token: 'T1' });
    expect(text(el, 'countdown')).to.equal('Time left: 05:00');
    await h.tick(5 * 60_000);
    expect(text(el, 'status')).to.equal('Checking your payment…');
  });

  it("counts down on the payment service's clock when the BFF knows it: a service 90 s ahead gives no 90 s that do not exist", async () => {
    h.bff.serverAhead = 0;
    h.bff.serviceAhead = 90_000;
    // expiredOn is on the service's clock: five minutes from the service's now.
    h.bff.add(view({ expiredOn: Date.now() + 90_000 + 5 * 60_000 }), 'T1');
    const el = await h.mount({ 'bill-id': 'B1', token: 'T1' });
    expect(text(el, 'countdown')).to.equal('Time left: 05:00');
    await h.tick(5 * 60_000 - 1000);
    expect(text(el, 'countdown')).to.equal('Time left: 00:01');
    await h.tick(1000);
    expect(text(el, 'status')).to.equal('Checking your payment…');
  });

  it('resumes the same bill after a reload instead of creating another', async () => {
    const first = await h.mount({ 'order-id': 'order-7' });
    expect(h.bff.count('POST')).to.equal(1);
    first.remove();

    const second = await h.mount({ 'order-id': 'order-7' });
    expect(h.bff.count('POST')).to.equal(1);
    expect(h.bff.calls.at(-1)!.path).to.equal('/api/bills/B1');
    expect(h.bff.calls.at(-1)!.token).to.equal('T1');
    expect(has(second, 'qr') || has(second, 'pay-button')).to.equal(true);
    expect(FakeEventSource.last.url).to.contain('/bills/B1/');
  });

  it('shows the final state again after a reload, and fires bill-final for the new page', async () => {
    const first = await h.mount({ 'order-id': 'order-7' });
    FakeEventSource.last.emit(final(h.bff.bills.get('B1')!.view, 'paid'));
    h.bff.set(final(h.bff.bills.get('B1')!.view, 'paid'));
    await h.settle();
    first.remove();
    h.events.length = 0;

    const second = await h.mount({ 'order-id': 'order-7' });
    expect(text(second, 'heading')).to.equal('Payment received');
    expect(h.bff.count('POST')).to.equal(1);
    expect(timeline(h.events)).to.deep.equal(['bill-status:paid', 'bill-final:paid']);
  });

  it('reuses the idempotency key when reloaded in the middle of a create', async () => {
    h.bff.override = (call) => (call.method === 'POST' ? 'hang' : undefined);
    const first = await h.mount({ 'order-id': 'order-8' });
    first.remove();
    h.bff.override = undefined;
    await h.mount({ 'order-id': 'order-8' });
    const keys = h.bff.calls.filter((c) => c.method === 'POST').map((c) => c.headers.get('idempotency-key'));
    expect(keys).to.have.length(2);
    expect(keys[0]).to.match(/^[0-9a-f-]{36}$/);
    expect(keys[1]).to.equal(keys[0]);
  });

  it('creates a new bill when the saved one is gone', async () => {
    const first = await h.mount({ 'order-id': 'order-9' });
    first.remove();
    h.bff.bills.clear();
    const second = await h.mount({ 'order-id': 'order-9' });
    expect(h.bff.count('POST')).to.equal(2);
    expect(text(second, 'status')).to.equal('Waiting for payment…');
  });

  it('keeps checkouts for different orders and endpoints apart', async () => {
    await h.mount({ 'order-id': 'a' });
    await h.mount({ 'order-id': 'b' });
    await h.mount({ 'order-id': 'a', endpoint: '/other/api' });
    expect(h.bff.count('POST')).to.equal(3);
  });

  it('forgets the bill on "start again"', async () => {
    const el = await h.mount({ 'order-id': 'order-10' });
    FakeEventSource.last.emit(final(h.bff.bills.get('B1')!.view, 'expired'));
    await h.settle();
    (el.shadowRoot!.querySelector('[part~="start-again-button"]') as HTMLElement).click();
    await h.settle();
    el.remove();
    await h.mount({ 'order-id': 'order-10' });
    expect(h.bff.calls.at(-1)!.path).to.equal('/api/bills/B2');
  });
});
