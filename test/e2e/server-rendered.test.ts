// The server-rendered checkout (issue 34) in the three engines: a merchant's page whose server put
// the fragment of GET /api/bills/:billId/checkout.html into its HTML, under a strict CSP (no inline
// script; the fragment's style allowed by its hash), the BFF reached through the page's own origin.
// - JavaScript off: the QR code read by zbarimg off the engine's screenshot says billUrl, the pay
//   link (mode=button) goes to billUrl, and the status link shows the outcome;
// - JavaScript on: the element takes the markup over without moving anything (every part's box the
//   same before and after, and no layout-shift entry where the engine has them), and the payment
//   shows as on any page;
// - qr.svg drawn by the engine and qr.png read by zbarimg; a printed page (Chromium's PDF, rasterized by Ghostscript) too;
// - the same-phone return (issue 43): the bill made by the merchant's server, paid on the phone that
//   was shown it, lands on RETURN_URL with JavaScript and without; the phone that scans the QR code
//   is told the outcome by the BFF's other-device page (Chromium).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { BillView } from '../../contract/bill-view.js';
import { checkoutStyleHash, renderCheckout } from '../../server/http/render/checkout.js';
import { RETURN_PAGE_TEXTS } from '../../server/http/return-page.js';
import { en } from '../../widget/strings.js';
import { selectedEngines } from '../engines/engines.mjs';
import { startApp, type App } from './support/app.js';
import { launch, PHONE } from './support/browser.js';
import { launchEngine, type EngineBrowser, type EnginePage } from './support/engine-page.js';

const run = promisify(execFile);
let app: App;
let merchant: { url: string; close(): Promise<void>; bff: string };
let shots: string;
let orders = 0;

/**
 * The merchant's server: `/checkout?bill=&token=&mode=&js=` renders a page holding the BFF's
 * fragment (fetched as a PHP or Python server would) under its own CSP; with `endpoint=self`, its
 * own renderCheckout with the element's endpoint on the page's origin (`/api`). Everything under
 * /api, the drop-in and its on-demand modules are passed on to the BFF, so that the page's origin is
 * the API's. `/thanks` is RETURN_URL.
 */
async function startMerchant(): Promise<{ url: string; close(): Promise<void>; bff: string }> {
  const merchantSide = { url: '', bff: '', close: async () => undefined };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const bff = merchantSide.bff;
      const url = new URL(req.url ?? '/', 'http://merchant');
      if (url.pathname === '/checkout') {
        const bill = url.searchParams.get('bill')!;
        const token = url.searchParams.get('token')!;
        const mode = url.searchParams.get('mode') === 'button' ? 'button' : 'qr';
        let fragment: { status: number; text(): Promise<string>; styleSrc: string };
        if (url.searchParams.get('endpoint') === 'self') {
          const read = await fetch(`${bff}/api/bills/${encodeURIComponent(bill)}?token=${encodeURIComponent(token)}`);
          const html = await renderCheckout((await read.json()) as BillView, { token, endpoint: '/api', mode });
          fragment = { status: read.status, text: async () => html, styleSrc: await checkoutStyleHash() };
        } else {
          const answer = await fetch(`${bff}/api/bills/${encodeURIComponent(bill)}/checkout.html?token=${encodeURIComponent(token)}&mode=${mode}`);
          const styleSrc = /style-src ([^;]+)/.exec(answer.headers.get('content-security-policy') ?? '')![1]!;
          fragment = { status: answer.status, text: () => answer.text(), styleSrc };
        }
        const styleSrc = fragment.styleSrc;
        const script = url.searchParams.get('js') === '1' ? '<script type="module" src="/bill-checkout.js"></script>' : '';
        res.writeHead(fragment.status, {
          'content-type': 'text/html; charset=utf-8',
          // The element's endpoint is the BFF's PUBLIC_URL (another origin here, allowed by ALLOWED_ORIGINS).
          'content-security-policy': `default-src 'self' ${bff}; style-src 'self' ${styleSrc}; img-src 'self' data:; object-src 'none'; base-uri 'none'`,
        });
        res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pay</title><link rel="stylesheet" href="/merchant.css"></head><body><main><h1>Your order</h1>${await fragment.text()}<p id="below">Thanks for shopping.</p></main>${script}</body></html>`);
        return;
      }
      if (url.pathname === '/thanks') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><html lang="en"><meta charset="utf-8"><title>Thanks</title><h1 id="thanks">Thank you</h1></html>');
        return;
      }
      if (url.pathname === '/merchant.css') {
        res.writeHead(200, { 'content-type': 'text/css' });
        res.end('body{margin:0;font:16px/1.5 system-ui,sans-serif}main{max-width:28rem;margin:0 auto;padding:1rem}');
        return;
      }
      // Everything else is the BFF's (the API, its event streams, the drop-in).
      // As a proxy does: a redirect is the browser's to follow.
      const upstream = await fetch(`${bff}${req.url}`, {
        method: req.method, redirect: 'manual', headers: { accept: req.headers.accept ?? '*/*', 'accept-language': req.headers['accept-language'] ?? 'en' },
      });
      const headers: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(name)) headers[name] = value;
      });
      res.writeHead(upstream.status, headers);
      if (!upstream.body) return void res.end();
      const reader = upstream.body.getReader();
      req.on('close', () => void reader.cancel().catch(() => undefined));
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) break;
        res.write(value);
      }
      res.end();
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  return Object.assign(merchantSide, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<undefined>((ok) => { server.closeAllConnections(); server.close(() => ok(undefined)); }),
  });
}

before(async () => {
  merchant = await startMerchant();
  app = await startApp({ env: { ALLOWED_ORIGINS: merchant.url, RETURN_URL: `${merchant.url}/thanks` } });
  merchant.bff = app.url;
  shots = await mkdtemp(join(tmpdir(), 'server-rendered-'));
});
after(async () => {
  await merchant?.close();
  await app?.stop();
  if (shots) await rm(shots, { recursive: true, force: true });
});

async function newBill(): Promise<{ billId: string; token: string; billUrl: string }> {
  const bill = await app.createBill(`demo-poster-ssr${++orders}`);
  const read = await (await fetch(`${app.url}/api/bills/${encodeURIComponent(bill.billId)}?token=${encodeURIComponent(bill.token)}`)).json() as { billUrl: string };
  return { ...bill, billUrl: read.billUrl };
}

const pageUrl = (bill: { billId: string; token: string }, mode: 'qr' | 'button', js: boolean, endpoint: 'bff' | 'self' = 'bff') =>
  `${merchant.url}/checkout?bill=${encodeURIComponent(bill.billId)}&token=${encodeURIComponent(bill.token)}&mode=${mode}&js=${js ? 1 : 0}&endpoint=${endpoint}`;

/** What zbarimg reads off a PNG. */
async function decodeQr(png: Buffer, name: string): Promise<string> {
  const file = join(shots, `${name}.png`);
  await writeFile(file, png);
  const { stdout } = await run('zbarimg', ['--quiet', '--raw', file]);
  return stdout.trim();
}

// Page functions: serialised into the page, so each stands alone.
const partAttribute = (name: string, attribute: string) =>
  document.querySelector('bill-checkout')?.shadowRoot?.querySelector(`[part~="${name}"]`)?.getAttribute(attribute) ?? null;
/** The boxes of the card's visible parts and of what follows it on the page, rounded to the pixel. */
const boxes = () => {
  const root = document.querySelector('bill-checkout')!.shadowRoot!;
  const parts = [...root.querySelectorAll('[part]')].filter((el) => el.getBoundingClientRect().height > 0);
  const all = [...parts, document.querySelector('#below')!];
  return all.map((el) => {
    const r = el.getBoundingClientRect();
    return `${el.getAttribute('part') ?? el.id} ${Math.round(r.x)},${Math.round(r.y)} ${Math.round(r.width)}x${Math.round(r.height)}`;
  }).join('; ');
};
/** Whether the element took the server's markup over: defined, and its own card in place of the server's. */
const tookOver = () => customElements.get('bill-checkout') !== undefined
  && document.querySelector('bill-checkout')!.shadowRoot!.querySelector('[part~="expiry"]') === null
  && document.querySelector('bill-checkout')!.shadowRoot!.querySelector('[part~="base"]') !== null;
const heading = () => document.querySelector('bill-checkout')?.shadowRoot?.querySelector('[part~="heading"]')?.textContent?.trim() ?? '';
interface Shift { value: number; startTime: number; sources: { node?: Node; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }[] }
/** The layout shifts the page recorded, each with what moved (Chromium has the Layout Instability API; the others answer null). */
const layoutShifts = () => {
  if (!PerformanceObserver.supportedEntryTypes?.includes('layout-shift')) return null;
  return (performance.getEntriesByType('layout-shift') as unknown as Shift[]).map((e) => `${e.value.toFixed(4)} at ${Math.round(e.startTime)} ms: ${
    e.sources.map((s) => `${s.node?.nodeName ?? '?'}${s.node instanceof Element ? `[${s.node.getAttribute('part') ?? s.node.id}]` : ''} ${JSON.stringify(s.previousRect)} → ${JSON.stringify(s.currentRect)}`).join(', ')}`);
};
/** CSP violations from now on, and those the engine buffered (ReportingObserver, where there is one): no inline script may record them earlier. */
const watchProblems = () => {
  const w = window as unknown as { __problems?: string[] };
  if (w.__problems) return;
  const problems: string[] = (w.__problems = []);
  document.addEventListener('securitypolicyviolation', (e) => problems.push(`csp: ${e.violatedDirective} ${e.blockedURI}`));
  addEventListener('error', (e) => problems.push(`error: ${e.message}`));
  if ('ReportingObserver' in window) {
    new ReportingObserver((reports) => {
      for (const r of reports) problems.push(`csp report: ${JSON.stringify(r.body)}`);
    }, { types: ['csp-violation'], buffered: true }).observe();
  }
};
const problems = () => (window as unknown as { __problems?: string[] }).__problems ?? ['not watched'];

async function withPage(browser: EngineBrowser, javaScript: boolean, body: (page: EnginePage) => Promise<void>): Promise<void> {
  const page = await browser.newPage('desktop', { javaScript });
  try {
    await body(page);
  } finally {
    await page.close();
  }
}

for (const engine of selectedEngines()) {
  describe(`the server-rendered checkout in ${engine}`, () => {
    let browser: EngineBrowser;
    before(async () => {
      browser = await launchEngine(engine);
    });
    after(() => browser?.close());

    test('JavaScript off: the QR code says billUrl off the screen; the pay link leads to billUrl through the BFF; the status link shows the outcome', async () => {
      const bill = await newBill();
      await withPage(browser, false, async (page) => {
        await page.goto(pageUrl(bill, 'qr', false));
        assert.equal(await decodeQr(await page.screenshot(), `${engine}-nojs-qr`), bill.billUrl, 'zbarimg reads billUrl');
      });
      await withPage(browser, false, async (page) => {
        await page.goto(pageUrl(bill, 'button', false));
        const statusUrl = await page.evaluate(partAttribute, 'status-link', 'href').catch(() => null);
        // Through the BFF, which marks the browser that started the bill (its return goes on to RETURN_URL), then on to billUrl.
        const payUrl = await page.evaluate(partAttribute, 'pay-button', 'href');
        assert.equal(payUrl, `${app.url}/api/bills/${encodeURIComponent(bill.billId)}/pay?token=${encodeURIComponent(bill.token)}`, 'the pay link goes through the BFF');
        const via = await fetch(payUrl, { redirect: 'manual' });
        assert.deepEqual([via.status, via.headers.get('location')], [303, bill.billUrl], 'the pay link leads to billUrl');
        assert.ok(statusUrl, 'the status link is shown without JavaScript');
        await app.control(bill.billId, 'pay');
        // The page says what the BFF knows; opened again (it also asks again by itself while pending) it says paid.
        let outcome = '';
        for (let i = 0; i < 40 && outcome !== 'paid'; i++) {
          await page.goto(new URL(statusUrl, merchant.url).href);
          outcome = await page.evaluate(() => document.querySelector('main')?.dataset.outcome ?? '');
        }
        assert.equal(outcome, 'paid');
      });
    });

    test('JavaScript on: the element takes the markup over, nothing moves, and a payment shows as today', async () => {
      const bill = await newBill();
      await withPage(browser, true, async (page) => {
        await page.goto(pageUrl(bill, 'qr', true));
        await page.evaluate(watchProblems);
        const first = await page.evaluate(boxes);
        await page.waitFor('the element to take the markup over', tookOver);
        assert.equal(await page.evaluate(boxes), first, 'every part where it was');
        const shifts = await page.evaluate(layoutShifts);
        if (shifts !== null) assert.deepEqual(shifts, [], 'no layout shift');
        // Live: the element read the bill and says so to screen readers, as on any page.
        await page.waitFor('the element to announce the bill', (text) => document.querySelector('bill-checkout')!.shadowRoot!.querySelector('[role="status"]')?.textContent === text, en.waiting);
        assert.equal(await decodeQr(await page.screenshot(), `${engine}-js-qr`), bill.billUrl);
        await app.control(bill.billId, 'pay');
        assert.equal(await page.waitFor('the paid heading', heading), en.paid);
        assert.deepEqual(await page.evaluate(problems), [], 'no CSP violation, no error');
      });
    });

    test('qr.svg as the engine draws it, and qr.png, say billUrl', async () => {
      const bill = await newBill();
      await withPage(browser, true, async (page) => {
        await page.goto(`${merchant.url}/api/bills/${encodeURIComponent(bill.billId)}/qr.svg?token=${encodeURIComponent(bill.token)}`);
        assert.equal(await decodeQr(await page.screenshot(), `${engine}-qr-svg`), bill.billUrl);
      });
      if (engine !== 'chromium') return;
      const png = await fetch(`${app.url}/api/bills/${encodeURIComponent(bill.billId)}/qr.png?token=${encodeURIComponent(bill.token)}`);
      assert.equal(await decodeQr(Buffer.from(await png.arrayBuffer()), 'qr-png'), bill.billUrl);
    });
  });
}

test('a printed server-rendered checkout (Chromium\'s PDF, rasterized) shows the QR code, the amount, the reference and the expiry on one page', async () => {
  const bill = await newBill();
  const browser = await launch();
  try {
    // The server's markup as printed (with JavaScript the element prints its countdown in place of the expiry).
    const page = await browser.newPage({ javaScriptEnabled: false });
    await page.goto(pageUrl(bill, 'qr', false));
    await page.locator('bill-checkout [part~="qr"]').waitFor();
    const pdf = join(shots, 'print.pdf');
    await writeFile(pdf, await page.pdf({ format: 'A4', printBackground: true }));
    const text = (await run('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-sDEVICE=txtwrite', '-sOutputFile=-', pdf])).stdout;
    const pages = (await run('gs', ['-q', '-dNODISPLAY', '-dNOSAFER', '-c', `(${pdf}) (r) file runpdfbegin pdfpagecount = quit`])).stdout.trim();
    assert.equal(pages, '1', 'one page');
    for (const expected of ['Amount to pay', 'Reference', 'Pay by']) assert.match(text, new RegExp(expected), `${expected} is printed`);
    assert.doesNotMatch(text, /Copy link|Waiting for payment/, 'the controls and the live status are not printed');
    await run('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-sDEVICE=png16m', '-r150', `-sOutputFile=${join(shots, 'print.png')}`, pdf]);
    assert.equal(await decodeQr(await readFile(join(shots, 'print.png')), 'print-read'), bill.billUrl, 'the printed QR code says billUrl');
  } finally {
    await browser.close();
  }
});

test('the same phone, whoever made the bill: paid from the server-rendered checkout with and without JavaScript, it lands on RETURN_URL; the phone that scans the QR code gets the other-device page (Chromium)', async () => {
  const browser = await launch();
  try {
    // Without JavaScript: the fragment's pay link (the BFF on another origin). With it: the element's
    // own pay button, the element reading the bill on the page's origin, then from the BFF's (another
    // origin: its reads carry no cookie, its pay link goes through the BFF).
    for (const [js, endpoint] of [[false, 'bff'], [true, 'self'], [true, 'bff']] as const) {
      const bill = await newBill();
      const ctx = await browser.newContext({ ...PHONE, javaScriptEnabled: js, locale: 'en-US' });
      try {
        const page = await ctx.newPage();
        await page.goto(pageUrl(bill, 'button', js, endpoint));
        if (js) await page.waitForFunction(tookOver);
        await page.locator('bill-checkout [part~="pay-button"]').click();
        await page.waitForURL((u) => u.href === bill.billUrl);
        await page.locator('button.pay').click();
        await page.waitForURL((u) => u.pathname === '/thanks');
        const landed = new URL(page.url());
        assert.equal(landed.origin, merchant.url, `JavaScript ${js ? 'on' : 'off'}, the element's endpoint ${endpoint}: RETURN_URL`);
        assert.deepEqual([landed.searchParams.get('billId'), landed.searchParams.get('outcome')], [bill.billId, 'paid']);
      } finally {
        await ctx.close();
      }
    }

    // A phone without JavaScript given the QR code's markup: its "pay on this device" link, through the BFF.
    const qrOnPhone = await newBill();
    const noScript = await browser.newContext({ ...PHONE, javaScriptEnabled: false, locale: 'en-US' });
    try {
      const page = await noScript.newPage();
      await page.goto(pageUrl(qrOnPhone, 'qr', false));
      await page.locator('bill-checkout [part~="pay-here-link"]').click();
      await page.waitForURL((u) => u.href === qrOnPhone.billUrl);
      await page.locator('button.pay').click();
      await page.waitForURL((u) => u.pathname === '/thanks');
      assert.equal(new URL(page.url()).searchParams.get('outcome'), 'paid', 'the phone that got the QR code lands on RETURN_URL');
    } finally {
      await noScript.close();
    }

    // A desktop shows the QR code of a bill; a phone of its own scans it (billUrl) and pays.
    const shown = await newBill();
    const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const phone = await browser.newContext(PHONE);
    try {
      await (await desktop.newPage()).goto(pageUrl(shown, 'qr', true, 'self'));
      const page = await phone.newPage();
      await page.goto(shown.billUrl);
      await page.locator('button.pay').click();
      await page.waitForURL((u) => u.pathname.includes('/api/hooks/return/'));
      await page.getByText(RETURN_PAGE_TEXTS.en.back).waitFor();
      assert.equal(new URL(page.url()).origin, app.url, "the BFF's page for another device, not the shop");
    } finally {
      await Promise.all([desktop.close(), phone.close()]);
    }
  } finally {
    await browser.close();
  }
});
