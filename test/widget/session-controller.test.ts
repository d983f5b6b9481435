import { expect } from '@open-wc/testing';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { BillView, CreatedBillView } from '../../contract/bill-view.js';
import { BffClient, type BillRef } from '../../widget/bff-client.js';
import { Clock } from '../../widget/clock.js';
import { SessionController, type Problem, type SessionInput } from '../../widget/controllers/session-controller.js';
import { view } from './support.js';

interface Pending {
  path: string;
  init: RequestInit;
  answer(body: unknown, status?: number): void;
}

/** A host that records what its controller reports, and a fetch whose answers the test gives. */
function setup(input: SessionInput) {
  const pending: Pending[] = [];
  const reported: string[] = [];
  const controllers: ReactiveController[] = [];
  // Answers even when aborted, like a response that had arrived just before the abort.
  const fetch = (url: RequestInfo | URL, init: RequestInit = {}) => new Promise<Response>((resolve) => {
    pending.push({
      path: new URL(String(url), location.href).pathname,
      init,
      answer: (body, status = 200) => resolve(new Response(JSON.stringify(body), { status })),
    });
  });
  const host: ReactiveControllerHost & SessionInput = {
    ...input,
    addController: (c) => void controllers.push(c),
    removeController: () => {},
    requestUpdate: () => {},
    updateComplete: Promise.resolve(true),
  };
  const session = new SessionController(host, {
    _onStart: () => new BffClient(host.endpoint, fetch, new Clock(), 'en'),
    _onBill: (ref: BillRef) => void reported.push(`bill ${ref.billId}`),
    _onCreated: (bill: BillView) => void reported.push(`created ${bill.billId}`),
    _onProblem: (problem: Problem) => void reported.push(problem),
  });
  const created = (billId: string): CreatedBillView => ({ ...view({ billId }), token: `T-${billId}` });
  // Response bodies are read in tasks of their own: five turns, or (`until`) as many as the engine
  // takes to report what the test waits for (Firefox under load has taken more than five).
  const settle = async (until?: () => boolean) => {
    for (let i = 0; i < 5 || (until && !until() && i < 500); i++) await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { host, session, pending, reported, controllers, created, settle };
}

describe('SessionController', () => {
  beforeEach(() => sessionStorage.clear());
  afterEach(() => sessionStorage.clear());

  it('reports only the latest run, even when an earlier one is answered after it was replaced', async () => {
    const s = setup({ endpoint: '/api', orderId: 'order-1' });
    s.session._start();
    s.host.orderId = 'order-2';
    s.session._start();
    expect(s.pending.map((p) => p.init.signal?.aborted)).to.deep.equal([true, false]);
    s.pending[0]!.answer(s.created('B1'), 201);
    await s.settle();
    expect(s.reported).to.deep.equal([]);
    s.pending[1]!.answer(s.created('B2'), 201);
    await s.settle();
    expect(s.reported).to.deep.equal(['created B2', 'bill B2']);
  });

  it('aborts a create when its host leaves the page, and asks again with the same key when it comes back', async () => {
    const s = setup({ endpoint: '/api', orderId: 'order-3' });
    s.session._start();
    s.session.hostDisconnected();
    expect(s.pending[0]!.init.signal?.aborted).to.equal(true);
    s.session.hostConnected();
    expect(s.pending).to.have.length(2);
    const key = (p: Pending) => new Headers(p.init.headers).get('idempotency-key');
    expect(key(s.pending[1]!)).to.equal(key(s.pending[0]!));
    s.pending[1]!.answer(s.created('B3'), 201);
    await s.settle();
    expect(s.reported).to.deep.equal(['created B3', 'bill B3']);
    // With a bill shown, leaving and coming back starts nothing.
    s.session.hostDisconnected();
    s.session.hostConnected();
    expect(s.pending).to.have.length(2);
  });

  it('resumes the saved bill, and after _forget creates a new one', async () => {
    const s = setup({ endpoint: '/api', orderId: 'order-4' });
    s.session._start();
    s.pending[0]!.answer(s.created('B4'), 201);
    await s.settle();
    s.session._start();
    expect(s.pending[1]!.path).to.equal('/api/bills/B4');
    s.pending[1]!.answer(view({ billId: 'B4' }));
    await s.settle();
    s.session._forget();
    s.session._start();
    expect(s.pending[2]!.path).to.equal('/api/bills');
    expect(s.reported).to.deep.equal(['created B4', 'bill B4', 'bill B4']);
  });

  it('gives up with notFound on a bill the BFF does not know, and createFailed on a refused create', async () => {
    const s = setup({ endpoint: '/api', billId: 'B5', token: 'wrong' });
    s.session._start();
    s.pending[0]!.answer({ error: { code: 'not_found', message: 'No such bill' } }, 404);
    await s.settle(() => s.reported.length === 1);
    s.host.billId = undefined;
    s.host.amount = '10.00';
    s.session._start();
    s.pending[1]!.answer({ error: { code: 'amount_invalid', message: 'No' } }, 400);
    await s.settle(() => s.reported.length === 2);
    expect(s.reported).to.deep.equal(['notFound', 'createFailed']);
  });
});
