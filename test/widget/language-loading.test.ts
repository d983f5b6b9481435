import { expect } from '@open-wc/testing';
import { loadStrings } from '../../widget/strings.js';
import ms from '../../widget/locales/ms.js';
import { announced, harness, shadow, text, type Harness } from './support.js';

/** The language modules the page requested since the last clear. */
function localeRequests(): string[] {
  return performance.getEntriesByType('resource')
    .map((entry) => new URL(entry.name).pathname)
    .filter((path) => path.includes('/widget/locales/'));
}

// Runs first in its own page: no language module was loaded before it.
describe('bill-checkout language modules', () => {
  let h: Harness;
  before(() => {
    performance.setResourceTimingBufferSize(10_000);
  });
  beforeEach(() => {
    h = harness();
    performance.clearResourceTimings();
  });
  afterEach(() => h.restore());

  it('needs no language module for English', async () => {
    for (const locale of ['en', 'en-GB', 'fr', 'zh-TW', 'zh-Hant-HK']) {
      const el = await h.mount({ 'order-id': `order-${locale}`, locale });
      expect(text(el, 'status'), locale).to.equal('Waiting for payment…');
    }
    expect(localeRequests()).to.deep.equal([]);
  });

  it('loads a language module once, when an element needs it', async () => {
    const first = await h.mount({ 'order-id': 'order-1', locale: 'th-TH' });
    await loadStrings('th');
    await h.settle();
    expect(text(first, 'status')).to.equal('กำลังรอการชำระเงิน…');
    expect(localeRequests()).to.have.length(1);
    expect(localeRequests()[0]).to.match(/\/widget\/locales\/th\.(js|ts)$/);

    const second = await h.mount({ 'order-id': 'order-2', locale: 'th' });
    expect(text(second, 'status'), 'at once, from the loaded module').to.equal('กำลังรอการชำระเงิน…');
    expect(localeRequests()).to.have.length(1);
  });

  it('speaks the language in the live region, never English, when the bill comes before the module', async () => {
    const el = await h.mount({ 'order-id': 'order-1', locale: 'ms-MY' });
    const heard = [announced(el)];
    const region = shadow(el).querySelector('[role="status"]')!;
    const observer = new MutationObserver(() => heard.push(announced(el)));
    observer.observe(region, { subtree: true, childList: true, characterData: true });
    await loadStrings('ms');
    await h.settle();
    observer.disconnect();
    expect(text(el, 'status')).to.equal(ms.waiting);
    expect(announced(el)).to.equal(ms.waiting);
    expect(heard.filter((said) => said !== ''), 'what the live region said').to.satisfy(
      (said: string[]) => said.every((s) => s === ms.waiting),
    );
  });

  it('shows English when the language module cannot load', async () => {
    // The test server answers 404 for the Vietnamese module while this cookie is set (web-test-runner.config.mjs).
    const missing = new URL('../../widget/locales/vi.', import.meta.url).pathname;
    document.cookie = `unavailable=${encodeURIComponent(missing)}; path=/`;
    try {
      const el = await h.mount({ 'order-id': 'order-1', locale: 'vi' });
      // The element's own load of the module, under way: settles (fails) without the clock.
      await loadStrings('vi');
      await h.settle();
      expect(localeRequests().some((path) => path.startsWith(missing)), 'the import was tried').to.equal(true);
      expect(text(el, 'status'), 'English rather than nothing').to.equal('Waiting for payment…');
      expect(text(el, 'amount')).to.not.equal('');
    } finally {
      document.cookie = 'unavailable=; path=/; max-age=0';
    }
  });
});
