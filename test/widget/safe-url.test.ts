import { expect } from '@open-wc/testing';
import { parseSchemes, safeUrl } from '../../widget/safe-url.js';
import { FakeEventSource, harness, has, part, shadow, text, type Harness } from './support.js';

describe('safeUrl', () => {
  it('allows https, and http only on loopback hosts', () => {
    expect(safeUrl('https://pay.example/b/1')).to.equal('https://pay.example/b/1');
    expect(safeUrl('http://localhost:8787/pay/1')).to.equal('http://localhost:8787/pay/1');
    expect(safeUrl('http://127.0.0.1/pay')).to.equal('http://127.0.0.1/pay');
    expect(safeUrl('http://[::1]:8080/pay')).to.equal('http://[::1]:8080/pay');
    expect(safeUrl('http://pay.example/b/1')).to.equal(null);
    expect(safeUrl('http://localhost.evil.example/')).to.equal(null);
  });

  it('refuses script, data and relative URLs', () => {
    for (const url of ['javascript:alert(1)', ' JavaScript:alert(1)', 'data:text/html,<script>1</script>', '/pay/1', 'file:///etc/passwd', '']) {
      expect(safeUrl(url, ['myapp:']), url).to.equal(null);
    }
  });

  it('allows the merchant\'s extra schemes, but never script or data', () => {
    const schemes = parseSchemes(' MyApp: , other-app, javascript:, data, 1bad ');
    expect(schemes).to.deep.equal(['myapp:', 'other-app:']);
    expect(safeUrl('myapp://pay?bill=1', schemes)).to.equal('myapp://pay?bill=1');
    expect(safeUrl('myapp://pay?bill=1')).to.equal(null);
  });
});

describe('bill-checkout with an unsafe bill URL', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.restore());

  for (const billUrl of ['javascript:alert(document.domain)', 'data:text/html,<h1>pay</h1>', 'http://pay.example/bill/B1']) {
    for (const mode of ['qr', 'button']) {
      it(`encodes and opens nothing for ${billUrl.slice(0, 16)}… in ${mode} mode`, async () => {
        h.bff.override = (call) => {
          if (call.method !== 'POST') return undefined;
          return { status: 201, body: { ...view(billUrl), token: 'T1' } };
        };
        const el = await h.mount({ 'order-id': 'o', mode });
        expect(has(el, 'qr')).to.equal(false);
        expect(has(el, 'pay-button')).to.equal(false);
        expect(has(el, 'copy-button')).to.equal(false);
        expect(has(el, 'toggle-button')).to.equal(false);
        expect(shadow(el).querySelector('a[href], svg[role="img"]') === null).to.equal(true);
        expect(text(el, 'error')).to.equal('This payment link is not safe.');
        const errors = h.events.filter((e) => e.type === 'bill-error') as CustomEvent<{ code: string }>[];
        expect(errors.map((e) => e.detail.code)).to.deep.equal(['unsafe_url']);
        expect(text(el, 'status'), 'still follows the status').to.equal('Waiting for payment…');
      });
    }
  }

  it('opens an allowed app scheme with the pay button', async () => {
    h.bff.override = (call) => (call.method === 'POST' ? { status: 201, body: { ...view('myapp://pay?b=1'), token: 'T1' } } : undefined);
    const el = await h.mount({ 'order-id': 'o', mode: 'button', 'allowed-schemes': 'myapp:' });
    expect((part(el, 'pay-button') as HTMLAnchorElement).getAttribute('href')).to.equal('myapp://pay?b=1');
    expect(FakeEventSource.instances).to.have.length(1);
  });
});

function view(billUrl: string) {
  return {
    billId: 'B1', merchantReference: 'o', billUrl, billAmount: '10', currency: 'USD', requireGCAmount: null,
    expiredOn: Date.now() + 600_000, status: 1, statusName: 'Pending Payment', isFinal: false, outcome: 'pending', dateTime: null,
  };
}
