// The BFF formats a bill's amounts in the browser's language (`display`, issue 17): a phone's first
// Intl.NumberFormat costs its main thread 50–120 ms, and the element shows these instead.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatAmount } from '../../../contract/decimal.js';
import type { BillView, CreatedBillView } from '../../../contract/bill-view.js';
import { startHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';

const read = async (h: Harness, bill: CreatedBillView, acceptLanguage?: string) => {
  const res = await h.request(`/api/bills/${bill.billId}?token=${bill.token}`, acceptLanguage === undefined ? {} : { headers: { 'Accept-Language': acceptLanguage } });
  assert.equal(res.status, 200);
  return (await res.json()) as BillView;
};

test('a create and a read answer the amounts as text in the first language the browser names', async (t) => {
  const h = await startHarness(t, { env: { BILL_CURRENCY: 'USD', CLIENT_AMOUNT_MAX: '100000' } });
  const bill = await h.create({ amount: '12500.50' }, { 'Accept-Language': 'id-ID,id;q=0.9,en;q=0.8' });
  assert.ok(bill.requireGCAmount, 'the sandbox asks for gold');
  const expected = {
    locale: 'id-ID',
    billAmount: formatAmount('12500.50', 'id-ID', 'USD'),
    requireGCAmount: formatAmount(bill.requireGCAmount, 'id-ID'),
  };
  assert.deepEqual(bill.display, expected);
  // Indonesian groups with dots and keeps the cents: not the English 12,500.50.
  assert.match(bill.display!.billAmount, /^US\$\s?12\.500,50$/);
  assert.deepEqual((await read(h, bill, 'id-ID,id;q=0.9,en;q=0.8')).display, expected);
  // By q, then order: the most wanted one, canonicalized as the element's own locale is.
  assert.equal((await read(h, bill, 'en;q=0.5, TH-th')).display?.locale, 'th-TH');
  await h.sandbox.idle();
});

test('reads from the cache answer each browser in its own language, the same bill twice in a row', async (t) => {
  const h = await startHarness(t, { env: { BILL_CURRENCY: 'USD', CLIENT_AMOUNT_MAX: '100000' } });
  const bill = await h.create({ amount: '1234.5' });
  const english = await read(h, bill, 'en-US');
  assert.equal(english.display?.billAmount, '$1,234.50');
  assert.equal((await read(h, bill, 'de-DE')).display?.billAmount, formatAmount('1234.5', 'de-DE', 'USD'));
  assert.match((await read(h, bill, 'de-DE')).display!.billAmount, /^1\.234,50\s\$$/);
  assert.deepEqual((await read(h, bill, 'en-US')).display, english.display);
  await h.sandbox.idle();
});

test('a request naming no language, any language, or a tag that is not one answers no display, and no error', async (t) => {
  const h = await startHarness(t);
  const bill = await h.create();
  for (const header of ['', '*', 'en-US-!!', 'x', ';q=1', 'a'.repeat(300)]) {
    const view = await read(h, bill, header);
    assert.equal(view.display, undefined, `Accept-Language: ${header}`);
    assert.equal(view.billAmount, bill.billAmount);
  }
  await h.sandbox.idle();
});
