import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import { FakeEventSource, has, part, text, timeline, type Call, type Harness, harness } from './support.js';

/** The BFF's error answer, with its Retry-After when given. */
function refusal(status: number, code: string, retryAfter?: number) {
  return {
    status,
    body: { error: { code, message: code } },
    ...(retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } }),
  };
}

const inProgress = refusal(409, 'create_in_progress', 2);
const createFailed = refusal(502, 'create_failed');

/**
 * How the BFF answers creates (the contract for `POST /api/bills`): the answers given, one
 * per create, then the fake BFF's 201s.
 */
function creates(h: Harness, ...answers: ReturnType<typeof refusal>[]): void {
  h.bff.override = (call: Call) => (call.method === 'POST' && call.path === '/api/bills' ? answers.shift() : undefined);
}

describe('bill-checkout following the BFF on creates (Retry-After, create_failed)', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
    // Backoff delays at their shortest (half of each ceiling): a wait that took them would show.
    sinon.stub(Math, 'random').returns(0);
  });
  afterEach(() => h.restore());

  const posts = () => h.bff.calls.filter((c) => c.method === 'POST' && c.path === '/api/bills');
  const keys = () => posts().map((c) => c.headers.get('idempotency-key'));
  const loading = 'Loading your bill…';
  const showsBill = (el: Element) => has(el, 'qr') || has(el, 'pay-button');

  it('repeats a create the BFF is still settling (409 create_in_progress) with the same key after Retry-After, still loading', async () => {
    creates(h, inProgress);
    const el = await h.mount({ 'order-id': 'order-1' });
    expect(posts()).to.have.length(1);
    expect(text(el, 'status'), 'no error while the BFF settles').to.equal(loading);
    expect(has(el, 'retry-button')).to.equal(false);

    await h.tick(1_999);
    expect(posts(), 'not before Retry-After').to.have.length(1);
    expect(text(el, 'status')).to.equal(loading);
    await h.tick(1);
    expect(posts()).to.have.length(2);
    expect(showsBill(el)).to.equal(true);
    expect(text(el, 'status')).to.equal('Waiting for payment…');
    expect(new Set(keys()).size, 'the same Idempotency-Key').to.equal(1);
    expect(keys()[0]).to.be.a('string');
    expect(timeline(h.events), 'no error flashed').to.deep.equal(['bill-created:pending', 'bill-status:pending']);

    await h.tick(60_000);
    expect(posts(), 'nothing more once the bill is shown').to.have.length(2);
  });

  it('repeats a create answered 503 with Retry-After after that many seconds, with the same key, still loading', async () => {
    creates(h, refusal(503, 'upstream_busy', 1));
    const el = await h.mount({ 'order-id': 'order-1' });
    expect(text(el, 'status'), 'no "cannot reach" for a BFF that says when').to.equal(loading);

    await h.tick(999);
    expect(posts(), 'not before Retry-After (the backoff would have been 500 ms)').to.have.length(1);
    await h.tick(1);
    expect(posts()).to.have.length(2);
    expect(new Set(keys()).size).to.equal(1);
    expect(showsBill(el)).to.equal(true);
    expect(timeline(h.events)).to.deep.equal(['bill-created:pending', 'bill-status:pending']);
  });

  it('waits at most 30 s for one Retry-After, and after about 2 minutes of waits backs off as before, saying so', async () => {
    h.bff.override = (call) => (call.method === 'POST' ? refusal(503, 'order_bill_pending', 3600) : undefined);
    const el = await h.mount({ 'order-id': 'order-1' });
    await h.tick(29_999);
    expect(posts()).to.have.length(1);
    await h.tick(1);
    expect(posts(), 'an hour is capped to 30 s').to.have.length(2);
    await h.tick(30_000 * 2);
    expect(posts()).to.have.length(4);
    expect(text(el, 'status')).to.equal(loading);
    expect(h.events).to.have.length(0);
    // 2 minutes waited: a 503 is then retried as one without Retry-After (the backoff, shown).
    await h.tick(30_000);
    expect(posts()).to.have.length(5);
    expect(text(el, 'status')).to.equal('Cannot reach the payment service. Retrying…');
    expect(timeline(h.events)).to.deep.equal(['bill-error']);
    await h.tick(500);
    expect(posts()).to.have.length(6);
    expect(new Set(keys()).size).to.equal(1);
  });

  it('shows the error with its Retry button when the BFF is still settling the create after about 2 minutes', async () => {
    h.bff.override = (call) => (call.method === 'POST' ? inProgress : undefined);
    const el = await h.mount({ 'order-id': 'order-1' });
    await h.tick(60_000);
    expect(posts()).to.have.length(31);
    expect(text(el, 'status')).to.equal(loading);
    await h.tick(60_000);
    expect(posts(), 'one every 2 s for 2 minutes').to.have.length(61);
    expect(text(el, 'status')).to.equal('Could not create the bill.');
    expect(has(el, 'retry-button')).to.equal(true);
    expect(new Set(keys()).size).to.equal(1);
    await h.tick(10 * 60_000);
    expect(posts(), 'no more once shown as an error').to.have.length(61);

    h.bff.override = undefined;
    part(el, 'retry-button')!.click();
    await h.settle();
    expect(showsBill(el)).to.equal(true);
  });

  it('starts again once with a fresh key when the BFF says the create is over (502 create_failed)', async () => {
    creates(h, createFailed);
    const el = await h.mount({ 'order-id': 'order-1' });
    await h.tick(1_000);
    expect(posts()).to.have.length(2);
    const [dead, fresh] = keys();
    expect(fresh).to.be.a('string').and.not.equal(dead);
    expect(showsBill(el)).to.equal(true);
    expect(timeline(h.events)).to.deep.equal(['bill-created:pending', 'bill-status:pending']);
  });

  it('shows the error with its Retry button when the fresh key fails too, and Retry starts with another key', async () => {
    creates(h, createFailed, createFailed);
    const el = await h.mount({ 'order-id': 'order-1' });
    expect(text(el, 'status')).to.equal('Could not create the bill.');
    expect(has(el, 'retry-button')).to.equal(true);
    expect(posts()).to.have.length(2);
    await h.tick(5 * 60_000);
    expect(posts(), 'no third create without the customer').to.have.length(2);
    expect((h.events.at(-1) as CustomEvent<{ code: string }>).detail.code).to.equal('create_failed');

    part(el, 'retry-button')!.click();
    await h.settle();
    expect(posts()).to.have.length(3);
    expect(new Set(keys()).size, 'three keys').to.equal(3);
    expect(showsBill(el)).to.equal(true);
  });

  it('shows the BFF\'s other 502s of a create (upstream_mismatch, upstream_invalid_answer) as errors with Retry, and still backs off on a proxy\'s', async () => {
    for (const code of ['upstream_mismatch', 'upstream_invalid_answer']) {
      creates(h, refusal(502, code));
      const el = await h.mount({ 'order-id': code });
      expect(text(el, 'status'), code).to.equal('Could not create the bill.');
      expect(has(el, 'retry-button'), code).to.equal(true);
    }
    await h.tick(5 * 60_000);
    expect(posts(), 'not asked again').to.have.length(2);

    // A gateway's 502 has no error of the BFF's: retried with backoff, as before.
    h.bff.override = (call) => (call.method === 'POST' && posts().length < 5 ? { status: 502 } : undefined);
    const el = await h.mount({ 'order-id': 'order-3' });
    expect(text(el, 'status')).to.equal('Cannot reach the payment service. Retrying…');
    await h.tick(500);
    expect(posts()).to.have.length(4);
    await h.tick(1_000);
    expect(posts()).to.have.length(5);
    expect(showsBill(el)).to.equal(true);
  });

  it('does not send a key the BFF said is over after a reload, even mid-create', async () => {
    // The fresh key's create is under way when the page reloads.
    h.bff.override = (call) => (call.method !== 'POST' ? undefined : posts().length === 1 ? createFailed : 'hang');
    const first = await h.mount({ 'order-id': 'order-1' });
    await h.tick(1_000);
    const [dead, fresh] = keys();
    expect(fresh).to.not.equal(dead);
    first.remove();
    h.bff.override = undefined;
    const reloaded = await h.mount({ 'order-id': 'order-1' });
    expect(keys()).to.have.length(3);
    expect(keys()[2], 'the fresh key, asked again').to.equal(fresh);
    expect(keys(), 'the dead key never sent again').to.deep.equal([dead, fresh, fresh]);
    expect(showsBill(reloaded)).to.equal(true);
  });

  it('does not send either dead key after a reload that follows the error', async () => {
    creates(h, createFailed, createFailed);
    const first = await h.mount({ 'order-id': 'order-1' });
    expect(has(first, 'retry-button')).to.equal(true);
    first.remove();
    const reloaded = await h.mount({ 'order-id': 'order-1' });
    expect(keys()).to.have.length(3);
    expect(keys().slice(0, 2), 'a new key').to.not.include(keys()[2]);
    expect(showsBill(reloaded)).to.equal(true);
  });

  it('stops waiting when the element leaves the page or is given a new order: the latest run wins', async () => {
    creates(h, inProgress, inProgress);
    const el = await h.mount({ 'order-id': 'order-1' });
    expect(text(el, 'status')).to.equal(loading);
    el.remove();
    await h.tick(60_000);
    expect(posts(), 'no create after leaving the page').to.have.length(1);

    h.container.append(el);
    await h.settle();
    expect(posts()).to.have.length(2);
    expect(keys()[1], 'the same key when it comes back').to.equal(keys()[0]);
    el.setAttribute('order-id', 'order-2');
    await h.settle();
    await h.tick(60_000);
    expect(posts().map((c) => (c.body as { orderId: string }).orderId)).to.deep.equal(['order-1', 'order-1', 'order-2']);
    expect(showsBill(el)).to.equal(true);
    expect(FakeEventSource.open).to.have.length(1);
  });
});
