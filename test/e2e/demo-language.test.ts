// The demo pages in the customer's language: ?locale= (kept for the tab), else the browser's; the
// language picker; <html lang>, the element's locale, the pages' own texts and money.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { formatAmount } from '../../contract/decimal.js';
import { ADMIN_TOKEN, startApp, type App } from './support/app.js';
import { context, DESKTOP, launch, open, PHONE } from './support/browser.js';

let app: App;
let browser: Browser;

before(async () => {
  app = await startApp();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await app?.stop();
});

async function language(page: Page): Promise<{ html: string | null; element: string | null }> {
  const element = page.locator('bill-checkout').first();
  return {
    html: await page.locator('html').getAttribute('lang'),
    element: (await element.count()) ? await element.evaluate((el) => (el as HTMLElement & { locale?: string }).locale ?? null) : null,
  };
}

test('money keeps every digit of the decimal text', () => {
  assert.equal(formatAmount('12345678901234567.89', 'en', 'USD'), '$12,345,678,901,234,567.89');
  assert.equal(formatAmount('0.125', 'en', 'USD'), '$0.125');
  assert.equal(formatAmount('12.5', 'en', 'USD'), '$12.50');
  assert.match(formatAmount('1234.50', 'vi', 'USD'), /^1\.234,50\sUS\$$/);
});

test('shop: ?locale=id in Indonesian, the picker reloads in Vietnamese keeping the page, the tab keeps it', async () => {
  const ctx = await context(browser, PHONE);
  try {
    const { page, problems } = await open(ctx, `${app.url}/?product=tee&locale=id`);
    await page.locator('#pay:enabled').waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'id');
    assert.equal(await page.locator('#cart-title').innerText(), 'Keranjang Anda');
    assert.equal(await page.locator('legend').innerText(), 'Pilih produk');
    assert.match(await page.locator('#order-id').innerText(), /^Pesanan demo-tee-/);
    assert.match(await page.locator('#pay').innerText(), /^Bayar US\$\s?24,00$/);
    assert.match(await page.locator('label.product').nth(1).innerText(), /Kaus katun organik[\s\S]*24,00/);
    assert.equal(await page.locator('#page-title').innerText(), 'Checkout');
    assert.equal(await page.title(), 'Northwind Goods: Toko');
    assert.equal(await page.getByRole('navigation').getAttribute('aria-label'), 'Halaman demo');

    await page.click('#pay');
    await page.locator('bill-checkout [part~="pay-button"]').waitFor();
    assert.deepEqual(await language(page), { html: 'id', element: 'id' });
    assert.equal((await page.locator('bill-checkout [part~="pay-button"]').innerText()).trim(), 'Bayar sekarang');

    // The picker, labelled in the page's language: the same page again (the same bill), in Vietnamese.
    const bill = await page.locator('bill-checkout').getAttribute('order-id');
    await Promise.all([
      page.waitForURL((u) => u.searchParams.get('locale') === 'vi'),
      page.getByLabel('Bahasa').selectOption('vi'),
    ]);
    assert.equal(new URL(page.url()).searchParams.get('product'), 'tee');
    await page.locator('bill-checkout [part~="pay-button"]').waitFor();
    assert.deepEqual(await language(page), { html: 'vi', element: 'vi' });
    assert.equal(await page.locator('bill-checkout').getAttribute('order-id'), bill, 'the checkout went on');
    assert.equal(await page.locator('#cart-title').innerText(), 'Giỏ hàng của bạn');
    assert.equal(await page.getByLabel('Ngôn ngữ').inputValue(), 'vi');

    // The tab keeps the choice (the way back from the payment page has no ?locale=), and the links carry it.
    assert.match(await page.getByRole('link', { name: 'Biến thể' }).getAttribute('href') ?? '', /\?locale=vi$/);
    // The product's admin page, at /admin: the demo's link carries the language there.
    const admin = page.getByRole('link', { name: 'Quản trị' });
    assert.equal(await admin.getAttribute('href'), '/admin?locale=vi');
    await Promise.all([page.waitForURL(`${app.url}/admin?locale=vi`), admin.click()]);
    assert.equal(await page.locator('html').getAttribute('lang'), 'vi');
    assert.equal(await page.locator('h1').innerText(), 'Hóa đơn');
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test("without ?locale= the browser's language: a Thai browser gets the shop in Thai, an unknown one in English", async () => {
  for (const [locale, lang, heading] of [['th-TH', 'th', 'ชำระเงิน'], ['zh-Hans-CN', 'zh-CN', '结算'], ['de-DE', 'en', 'Checkout']] as const) {
    const ctx = await browser.newContext({ ...DESKTOP, locale });
    try {
      const page = await ctx.newPage();
      await page.goto(`${app.url}/`);
      await page.locator('#pay:enabled').waitFor();
      assert.equal(await page.locator('html').getAttribute('lang'), lang, locale);
      assert.equal(await page.locator('#page-title').innerText(), heading, locale);
      assert.equal(await page.locator('#language').inputValue(), lang);
    } finally {
      await ctx.close();
    }
  }
});

test('the device that paid is told in its language too', async () => {
  const ctx = await context(browser, PHONE);
  try {
    const query = new URLSearchParams({ billId: 'B1', orderId: 'demo-mug-x1', outcome: 'paid', locale: 'zh-CN' });
    const { page, problems } = await open(ctx, `${app.url}/?${query}`);
    await page.locator('#result').waitFor();
    assert.equal(await page.locator('h1').innerText(), '已收到付款');
    assert.equal(await page.locator('#result-text').innerText(), 'Northwind Goods 已收到订单 demo-mug-x1 的付款。您可以关闭此页面，返回您开始付款的页面。');
    assert.equal(await page.locator('#result-new').innerText(), '新建订单');
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('variants, React and admin pages follow ?locale=', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const variants = await open(ctx, `${app.url}/variants.html?locale=ms`);
    await variants.page.locator('#button-slot [part~="pay-button"]').waitFor();
    assert.equal(await variants.page.locator('h1').innerText(), 'Varian');
    assert.equal(await variants.page.locator('#button-title').innerText(), 'Mod butang');
    assert.equal(await variants.page.locator('#theme-title + .note code').innerText(), '--bill-checkout-*');
    for (const el of await variants.page.locator('bill-checkout').all()) {
      assert.equal(await el.evaluate((node) => (node as HTMLElement & { locale?: string }).locale), 'ms');
    }

    const react = await open(ctx, `${app.url}/react.html?locale=th`);
    await react.page.locator('#root bill-checkout [part~="qr"]').waitFor();
    assert.deepEqual(await language(react.page), { html: 'th', element: 'th' });
    assert.equal(await react.page.locator('#react-events').innerText(), 'อีเวนต์ที่ React ได้รับ');
    assert.match(await react.page.locator('#root .order-id').innerText(), /^คำสั่งซื้อ demo-mug-/);

    const admin = await open(ctx, `${app.url}/admin?locale=zh-CN`);
    assert.equal(await admin.page.locator('html').getAttribute('lang'), 'zh-CN');
    assert.equal(await admin.page.locator('h1').innerText(), '账单');
    assert.equal(await admin.page.locator('#token-state').innerText(), '尚未设置令牌：不显示账单。');
    await app.createBill('demo-tee-lang1');
    await admin.page.fill('#token', ADMIN_TOKEN);
    await admin.page.getByRole('button', { name: '使用令牌' }).click();
    await admin.page.locator('#page-info', { hasText: /^第 1 页，共 \d+ 页/ }).waitFor();
    assert.deepEqual(await admin.page.locator('#bills thead th').allInnerTexts(),
      ['账单', '订单', '金额', '服务状态', '已存结果', '已通知商家', '时间', '操作']);
    assert.match(await admin.page.locator('#bills tbody tr').first().innerText(), /US\$24\.00[\s\S]*待付款[\s\S]*历史/);
    for (const p of [variants, react, admin]) assert.deepEqual(p.problems, []);
  } finally {
    await ctx.close();
  }
});

test('script-tag page: its server renders it in the language asked for, and the element fetches that one small language module', async () => {
  const ctx = await context(browser, DESKTOP);
  try {
    const scripts: string[] = [];
    ctx.on('request', (r) => { if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname); });
    const { page } = await open(ctx, `${app.url}/plain.html?locale=vi`);
    assert.deepEqual(await language(page), { html: 'vi', element: 'vi' });
    assert.equal(await page.locator('h1').innerText(), 'Chỉ một thẻ script');
    await page.locator('bill-checkout [part~="qr"]').waitFor();
    assert.equal(await page.locator('bill-checkout [part~="status"]').innerText(), 'Đang chờ thanh toán…');
    assert.equal(scripts[0], '/bill-checkout.js');
    assert.equal(scripts.length, 2, scripts.join(', '));
    assert.match(scripts[1]!, /^\/on-demand\/vi-[0-9a-f]{10}\.js$/);
    const module = await fetch(`${app.url}${scripts[1]}`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(module.headers.get('content-encoding'), 'gzip');
    assert.match(module.headers.get('cache-control') ?? '', /immutable/);
    // fetch inflates the body; the wire size is the answer's Content-Length.
    const gzipBytes = Number(module.headers.get('content-length'));
    await module.arrayBuffer();
    assert.ok(gzipBytes < 1024, `the Vietnamese module is small (${gzipBytes} B gzip)`);
  } finally {
    await ctx.close();
  }
});
