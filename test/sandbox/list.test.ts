import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { SandboxOptions } from '../../sandbox/sandbox.js';
import { clock, newBill, startSandbox, type Rec } from './support/harness.js';

const AMOUNTS = ['10.5', '2', '300.25', '10.5', '45'];
const REFS = ['Order-100', 'order-200', 'ORDER-1%0', 'shop_x', 'other'];

/** Five bills created 1 s apart; bill 1 paid, bill 3 cancelled. */
async function seededBook(t: TestContext, options: SandboxOptions = {}) {
  const c = clock();
  const s = await startSandbox(t, { now: c.now, ...options });
  const bills = [];
  for (let i = 0; i < AMOUNTS.length; i++) {
    bills.push((await s.client.create(newBill({ amount: AMOUNTS[i], merchantReference: REFS[i] }))).json.data);
    c.advance(1000);
  }
  s.sandbox.pay(bills[1]!.billId);
  await s.client.cancel(bills[3]!.billId);
  c.advance(1000);
  return { ...s, bills, c };
}

const refsOf = (lists: Rec[]): string[] => lists.map((r) => r.merchantReference);

test('no body lists everything, newest first, with total; dateTime is the creation time', async (t) => {
  const { client, bills } = await seededBook(t);
  const r = await client.call<{ lists: Rec[]; total: number }>('POST', '/v1/bills');
  assert.equal(r.json.code, 0, r.text);
  assert.equal(r.json.data.total, 5);
  assert.deepEqual(refsOf(r.json.data.lists), [...REFS].reverse());
  const paid = r.json.data.lists.find((x) => x.billId === bills[1]!.billId)!;
  assert.equal(paid.status, 2);
  assert.equal(paid.dateTime, bills[1]!.expiredOn - 15 * 60_000, 'creation time, not the payment time');
  assert.match(r.text, /"billAmount":"300\.25"/);
});

test('equal and like filters', async (t) => {
  const { client } = await seededBook(t);
  const q = async (filters: unknown[]) => (await client.list({ filters })).json.data;

  assert.deepEqual(refsOf((await q([{ name: 'merchantReference', value: 'order-200', matchType: 'equal' }])).lists), ['order-200']);
  assert.equal((await q([{ name: 'merchantReference', value: 'ORDER-200', matchType: 'equal' }])).total, 0, 'equal is exact');
  // like without wildcards: case-insensitive substring
  assert.deepEqual(refsOf((await q([{ name: 'merchantReference', value: 'ORDER', matchType: 'like' }])).lists).sort(),
    ['ORDER-1%0', 'Order-100', 'order-200'].sort());
  // % and _ are SQL wildcards when present
  assert.deepEqual(refsOf((await q([{ name: 'merchantReference', value: 'order-1%', matchType: 'like' }])).lists).sort(),
    ['ORDER-1%0', 'Order-100'].sort());
  assert.deepEqual(refsOf((await q([{ name: 'merchantReference', value: 'shop_', matchType: 'like' }])).lists), []);
  assert.deepEqual(refsOf((await q([{ name: 'merchantReference', value: 'shop__', matchType: 'like' }])).lists), ['shop_x']);
  // amounts compare as decimals; numbers and booleans as their text
  assert.equal((await q([{ name: 'billAmount', value: '10.50', matchType: 'equal' }])).total, 2);
  assert.equal((await q([{ name: 'billAmount', value: '2.00', matchType: 'equal' }])).total, 1);
  assert.deepEqual(refsOf((await q([{ name: 'status', value: '2', matchType: 'equal' }])).lists), ['order-200']);
  assert.equal((await q([{ name: 'isFinal', value: 'true', matchType: 'equal' }])).total, 2);
  // several filters: all must match
  assert.deepEqual(refsOf((await q([
    { name: 'billAmount', value: '10.5', matchType: 'equal' },
    { name: 'isFinal', value: 'false', matchType: 'equal' },
  ])).lists), ['Order-100']);
  assert.equal((await q([{ name: 'statusName', value: 'cancel', matchType: 'like' }])).total, 1);
});

test('unknown filter or sort names, matchTypes and bad paging are 1003', async (t) => {
  const { client } = await seededBook(t);
  const bodies = [
    { filters: [{ name: 'amount', value: '1', matchType: 'equal' }] },
    { filters: [{ name: 'billId', value: '1', matchType: 'regex' }] },
    { filters: { name: 'billId' } },
    { sort: { name: 'callbackUrl', order: 1 } },
    { sort: { name: 'billId', order: 2 } },
    { paging: { index: 0, size: 2 } },
    { paging: { index: 1, size: 0 } },
    { paging: { index: 1.5, size: 2 } },
  ];
  for (const body of bodies) {
    const r = await client.list(body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.json.code, 1003);
  }
});

test('paging starts at 1; total counts every match', async (t) => {
  const { client } = await seededBook(t);
  const page = async (index: number) => (await client.list({ paging: { index, size: 2 }, sort: { name: 'dateTime', order: 1 } })).json.data;
  assert.deepEqual(refsOf((await page(1)).lists), REFS.slice(0, 2));
  assert.deepEqual(refsOf((await page(2)).lists), REFS.slice(2, 4));
  assert.deepEqual(refsOf((await page(3)).lists), REFS.slice(4));
  assert.deepEqual((await page(4)).lists, []);
  assert.equal((await page(3)).total, 5);
});

test('paging starts at 0 with pageBase 0; page size is capped at 100', async (t) => {
  const { client } = await seededBook(t, { pageBase: 0 });
  const r = (await client.list({ paging: { index: 0, size: 2 }, sort: { name: 'dateTime', order: 1 } })).json.data;
  assert.deepEqual(refsOf(r.lists), REFS.slice(0, 2));
  assert.equal((await client.list({ paging: { index: 0, size: 1000 } })).json.data.lists.length, 5);
  assert.equal((await client.list({ paging: { index: -1, size: 2 } })).json.code, 1003);
});

test('the page size defaults to 20', async (t) => {
  const { client } = await startSandbox(t);
  for (let i = 0; i < 21; i++) await client.create(newBill());
  const r = (await client.list({})).json.data;
  assert.deepEqual([r.lists.length, r.total], [20, 21]);
});

test('sort by any field in both orders', async (t) => {
  const { client } = await seededBook(t);
  const fields = ['billId', 'merchantReference', 'requestReference', 'paymentReference', 'billAmount',
    'currency', 'status', 'statusName', 'isFinal', 'dateTime'] as const;
  for (const name of fields) {
    const up = (await client.list({ sort: { name, order: 1 } })).json.data.lists;
    const down = (await client.list({ sort: { name, order: -1 } })).json.data.lists;
    assert.equal(up.length, 5, name);
    assert.deepEqual(down.map((r) => r.billId), up.map((r) => r.billId).reverse(), `${name}: -1 is the reverse of 1`);
    for (let i = 1; i < up.length; i++) {
      const [a, b] = [up[i - 1]![name], up[i]![name]];
      const inOrder = name === 'billAmount' ? Number(a) <= Number(b) : a <= b;
      assert.ok(inOrder, `${name} ascending: ${String(a)} before ${String(b)}`);
    }
  }
  const byAmount = (await client.list({ sort: { name: 'billAmount', order: -1 } })).json.data.lists;
  assert.deepEqual(byAmount.map((r) => r.billAmount), ['300.25', '45', '10.5', '10.5', '2'], 'amounts sort as numbers');
});
