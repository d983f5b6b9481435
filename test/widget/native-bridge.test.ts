import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import type { BillView } from '../../contract/bill-view.js';
import type { BillCheckout } from '../../widget/bill-checkout.js';
import { FakeEventSource, final, harness, text, type Harness } from './support.js';

interface Message {
  type: 'bill-checkout';
  version: 1;
  event: 'created' | 'status' | 'final';
  bill: BillView;
}

/** What the host apps inject into the page. */
interface Channels {
  ReactNativeWebView?: { postMessage(json: string): void };
  webkit?: { messageHandlers: { billCheckout: { postMessage(message: Message): void } } };
  BillCheckoutAndroid?: { postMessage(json: string): void };
  BillCheckoutFlutter?: { postMessage(json: string): void };
}

type Channel = 'ReactNativeWebView' | 'webkit' | 'BillCheckoutAndroid' | 'BillCheckoutFlutter';
const channels: Channel[] = ['ReactNativeWebView', 'webkit', 'BillCheckoutAndroid', 'BillCheckoutFlutter'];

const host = window as unknown as Channels;

/** Items in arrival order, and a wait for the n-th (the bridge posts asynchronously, after loading). */
class Inbox<T> {
  readonly items: T[] = [];
  #waiting: { n: number; resolve: () => void }[] = [];

  push(item: T): void {
    this.items.push(item);
    this.#waiting = this.#waiting.filter((w) => (this.items.length >= w.n ? (w.resolve(), false) : true));
  }

  /** Resolves once `n` items arrived (the test times out when they never do). */
  until(n: number): Promise<void> {
    if (this.items.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push({ n, resolve }));
  }
}

/** Installs a fake of each named channel; returns what each received, decoded, and all of it in `all`. */
function install(names: Channel[], target: Channels = host): Record<Channel, Message[]> & { all: Inbox<Message> } {
  const all = new Inbox<Message>();
  const received: Record<Channel, Message[]> & { all: Inbox<Message> } = {
    ReactNativeWebView: [], webkit: [], BillCheckoutAndroid: [], BillCheckoutFlutter: [], all,
  };
  const json = (name: Channel) => ({
    postMessage(data: string) {
      expect(data, `${name} takes a JSON string`).to.be.a('string');
      received[name].push(JSON.parse(data) as Message);
      all.push(JSON.parse(data) as Message);
    },
  });
  for (const name of names) {
    if (name === 'webkit') {
      target.webkit = {
        messageHandlers: {
          billCheckout: {
            postMessage(message: Message) {
              expect(message, 'WKWebView takes an object').to.be.an('object');
              // What WebKit would pass to the app: a structured copy.
              received.webkit.push(structuredClone(message));
              all.push(structuredClone(message));
            },
          },
        },
      };
    } else {
      target[name] = json(name);
    }
  }
  return received;
}

function uninstall(): void {
  delete host.ReactNativeWebView;
  delete host.webkit;
  delete host.BillCheckoutAndroid;
  delete host.BillCheckoutFlutter;
}

function messages(bill: BillView, paid: BillView): Message[] {
  const m = (event: Message['event'], view: BillView): Message => ({ type: 'bill-checkout', version: 1, event, bill: view });
  return [m('created', bill), m('status', bill), m('status', paid), m('final', paid)];
}

describe('bill-checkout native bridge', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => {
    uninstall();
    h.restore();
  });

  /** Creates a bill with `attributes`, then pays it over the stream; returns the expected messages. */
  async function payFlow(attributes: Record<string, string | boolean>): Promise<{ el: BillCheckout; expected: Message[] }> {
    const el = await h.mount({ 'order-id': 'order-1', ...attributes });
    const created = h.events.filter((e) => e.type === 'bill-created').at(-1) as CustomEvent<BillView>;
    const bill = created.detail;
    const paid = final(bill, 'paid');
    FakeEventSource.last.emit(paid);
    await h.settle();
    expect(text(el, 'heading')).to.equal('Payment received');
    return { el, expected: messages(bill, paid) };
  }

  // First: the page has not loaded the bridge yet.
  it('posts nothing to any channel without native-bridge, and does not load the bridge', async () => {
    const received = install(channels);
    const toParent = sinon.spy(window, 'postMessage');
    const { expected: silent } = await payFlow({});
    const loaded = performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname);
    expect(loaded.filter((path) => path.startsWith('/widget/native-bridge.'))).to.deep.equal([]);
    expect(loaded.some((path) => path.startsWith('/widget/bill-checkout.')), 'the check sees the widget\'s modules').to.equal(true);
    // Then an element with the attribute: once its messages are there, any of the first would be.
    const { expected } = await payFlow({ 'order-id': 'order-2', 'native-bridge': true });
    await received.all.until(4);
    expect(received.ReactNativeWebView).to.deep.equal(expected);
    expect(received.all.items.filter((m) => m.bill.billId === silent[0]!.bill.billId)).to.deep.equal([]);
    for (const name of channels.slice(1)) expect(received[name], name).to.deep.equal([]);
    expect(toParent.callCount, 'nothing to a parent either').to.equal(0);
  });

  for (const name of channels) {
    it(`posts created, status and final, in order, to ${name} alone`, async () => {
      const received = install([name]);
      const { expected } = await payFlow({ 'native-bridge': true });
      await received.all.until(4);
      expect(received[name]).to.deep.equal(expected);
      for (const message of received[name]) expect(message.bill).to.not.have.property('token');
      // And the page's own events are still fired, in the same order.
      expect(h.events.map((e) => e.type)).to.deep.equal(['bill-created', 'bill-status', 'bill-status', 'bill-final']);
    });
  }

  it('uses only the first channel there is: React Native, then WKWebView, then Android, then Flutter', async () => {
    const order: Channel[] = [...channels];
    while (order.length > 0) {
      const received = install(order);
      const { el } = await payFlow({ 'native-bridge': true });
      await received.all.until(4);
      const [first, ...others] = order;
      expect(received[first!].map((m) => m.event), `${first} gets them`).to.deep.equal(['created', 'status', 'status', 'final']);
      for (const other of others) expect(received[other], `${other} gets nothing next to ${first}`).to.deep.equal([]);
      el.remove();
      uninstall();
      sessionStorage.clear();
      order.shift();
    }
  });

  it('gives React Native the message and Android nothing when both exist', async () => {
    const received = install(['BillCheckoutAndroid', 'ReactNativeWebView']);
    const { expected } = await payFlow({ 'native-bridge': true });
    await received.all.until(4);
    expect(received.ReactNativeWebView).to.deep.equal(expected);
    expect(received.BillCheckoutAndroid).to.deep.equal([]);
  });

  it('does not fail when native-bridge is set but no channel exists', async () => {
    const { el } = await payFlow({ 'native-bridge': true });
    // The element's load of the bridge, and its posts after it.
    await import('../../widget/native-bridge.js');
    await h.settle();
    expect(h.events.filter((e) => e.type === 'bill-error')).to.deep.equal([]);
    expect(text(el, 'heading')).to.equal('Payment received');
  });
});

describe('bill-checkout in a frame, with parent-origin', () => {
  let h: Harness;
  let frame: HTMLIFrameElement;
  beforeEach(async () => {
    h = harness();
    frame = document.createElement('iframe');
    // The frame loads the element's own module, as a page that embeds the checkout would.
    const define = new URL('../../widget/define.ts', import.meta.url).href;
    frame.srcdoc = `<!doctype html><html lang="en"><body><script type="module" src="${define}"></script></body></html>`;
    const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    h.container.append(frame);
    await loaded;
    await frame.contentWindow!.customElements.whenDefined('bill-checkout');
  });
  afterEach(() => {
    frame.remove();
    h.restore();
  });

  /** An element of the frame's own realm, on the fake BFF, in the frame's page. */
  function mountInFrame(attributes: Record<string, string | boolean>): BillCheckout {
    const el = frame.contentDocument!.createElement('bill-checkout') as BillCheckout;
    el.fetchImpl = h.bff.fetch;
    el.eventSourceImpl = FakeEventSource as unknown as typeof EventSource;
    for (const [name, value] of Object.entries(attributes)) {
      if (value === true) el.setAttribute(name, '');
      else if (value !== false) el.setAttribute(name, value);
    }
    frame.contentDocument!.body.append(el);
    return el;
  }

  /** Stubs the parent's postMessage, collecting [message, targetOrigin]. */
  function stubParent(): Inbox<[unknown, unknown]> {
    const inbox = new Inbox<[unknown, unknown]>();
    sinon.stub(window, 'postMessage').callsFake((message: unknown, origin: unknown) => inbox.push([message, origin]));
    return inbox;
  }

  /** Resolves at the frame's next `type` event (the element's events bubble to its document). */
  function next(type: string): Promise<void> {
    return new Promise((resolve) => frame.contentDocument!.addEventListener(type, () => resolve(), { once: true }));
  }

  it('posts each message to the parent with the parent-origin as target origin, never "*"', async () => {
    const toParent = stubParent();
    const el = mountInFrame({ 'order-id': 'order-1', 'parent-origin': 'https://shop.example' });
    await toParent.until(2);
    const bill = h.bff.bills.get('B1')!.view;
    const paid = final(bill, 'paid');
    FakeEventSource.last.emit(paid);
    await toParent.until(4);
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part~="heading"]')!.textContent).to.equal('Payment received');

    expect(toParent.items.map(([message]) => message)).to.deep.equal(messages(bill, paid));
    expect(toParent.items.map(([, origin]) => origin)).to.deep.equal(Array(4).fill('https://shop.example'));
    for (const [message] of toParent.items) expect((message as Message).bill).to.not.have.property('token');
  });

  it('reaches the parent page for real when parent-origin is its origin', async () => {
    const got: MessageEvent[] = [];
    const four = new Promise<void>((resolve) => {
      const listen = (event: MessageEvent) => {
        if (event.source !== frame.contentWindow) return;
        got.push(event);
        if (got.length === 4) {
          removeEventListener('message', listen);
          resolve();
        }
      };
      addEventListener('message', listen);
    });
    const shown = next('bill-status');
    mountInFrame({ 'order-id': 'order-1', 'parent-origin': `${location.origin}/ignored/path` });
    await shown;
    const bill = h.bff.bills.get('B1')!.view;
    const paid = final(bill, 'paid');
    FakeEventSource.last.emit(paid);
    await four;
    expect(got.map((e) => e.data as unknown)).to.deep.equal(messages(bill, paid));
    expect(got.every((e) => e.origin === location.origin)).to.equal(true);
  });

  for (const origin of ['*', '/', 'shop.example']) {
    it(`posts nothing to the parent with parent-origin="${origin}"`, async () => {
      const toParent = stubParent();
      // With a native channel in the frame: once it has the messages, the parent would have them too.
      const native = install(['ReactNativeWebView'], frame.contentWindow as unknown as Channels);
      const shown = next('bill-status');
      const el = mountInFrame({ 'order-id': 'order-1', 'parent-origin': origin, 'native-bridge': true });
      await shown;
      FakeEventSource.last.emit(final(h.bff.bills.get('B1')!.view, 'paid'));
      await native.all.until(4);
      await el.updateComplete;
      expect(el.shadowRoot!.querySelector('[part~="heading"]')!.textContent).to.equal('Payment received');
      expect(native.ReactNativeWebView.map((m) => m.event)).to.deep.equal(['created', 'status', 'status', 'final']);
      expect(toParent.items).to.deep.equal([]);
    });
  }
});
