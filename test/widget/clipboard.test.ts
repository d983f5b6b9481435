import { expect } from '@open-wc/testing';
import { press } from './engine.js';
import { harness, part, type Harness } from './support.js';

// The real clipboard of each engine, no stub: writing needs the user's own gesture everywhere.
describe('bill-checkout copy link', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.restore());

  // First: a key press gives the page a user activation that lasts seconds after it.
  it('says why when the engine refuses the copy (no gesture): bill-error, the button unchanged', async () => {
    const el = await h.mount({ 'order-id': 'o', mode: 'qr' });
    const failed = new Promise<Error>((resolve) => el.addEventListener('bill-error', (e) => resolve((e as CustomEvent<Error>).detail), { once: true }));
    // A script's click is no user activation: Chromium, WebKit and Firefox all reject writeText.
    part(el, 'copy-button')!.click();
    expect((await failed).name).to.equal('NotAllowedError');
    await h.settle();
    expect(part(el, 'copy-button')!.textContent!.trim()).to.equal('Copy link');
  });

  it('copies the pay link on a key press: pasted back, it is the bill URL', async () => {
    const el = await h.mount({ 'order-id': 'o', mode: 'qr' });
    part(el, 'copy-button')!.focus();
    await press('Enter');
    // The clipboard answers in its own time, outside the fake clock.
    await new Promise<void>((resolve) => {
      const copied = () => part(el, 'copy-button')!.textContent!.trim() === 'Link copied';
      if (copied()) return resolve();
      new MutationObserver((_, observer) => {
        if (copied()) resolve(observer.disconnect());
      }).observe(el.shadowRoot!, { subtree: true, childList: true, characterData: true });
    });
    const area = document.createElement('textarea');
    h.container.append(area);
    area.focus();
    await press('Control+v');
    expect(area.value).to.equal('https://pay.example/bill/B1');
  });
});
