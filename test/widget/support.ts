import sinon from 'sinon';
import type { BillView, CreatedBillView } from '../../contract/bill-view.js';
import type { BillCheckout } from '../../widget/bill-checkout.js';
import '../../widget/define.js';

export type Clock = sinon.SinonFakeTimers;

/** A pending bill, 15 minutes before its expiry on the (fake) clock. */
export function view(overrides: Partial<BillView> = {}): BillView {
  return {
    billId: 'B1',
    merchantReference: 'order-1',
    billUrl: 'https://pay.example/bill/B1',
    billAmount: '12500.50',
    currency: 'USD',
    requireGCAmount: '0.0123',
    expiredOn: Date.now() + 15 * 60_000,
    status: 1,
    statusName: 'Pending Payment',
    isFinal: false,
    outcome: 'pending',
    dateTime: null,
    ...overrides,
  };
}

const finals = { paid: 2, failed: 3, cancelled: 4, expired: 5 } as const;

/** The same bill in a final state. */
export function final(bill: BillView, outcome: keyof typeof finals): BillView {
  return { ...bill, status: finals[outcome], statusName: outcome, isFinal: true, outcome, dateTime: Date.now() };
}

/** An EventSource whose events the test sends. */
export class FakeEventSource extends EventTarget {
  static instances: FakeEventSource[] = [];
  readyState = 0;
  closed = false;

  constructor(readonly url: string) {
    super();
    FakeEventSource.instances.push(this);
  }

  static get last(): FakeEventSource {
    const last = FakeEventSource.instances.at(-1);
    if (!last) throw new Error('no EventSource was opened');
    return last;
  }

  static get open(): FakeEventSource[] {
    return FakeEventSource.instances.filter((es) => !es.closed);
  }

  emit(bill: BillView): void {
    this.readyState = 1;
    this.dispatchEvent(new MessageEvent('status', { data: JSON.stringify(bill) }));
  }

  fail(): void {
    this.readyState = 2;
    this.dispatchEvent(new Event('error'));
  }

  close(): void {
    this.readyState = 2;
    this.closed = true;
  }
}

export interface Call {
  method: string;
  path: string;
  token: string | null;
  headers: Headers;
  body: unknown;
}

type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | 'network' | 'hang';

/** The BFF's browser API, in memory, behind a fake fetch. */
export class FakeBff {
  bills = new Map<string, { view: BillView; token: string }>();
  calls: Call[] = [];
  /** How far the server's clock is ahead of the browser's. */
  serverAhead = 0;
  /** The payment service's clock ahead of the browser's, ms (X-Service-Time); null: the BFF sends none. */
  serviceAhead: number | null = null;
  /** Answers instead of the normal behaviour while it returns something. */
  override: ((call: Call) => Answer | undefined) | undefined;
  #next = 1;

  readonly fetch = sinon.spy(async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input), location.href);
    const call: Call = {
      method: init.method ?? 'GET',
      path: url.pathname,
      token: url.searchParams.get('token'),
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    this.calls.push(call);
    const answer = this.override?.(call) ?? this.#answer(call);
    if (answer === 'network') throw new TypeError('Failed to fetch');
    if (answer === 'hang') {
      return new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    }
    const headers = new Headers({ ...answer.headers, 'x-server-time': String(Date.now() + this.serverAhead) });
    if (this.serviceAhead !== null) headers.set('x-service-time', String(Date.now() + this.serviceAhead));
    return {
      ok: answer.status < 300,
      status: answer.status,
      headers,
      json: async () => answer.body ?? null,
    } as unknown as Response;
  });

  /** Calls with this method whose path ends with `suffix`. */
  count(method: string, suffix = ''): number {
    return this.calls.filter((c) => c.method === method && c.path.endsWith(suffix)).length;
  }

  add(bill: BillView, token = 'T1'): void {
    this.bills.set(bill.billId, { view: bill, token });
  }

  /** Changes a stored bill (what the next poll returns). */
  set(bill: BillView): void {
    const entry = this.bills.get(bill.billId);
    if (!entry) throw new Error(`no bill ${bill.billId}`);
    entry.view = bill;
  }

  #answer(call: Call): Answer {
    if (call.method === 'POST' && call.path.endsWith('/bills')) {
      const n = this.#next++;
      const created: CreatedBillView = {
        ...view({ billId: `B${n}`, billUrl: `https://pay.example/bill/B${n}` }),
        token: `T${n}`,
      };
      const { token, ...bill } = created;
      this.add(bill, token);
      return { status: 201, body: created };
    }
    const match = /\/bills\/([^/]+)(\/cancel)?$/.exec(call.path);
    const entry = match && this.bills.get(decodeURIComponent(match[1]!));
    if (!entry || entry.token !== call.token) {
      return { status: 404, body: { error: { code: 'not_found', message: 'No such bill' } } };
    }
    if (match[2]) {
      if (entry.view.isFinal) return { status: 409, body: { error: { code: 'conflict', message: 'Final' } } };
      entry.view = final(entry.view, 'cancelled');
    }
    return { status: 200, body: entry.view };
  }
}

export interface Harness {
  clock: Clock;
  bff: FakeBff;
  events: Event[];
  container: HTMLElement;
  mount(attributes: Record<string, string | boolean>, parent?: Node): Promise<BillCheckout>;
  /** Lets pending promises, zero-delay timers and renders run. */
  settle(): Promise<void>;
  /** Advances the fake clock, running what falls due, then settles. */
  tick(ms: number): Promise<void>;
  restore(): void;
}

const eventNames = ['bill-created', 'bill-status', 'bill-final', 'bill-error', 'bill-ticket-expired'] as const;

/** Fake timers, a fake BFF, a fake EventSource and a container; `restore()` undoes all. */
export function harness(): Harness {
  const clock = sinon.useFakeTimers({
    now: Date.UTC(2026, 10, 21, 12),
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
  FakeEventSource.instances = [];
  sessionStorage.clear();
  const bff = new FakeBff();
  const events: Event[] = [];
  const record = (event: Event) => events.push(event);
  for (const name of eventNames) document.addEventListener(name, record);
  const container = document.createElement('div');
  document.body.append(container);
  const mounted: BillCheckout[] = [];

  const settle = async () => {
    for (let i = 0; i < 8; i++) await clock.tickAsync(0);
    await Promise.all(mounted.map((el) => el.updateComplete));
  };

  return {
    clock,
    bff,
    events,
    container,
    settle,
    async tick(ms) {
      await clock.tickAsync(ms);
      await settle();
    },
    async mount(attributes, parent = container) {
      const el = document.createElement('bill-checkout');
      el.fetchImpl = bff.fetch;
      el.eventSourceImpl = FakeEventSource as unknown as typeof EventSource;
      for (const [name, value] of Object.entries(attributes)) {
        if (value === true) el.setAttribute(name, '');
        else if (value !== false) el.setAttribute(name, value);
      }
      mounted.push(el);
      parent.appendChild(el);
      await settle();
      return el;
    },
    restore() {
      for (const name of eventNames) document.removeEventListener(name, record);
      container.remove();
      clock.restore();
      sessionStorage.clear();
      sinon.restore();
    },
  };
}

/** The element's shadow root. */
export function shadow(el: Element): ShadowRoot {
  if (!el.shadowRoot) throw new Error('no shadow root');
  return el.shadowRoot;
}

/** The element in the shadow root with this part, or null. */
export function part(el: Element, name: string): HTMLElement | null {
  return shadow(el).querySelector(`[part~="${name}"]`);
}

/** Whether the shadow root has an element with this part (booleans keep failures readable). */
export function has(el: Element, name: string): boolean {
  return part(el, name) !== null;
}

/** The visible text of a part, whitespace collapsed. */
export function text(el: Element, name: string): string {
  return (part(el, name)?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** What the live region says. */
export function announced(el: Element): string {
  return (shadow(el).querySelector('[role="status"]')?.textContent ?? '').trim();
}

/** Event types in order, with `detail.outcome` for bill views. */
export function timeline(events: Event[]): string[] {
  return events.map((e) => {
    const detail = (e as CustomEvent<unknown>).detail as Partial<BillView> | undefined;
    return detail && 'outcome' in detail ? `${e.type}:${detail.outcome}` : e.type;
  });
}
