import { expect } from '@open-wc/testing';
import type { BillCheckout } from '../../widget/bill-checkout.js';
import id from '../../widget/locales/id.js';
import ms from '../../widget/locales/ms.js';
import th from '../../widget/locales/th.js';
import vi from '../../widget/locales/vi.js';
import zhCN from '../../widget/locales/zh-CN.js';
import { en, loadStrings, type Strings } from '../../widget/strings.js';
import { noViolations } from './axe-check.js';
import { FakeEventSource, announced, final, harness, part, shadow, text, type Harness } from './support.js';

/** Each locale with the strings it must show. */
const locales: [string, Strings][] = [
  ['id', id], ['ms', ms], ['th', th], ['vi', vi], ['zh-CN', zhCN],
  ['zh-Hans-SG', zhCN], ['in', id], ['id-ID', id], ['zh-TW', en],
];

type Key = keyof Strings;
type State = 'pending QR' | 'pending button' | 'confirming' | 'paid' | 'failed' | 'cancelled' | 'expired' | 'createFailed' | 'ticketExpired' | 'notFound';
const states: State[] = ['pending QR', 'pending button', 'confirming', 'paid', 'failed', 'cancelled', 'expired', 'createFailed', 'ticketExpired', 'notFound'];

/** The label above the amount. */
function amountLabel(el: BillCheckout): string {
  return (part(el, 'amount')!.previousElementSibling?.textContent ?? '').trim();
}

/** Mounts an element showing `state`, in `locale`, its language loaded. */
async function show(h: Harness, state: State, locale: string): Promise<BillCheckout> {
  if (state === 'createFailed') {
    h.bff.override = () => ({ status: 422, body: { error: { code: 'amount_out_of_range', message: 'Too much' } } });
  }
  if (state === 'ticketExpired') {
    h.bff.override = () => ({ status: 403, body: { error: { code: 'order_ticket_invalid', message: 'Expired' } } });
  }
  const attributes: Record<string, string | boolean> = state === 'notFound'
    ? { 'bill-id': 'nope', token: 'x', locale }
    : { 'order-id': 'order-1', locale, cancellable: true, mode: state === 'pending button' ? 'button' : 'qr' };
  const el = await h.mount(attributes);
  await loadStrings(locale);
  await h.settle();
  if (state === 'paid' || state === 'failed' || state === 'cancelled' || state === 'expired') {
    FakeEventSource.last.emit(final(h.bff.bills.get('B1')!.view, state));
    await h.settle();
  }
  if (state === 'confirming') {
    FakeEventSource.last.emit({ ...h.bff.bills.get('B1')!.view, status: 6, statusName: 'Processing', processing: true, dateTime: Date.now() });
    await h.settle();
  }
  return el;
}

describe('bill-checkout languages', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.restore());

  for (const [locale, s] of locales) {
    for (const state of states) {
      it(`speaks ${locale} when ${state}, without axe violations`, async () => {
        const el = await show(h, state, locale);
        const shown: [Key, string][] = [];
        const expectText = (key: Key, actual: string) => shown.push([key, actual]);

        if (state === 'pending QR' || state === 'pending button') {
          expectText('amount', amountLabel(el));
          expectText('waiting', text(el, 'status'));
          expectText('waiting', announced(el));
          expectText('copy', text(el, 'copy-button'));
          expectText('cancel', text(el, 'cancel-button'));
          expectText('gold', text(el, 'gold-amount').split(':')[0]!);
          expectText('reference', text(el, 'reference').split(':')[0]!);
          expectText('timeLeft', text(el, 'countdown').split(':')[0]!);
          if (state === 'pending QR') {
            expectText('qrLabel', part(el, 'qr')!.getAttribute('aria-label')!);
            expectText('scan', (part(el, 'qr')!.nextElementSibling?.textContent ?? '').trim());
            expectText('showButton', text(el, 'toggle-button'));
          } else {
            expectText('pay', text(el, 'pay-button'));
            expectText('showQr', text(el, 'toggle-button'));
          }
        } else if (state === 'confirming') {
          expectText('confirming', text(el, 'status'));
          expectText('confirming', announced(el));
          expectText('amountFinal', amountLabel(el));
        } else if (state === 'createFailed' || state === 'ticketExpired' || state === 'notFound') {
          expectText(state, text(el, 'status'));
          expectText(state, announced(el));
          if (state === 'createFailed') expectText('startAgain', text(el, 'retry-button'));
          if (state === 'ticketExpired') expectText('reload', text(el, 'reload-button'));
        } else {
          expectText(state, text(el, 'heading'));
          expectText(state, announced(el));
          expectText(state === 'paid' ? 'amountPaid' : 'amountFinal', amountLabel(el));
          if (state !== 'paid') expectText('startAgain', text(el, 'start-again-button'));
        }

        for (const [key, actual] of shown) {
          expect(actual, `${key} in ${locale}`).to.equal(s[key]);
          if (s !== en) expect(s[key], `${key} is translated in ${locale}`).to.not.equal(en[key]);
        }
        await noViolations(h, el, `${state}, ${locale}`);

        if (state === 'pending button') {
          // The question before cancelling, too.
          part(el, 'cancel-button')!.click();
          await h.settle();
          const [yes, no] = [...part(el, 'cancel-confirm')!.querySelectorAll('button')];
          const ask = shadow(el).getElementById(part(el, 'cancel-confirm')!.getAttribute('aria-labelledby')!)!;
          const asked: [Key, string][] = [['cancelAsk', ask.textContent!], ['yes', yes!.textContent!], ['no', no!.textContent!]];
          for (const [key, actual] of asked) {
            expect(actual, `${key} in ${locale}`).to.equal(s[key]);
            if (s !== en) expect(s[key], `${key} is translated in ${locale}`).to.not.equal(en[key]);
          }
          await noViolations(h, el, `asking to cancel, ${locale}`);
        }
      });
    }
  }
});
