import { expect } from '@open-wc/testing';
import { emulateMedia } from '@web/test-runner-commands';
import sinon from 'sinon';
import { noViolations } from './axe-check.js';
import { engine, press } from './engine.js';
import { FakeEventSource, final, harness, has, part, shadow, type Harness } from './support.js';

// The card has no surface of its own: it is drawn on the host's, in the host's colours. The host
// here is the page's body, light, dark from the system (prefers-color-scheme, with `color-scheme:
// light dark`), or dark pinned by the page (`color-scheme: dark`). Only CDP can emulate the system's
// scheme: WebKitGTK's WebDriver and Firefox's WebDriver BiDi have no command for it, so there the
// system's dark is not tried.
const schemes = [
  { name: 'light', system: 'light', pinned: 'light' },
  { name: 'dark, from the system', system: 'dark', pinned: 'light dark' },
  { name: 'dark, pinned by the page', system: 'light', pinned: 'dark' },
] as const;

for (const scheme of schemes) {
  const dark = scheme.system === 'dark' || scheme.pinned === 'dark';
  describe(`bill-checkout accessibility (${scheme.name})`, () => {
    let h: Harness;
    let emulates = false;
    const pin = document.createElement('style');
    pin.textContent = `body { color-scheme: ${scheme.pinned}; background: Canvas; color: CanvasText }`;
    before(async function () {
      emulates = await engine() === 'chromium';
      if (scheme.system === 'dark' && !emulates) this.skip();
      if (emulates) await emulateMedia({ colorScheme: scheme.system });
      document.head.append(pin);
    });
    after(async () => {
      pin.remove();
      if (emulates) await emulateMedia({ colorScheme: 'light' });
    });
    beforeEach(() => {
      h = harness();
    });
    afterEach(() => h.restore());

    it(`follows the host's surface: ${dark ? 'light text on its dark' : 'dark text on its light'}, no background of its own`, async () => {
      const el = await h.mount({ 'order-id': 'o' });
      const style = getComputedStyle(part(el, 'base')!);
      expect(style.backgroundColor, 'transparent').to.equal('rgba(0, 0, 0, 0)');
      const [r, g, b] = style.color.match(/\d+/g)!.map(Number);
      expect(r! + g! + b! > 3 * 128, style.color).to.equal(dark);
    });

    it('has no axe violations while loading, retrying, pending and checking', async function () {
      // Six axe runs: each may take the suite's whole timeout in WebKitGTK beside two other engines.
      this.timeout(6 * this.timeout());
      h.bff.override = (call) => (call.method === 'POST' ? 'hang' : undefined);
      const el = await h.mount({ 'order-id': 'o', mode: 'qr', cancellable: true });
      await noViolations(h, el, 'loading');
      el.remove();
      h.bff.override = (call) => (call.method === 'POST' ? 'network' : undefined);
      h.container.append(el);
      await h.settle();
      await noViolations(h, el, 'unreachable');
      h.bff.override = undefined;
      await h.tick(2_000);
      expect(has(el, 'qr')).to.equal(true);
      await noViolations(h, el, 'pending, QR');
      part(el, 'toggle-button')!.click();
      await h.settle();
      await noViolations(h, el, 'pending, pay button');
      h.bff.override = () => 'network';
      FakeEventSource.last.fail();
      await h.settle();
      await noViolations(h, el, 'reconnecting');
      await h.tick(15 * 60_000);
      await noViolations(h, el, 'checking');
    });

    for (const outcome of ['paid', 'failed', 'cancelled', 'expired'] as const) {
      it(`has no axe violations when ${outcome}`, async () => {
        const el = await h.mount({ 'order-id': 'o' });
        FakeEventSource.last.emit(final(h.bff.bills.get('B1')!.view, outcome));
        await h.settle();
        await noViolations(h, el, outcome);
      });
    }

    it('has no axe violations for refused, missing and unsafe bills', async () => {
      h.bff.override = () => ({ status: 400, body: { error: { code: 'bad_request', message: 'no' } } });
      const refused = await h.mount({ 'order-id': 'o' });
      await noViolations(h, refused, 'create refused');
      const missing = await h.mount({ 'bill-id': 'x', token: 'y' });
      await noViolations(h, missing, 'not found');
      h.bff.override = (call) => (call.method === 'POST'
        ? { status: 201, body: { ...h.bff.bills.get('B1')?.view, ...unsafe() } }
        : undefined);
      const bad = await h.mount({ 'order-id': 'u' });
      expect(has(bad, 'error')).to.equal(true);
      await noViolations(h, bad, 'unsafe URL');
    });

    it('has no axe violations when the order ticket expired', async () => {
      h.bff.override = () => ({ status: 403, body: { error: { code: 'order_ticket_invalid', message: 'expired' } } });
      const el = await h.mount({ 'order-id': 'o', 'order-ticket': '1700000000000.old' });
      expect(has(el, 'reload-button')).to.equal(true);
      await noViolations(h, el, 'ticket expired');
    });
  });
}

function unsafe() {
  return {
    billId: 'B7', merchantReference: 'u', billUrl: 'javascript:alert(1)', billAmount: '1', currency: 'USD',
    requireGCAmount: null, expiredOn: Date.now() + 60_000, status: 1, statusName: 'Pending Payment', isFinal: false,
    outcome: 'pending', dateTime: null, token: 'T7',
  };
}

describe('bill-checkout keyboard', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.restore());

  it('is operable with the keyboard alone: Tab through the controls, Enter to use them', async () => {
    const copied = sinon.stub(navigator.clipboard, 'writeText').resolves();
    const el = await h.mount({ 'order-id': 'o', mode: 'qr', cancellable: true });
    const focused = () => shadow(el).activeElement?.getAttribute('part');

    await press('Tab');
    expect(focused()).to.equal('copy-button');
    await press('Enter');
    await h.settle();
    expect(copied.calledOnceWith('https://pay.example/bill/B1')).to.equal(true);
    expect(part(el, 'copy-button')!.textContent!.trim()).to.equal('Link copied');

    await press('Tab');
    expect(focused()).to.equal('toggle-button');
    await press('Enter');
    await h.settle();
    expect(has(el, 'pay-button')).to.equal(true);

    // The pay button, then the copy button (in this view too), then the toggle.
    await press('Shift+Tab');
    await press('Shift+Tab');
    expect(focused()).to.equal('pay-button');
    await press('Tab');
    expect(focused()).to.equal('copy-button');
    await press('Tab');
    await press('Tab');
    expect(focused()).to.equal('cancel-button');
    await press('Space');
    await h.settle();
    // Asked first, focus on No; Shift+Tab to Yes.
    expect(shadow(el).activeElement?.textContent).to.equal('No');
    await press('Shift+Tab');
    expect(shadow(el).activeElement?.textContent).to.equal('Yes');
    await press('Enter');
    await h.settle();
    expect(part(el, 'heading')!.textContent).to.equal('Payment cancelled');
    expect(focused(), 'focus lands on the outcome').to.equal('heading');
  });
});
