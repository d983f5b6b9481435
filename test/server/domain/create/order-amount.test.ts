// The amount a create charges (server/domain/create/order-amount.ts): the merchant's answer for an
// order, checked and kept as the merchant wrote it, or the browser's within the allowed bounds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CheckoutError } from '../../../../server/domain/errors.js';
import { orderSourceName, positiveAmount, resolveAmount, type AmountSources } from '../../../../server/domain/create/order-amount.js';
import type { CreateRequest } from '../../../../server/domain/create/request.js';
import type { ResolveOrder } from '../../../../server/domain/orders/order-lookup.js';
import { logLines } from '../../support/unit.js';

const request = (over: Partial<CreateRequest> = {}): CreateRequest => ({
  orderId: 'order-7', orderTicket: null, amount: null, idempotencyKey: null, request: new Request('http://bff.test/api/bills'), ...over,
});

function sources(answer: unknown, over: Partial<AmountSources> = {}) {
  const { log, lines } = logLines();
  const resolveOrder: ResolveOrder = async () => answer as never;
  const all: AmountSources = { config: { clientAmount: null, currency: null }, resolveOrder, orderSource: orderSourceName(true), log, ...over };
  return { sources: all, lines };
}

const refused = (code: string, kind?: string) => (error: unknown) => {
  assert.ok(error instanceof CheckoutError, `a CheckoutError, got ${String(error)}`);
  assert.equal(error.code, code);
  if (kind) assert.equal(error.kind, kind);
  return true;
};

test('an order the merchant does not know (null) is order_not_found', async () => {
  const { sources: s, lines } = sources(null);
  await assert.rejects(resolveAmount(request(), s), refused('order_not_found', 'not_found'));
  assert.deepEqual(lines, [], 'no order is not the merchant\'s mistake: nothing logged');
});

for (const [what, answer] of [['undefined', undefined], ['{}', {}], ['an amount of the wrong type', { amount: true }]] as const) {
  test(`a hook answering ${what} is order_lookup_invalid, and the log names the hook and says what to return`, async () => {
    const { sources: s, lines } = sources(answer);
    await assert.rejects(resolveAmount(request(), s), refused('order_lookup_invalid', 'upstream'));
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 'error');
    assert.match(lines[0]!.msg, /^the resolveOrder hook answered /);
    assert.match(lines[0]!.msg, answer === undefined ? /answered undefined for order "order-7"/ : /an object that is no order for order "order-7"/);
    assert.match(lines[0]!.msg, /return \{amount: decimal text such as "12.50", currency\?\}/);
    assert.equal(lines[0]!.orderId, 'order-7');
  });
}

test('ORDER_LOOKUP_URL is named instead of the hook when it answers for orders', async () => {
  const { sources: s, lines } = sources({ amount: 'twelve' }, { orderSource: orderSourceName(false) });
  await assert.rejects(resolveAmount(request(), s), refused('order_lookup_invalid'));
  assert.match(lines[0]!.msg, /^ORDER_LOOKUP_URL answered an amount that is not a positive decimal for order "order-7"/);
});

for (const amount of ['0', '-5', '1e3', '12.5.0', 0, -1, Number.NaN, 5e-324]) {
  test(`an order amount of ${JSON.stringify(amount) ?? String(amount)} is no positive decimal: order_lookup_invalid`, async () => {
    const { sources: s, lines } = sources({ amount });
    await assert.rejects(resolveAmount(request(), s), refused('order_lookup_invalid'));
    assert.equal(lines.length, 1);
  });
}

test('"12.50" is kept as the merchant wrote it, trailing zero and all', async () => {
  const { sources: s } = sources({ amount: '12.50' });
  assert.deepEqual(await resolveAmount(request(), s), { amount: '12.50', currency: null, order: { amount: '12.50', currency: null } });
});

test('a number amount becomes its exact decimal text, never an exponent', async () => {
  for (const [amount, text] of [[12.5, '12.5'], [0.1, '0.1'], [1e21, '1000000000000000000000'], [1.5e-7, '0.00000015'], [123456789.12, '123456789.12']] as const) {
    const { sources: s } = sources({ amount });
    assert.equal((await resolveAmount(request(), s)).amount, text, String(amount));
  }
});

test("the order's currency is the bill's; without one, BILL_CURRENCY's", async () => {
  const withOwn = sources({ amount: '5', currency: 'EUR' }, { config: { clientAmount: null, currency: 'USD' } });
  assert.deepEqual(await resolveAmount(request(), withOwn.sources), { amount: '5', currency: 'EUR', order: { amount: '5', currency: 'EUR' } });
  const without = sources({ amount: '5' }, { config: { clientAmount: null, currency: 'USD' } });
  assert.deepEqual(await resolveAmount(request(), without.sources), { amount: '5', currency: 'USD', order: { amount: '5', currency: null } });
});

test('a currency that is no currency code is order_lookup_invalid, the log saying what a code is', async () => {
  const { sources: s, lines } = sources({ amount: '5', currency: 'US Dollar' });
  await assert.rejects(resolveAmount(request(), s), refused('order_lookup_invalid'));
  assert.match(lines[0]!.msg, /a currency code of 1 to 16 letters or digits/);
});

test("a CheckoutError the hook throws reaches the caller as it is; any other failure is order_lookup_failed, logged", async () => {
  const mine = new CheckoutError('forbidden', 'not_your_order', 'Not yours.');
  const { sources: s1 } = sources(null, { resolveOrder: async () => { throw mine; } });
  await assert.rejects(resolveAmount(request(), s1), (error) => error === mine);
  const { sources: s2, lines } = sources(null, { resolveOrder: async () => { throw new Error('db down'); } });
  await assert.rejects(resolveAmount(request(), s2), refused('order_lookup_failed', 'upstream'));
  assert.equal(lines[0]!.msg, 'resolveOrder failed');
  assert.deepEqual(lines[0]!.error, { name: 'Error', message: 'db down' });
});

test('the hook is given the order id and the browser\'s request', async () => {
  const seen: unknown[] = [];
  const req = request();
  const { sources: s } = sources(null, { resolveOrder: async (orderId, context) => (seen.push(orderId, context.request), { amount: '1' }) });
  await resolveAmount(req, s);
  assert.deepEqual(seen, ['order-7', req.request]);
});

test('browser amounts, where allowed: required, positive decimal, within the bounds', async () => {
  const config = { clientAmount: { min: '1', max: '100' }, currency: 'USD' };
  const s = sources(null, { resolveOrder: null, config }).sources;
  const browser = (amount: CreateRequest['amount']) => resolveAmount(request({ orderId: null, amount }), s);
  await assert.rejects(browser(null), refused('amount_required', 'invalid'));
  await assert.rejects(browser('abc'), refused('invalid_amount', 'invalid'));
  await assert.rejects(browser('0.5'), (error) => refused('amount_out_of_range')(error) && /between 1 and 100/.test((error as Error).message));
  await assert.rejects(browser(100.01), refused('amount_out_of_range'));
  assert.deepEqual(await browser('100.00'), { amount: '100.00', currency: 'USD', order: null });
  assert.deepEqual(await browser(7.25), { amount: '7.25', currency: 'USD', order: null });
});

test('without browser amounts: orderId is required when orders are looked up, else no amount is taken', async () => {
  const withOrders = sources(null).sources;
  await assert.rejects(resolveAmount(request({ orderId: null, amount: '5' }), withOrders), refused('order_id_required', 'invalid'));
  const noneAtAll = sources(null, { resolveOrder: null }).sources;
  await assert.rejects(resolveAmount(request({ orderId: 'order-7' }), noneAtAll), refused('amount_not_allowed', 'invalid'));
});

test('positiveAmount: plain digits only, trimmed, kept as written; JSON numbers in their shortest text', () => {
  assert.equal(positiveAmount(' 12.50 '), '12.50');
  assert.equal(positiveAmount('012.5'), '12.5', 'a leading zero is dropped');
  assert.equal(positiveAmount('0.00'), null);
  assert.equal(positiveAmount('1e3'), null, 'no exponent in text');
  assert.equal(positiveAmount('1'.repeat(19)), null, 'at most 18 integer digits');
  assert.equal(positiveAmount(Infinity), null);
  assert.equal(positiveAmount(0.30000000000000004), '0.30000000000000004');
});
