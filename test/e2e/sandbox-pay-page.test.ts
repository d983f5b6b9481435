// The sandbox's pay page in a real Chromium, at a phone and at a desktop viewport.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { callbacksUntil, newBill, startReceiver, startSandbox } from '../sandbox/support/harness.js';

const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let browser: Browser;
before(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: FLAGS });
});
after(() => browser.close());

const VIEWPORTS = [
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  { name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false },
];

for (const vp of VIEWPORTS) {
  test(`pay page on ${vp.name}: shows the bill, Pay lands on redirectUrl with status 2`, async (t) => {
    const callbacks = await startReceiver(t);
    const shop = await startReceiver(t);
    const { client, sandbox } = await startSandbox(t, {}, '/sandbox');
    const reference = '<script>window.__pwned = 1</script>&"x"';
    const created = await client.create(newBill({
      amount: 1234.5, merchantReference: reference, callbackUrl: callbacks.url,
      redirectUrl: shop.url.replace('/cb', '/return?order=42'),
    }));
    assert.equal(created.json.code, 0, created.text);
    const bill = created.json.data;

    const context = await browser.newContext({ viewport: vp.viewport, isMobile: vp.isMobile, hasTouch: vp.hasTouch });
    t.after(() => context.close());
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(bill.billUrl);

    await assertVisibleText(page.locator('[data-field="amount"]'), '1234.50 USD');
    await assertVisibleText(page.locator('[data-field="requireGCAmount"]'), '15.4313 GC');
    await assertVisibleText(page.locator('[data-field="merchantReference"]'), reference);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    assert.match((await page.locator('#time-left').textContent()) ?? '', /^1[45]:\d\d$/);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no horizontal scrolling (${overflow}px)`);

    const pay = page.getByRole('button', { name: /^Pay 1234\.50 USD$/ });
    const decline = page.getByRole('button', { name: 'Decline' });
    assert.ok(await pay.isVisible());
    assert.ok(await decline.isVisible());
    const box = (await pay.boundingBox())!;
    assert.ok(box.height >= 44, `Pay is a comfortable tap target (${box.height}px high)`);
    assert.ok(box.x >= 0 && box.x + box.width <= vp.viewport.width, 'Pay is inside the viewport');

    const delivered = callbacksUntil(sandbox, (s) => s.length === 1);
    await Promise.all([page.waitForURL((u) => u.pathname === '/return'), pay.click()]);
    const landed = new URL(page.url());
    assert.deepEqual(Object.fromEntries(landed.searchParams), {
      order: '42', billId: bill.billId, merchantReference: reference, status: '2',
    });
    const returns = shop.received.filter((r) => r.url.startsWith('/return'));
    assert.equal(returns.length, 1);
    assert.equal(returns[0]!.method, 'GET');
    assert.equal(new URL(returns[0]!.url, shop.url).searchParams.get('status'), '2');

    assert.equal((await delivered)[0]!.outcome, 'ok');
    const record = JSON.parse(callbacks.received[0]!.body) as Record<string, unknown>;
    assert.deepEqual(
      [record.billId, record.status, record.statusName, record.isFinal, record.billAmount, record.merchantReference],
      [bill.billId, 2, 'Paid', true, '1234.5', reference],
    );

    // Back on the bill: it shows its final state and no buttons.
    await page.goto(bill.billUrl);
    await assertVisibleText(page.getByRole('status'), 'Paid');
    assert.equal(await page.getByRole('button').count(), 0);
    assert.deepEqual(errors, []);
  });
}

test('pay page in the customer\'s language: Accept-Language vi gives Vietnamese, ?lang= chooses another', async (t) => {
  const callbacks = await startReceiver(t);
  const shop = await startReceiver(t);
  const { client } = await startSandbox(t, {}, '/sandbox');
  const created = await client.create(newBill({
    amount: 1234.5, merchantReference: 'R-vi', callbackUrl: callbacks.url, redirectUrl: shop.url.replace('/cb', '/return'),
  }));
  assert.equal(created.json.code, 0, created.text);
  const bill = created.json.data;

  const context = await browser.newContext({ ...VIEWPORTS[0], extraHTTPHeaders: { 'Accept-Language': 'vi' } });
  t.after(() => context.close());
  const page = await context.newPage();
  const answer = await page.goto(bill.billUrl);
  assert.equal(answer?.headers()['content-language'], 'vi');
  assert.equal(await page.locator('html').getAttribute('lang'), 'vi');
  assert.equal((await page.locator('h1').innerText()).trim(), 'Thanh toán hóa đơn R-vi');
  await assertVisibleText(page.locator('[data-field="amount"]'), '1234,50 USD');
  assert.ok(await page.getByRole('button', { name: 'Thanh toán 1234,50 USD' }).isVisible());
  assert.ok(await page.getByText('Thời gian còn lại').isVisible());
  assert.ok(await page.getByText('không có tiền thật được chuyển').isVisible());
  const text = await page.locator('body').innerText();
  assert.doesNotMatch(text, /\b(Pay|Decline|Bill|Time left|Sandbox of)\b/, 'no English left');

  await page.goto(`${bill.billUrl}?lang=th`);
  assert.equal(await page.locator('html').getAttribute('lang'), 'th');
  await page.getByRole('button', { name: 'ปฏิเสธ' }).waitFor();

  // Declined, the bill shown again is in Vietnamese too.
  await Promise.all([page.waitForURL((u) => u.pathname === '/return'), page.getByRole('button', { name: 'ปฏิเสธ' }).click()]);
  await page.goto(bill.billUrl);
  await assertVisibleText(page.getByRole('status'), 'Thất bại');
});

async function assertVisibleText(locator: import('playwright-core').Locator, expected: string): Promise<void> {
  assert.ok(await locator.isVisible(), `${expected} is visible`);
  assert.equal((await locator.textContent())?.trim(), expected);
}
