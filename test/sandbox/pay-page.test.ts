import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callbacksUntil, clock, newBill, startReceiver, startSandbox } from './support/harness.js';

/** The action of the form whose button says `label`, resolved against the page URL. */
function formAction(html: string, pageUrl: string, label: RegExp): string {
  for (const m of html.matchAll(/<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/g)) {
    if (label.test(m[2]!)) return new URL(m[1]!.replace(/&#38;/g, '&'), pageUrl).href;
  }
  throw new Error(`no form with a button ${label}`);
}

test('the pay page shows the bill, and Pay redirects 303 to redirectUrl keeping its query', async (t) => {
  const receiver = await startReceiver(t);
  const c = clock();
  const { client, sandbox } = await startSandbox(t, { now: c.now, billLifetimeMs: 10 * 60_000 }, '/gateway');
  const bill = (await client.create(newBill({
    amount: '1234.5', merchantReference: 'R&D <7>', callbackUrl: receiver.url,
    redirectUrl: 'https://shop.test/return?order=42&lang=en',
  }))).json.data;
  c.advance(61_000);

  const page = await fetch(bill.billUrl);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type')!, /^text\/html/);
  assert.match(page.headers.get('content-security-policy')!, /default-src 'none'/);
  const html = await page.text();
  assert.match(html, /1234\.50 USD/);
  assert.match(html, /15\.4313 GC/); // 1234.5 × 0.0125 = 15.43125 → 15.4313
  assert.match(html, /R&#38;D &#60;7&#62;/, 'service text is escaped');
  assert.match(html, />8:59</, 'time left by the sandbox clock');
  assert.doesNotMatch(html, /(src|href)="https?:/, 'no external resources');

  const action = formAction(html, bill.billUrl, /Pay/);
  assert.equal(new URL(action).pathname, `/gateway/pay/${bill.billId}/pay`);
  const delivered = callbacksUntil(sandbox, (s) => s.length === 1);
  const res = await fetch(action, { method: 'POST', redirect: 'manual' });
  assert.equal(res.status, 303);
  const to = new URL(res.headers.get('location')!);
  assert.equal(to.origin + to.pathname, 'https://shop.test/return');
  assert.deepEqual(Object.fromEntries(to.searchParams), {
    order: '42', lang: 'en', billId: bill.billId, merchantReference: 'R&D <7>', status: '2',
  });

  const rq = (await client.requery(bill.billId)).json.data;
  assert.deepEqual([rq.status, rq.statusName, rq.isFinal, rq.dateTime], [2, 'Paid', true, c.now()]);
  assert.match(rq.paymentReference, /^PY\d+$/);
  await delivered;
  assert.equal(JSON.parse(receiver.received[0]!.body).paymentReference, rq.paymentReference);

  // Final now: the page shows the state; another post goes back to the page and changes nothing.
  const after = await (await fetch(bill.billUrl)).text();
  assert.match(after, /role="status">Paid</);
  assert.doesNotMatch(after, /<form/);
  const again = await fetch(formAction(html, bill.billUrl, /Decline/), { method: 'POST', redirect: 'manual' });
  assert.equal(again.status, 303);
  assert.equal(again.headers.get('location'), `/gateway/pay/${bill.billId}`);
  assert.equal((await client.requery(bill.billId)).json.data.status, 2);
});

test('Decline makes the bill Failed (3) and redirects with status 3', async (t) => {
  const { client, base } = await startSandbox(t);
  const bill = (await client.create(newBill())).json.data;
  const html = await (await fetch(bill.billUrl)).text();
  const res = await fetch(formAction(html, bill.billUrl, /Decline/), { method: 'POST', redirect: 'manual' });
  assert.equal(res.status, 303);
  const to = new URL(res.headers.get('location')!);
  assert.equal(to.searchParams.get('status'), '3');
  const rq = (await client.requery(bill.billId)).json.data;
  assert.deepEqual([rq.status, rq.statusName, rq.paymentReference], [3, 'Failed', '']);
  assert.equal(bill.billUrl, `${base}/pay/${bill.billId}`);
});

test('an expired bill shows Expired and cannot be paid', async (t) => {
  const c = clock();
  const { client } = await startSandbox(t, { now: c.now, billLifetimeMs: 1000 });
  const bill = (await client.create(newBill())).json.data;
  const html = await (await fetch(bill.billUrl)).text();
  c.advance(1000);
  const expiredPage = await (await fetch(bill.billUrl)).text();
  assert.match(expiredPage, /role="status">Expired</);
  const res = await fetch(formAction(html, bill.billUrl, /Pay/), { method: 'POST', redirect: 'manual' });
  assert.equal(res.status, 303);
  assert.equal((await client.requery(bill.billId)).json.data.status, 5);
});

test('an unknown bill is a 404 page', async (t) => {
  const { base } = await startSandbox(t);
  const res = await fetch(`${base}/pay/Bnope`);
  assert.equal(res.status, 404);
  assert.match(await res.text(), /Bill not found/);
  assert.equal((await fetch(`${base}/pay/Bnope/pay`, { method: 'POST', redirect: 'manual' })).status, 404);
});
