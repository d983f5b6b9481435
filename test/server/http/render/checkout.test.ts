// The server-rendered checkout's routes (issue 34): the fragment of renderCheckout, the QR images,
// the status page without JavaScript; each refuses a wrong token with the same 404 as no bill.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { renderCheckout } from '../../../../server/http/render/checkout.js';
import { html, nothing } from '../../../../server/http/render/html-tag.js';
import { qrCode, qrSvg } from '../../../../server/http/render/qr-images.js';
import { startHarness } from '../../support/harness.js';

const run = promisify(execFile);

/** What zbarimg reads off a PNG, as a phone's camera app would. */
async function zbar(png: Uint8Array): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'qr-'));
  try {
    const file = join(dir, 'qr.png');
    await writeFile(file, png);
    return (await run('zbarimg', ['--quiet', '--raw', file])).stdout.trim();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('the string tag escapes text and attributes, drops @event and .property, writes ?bool as presence, nests', () => {
  const hostile = '"><script>alert(1)</script>&\'';
  const out = html`<p class=${hostile} ?hidden=${false} ?open=${1} @click=${() => 1} .value=${2} title=${nothing}>
      ${hostile}${[html`<b>${hostile}</b>`, 'x']}${nothing}${undefined}
      <svg viewBox="0 0 ${41} ${41}"></svg></p>`.text;
  assert.equal(out, '<p class="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#38;&#39;" open>' +
    '&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#38;&#39;<b>&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#38;&#39;</b>x' +
    '<svg viewBox="0 0 41 41"></svg></p>');
});

test('renderCheckout: the card in a declarative shadow root, every value the service sent escaped, no script, no secret', async () => {
  const hostile = '<img src=x onerror=alert(1)>"\'&';
  const bill = {
    billId: `B${hostile}`, merchantReference: `ref${hostile}`, billUrl: 'https://pay.example/bill/B1?a=1&b=2', billAmount: '12500.50',
    currency: 'USD', requireGCAmount: '0.0123', expiredOn: Date.UTC(2026, 10, 26, 14, 32), status: 1, statusName: hostile,
    isFinal: false, outcome: 'pending' as const, dateTime: null,
  };
  // Every render is at a fixed time, 15 minutes before the bill expires: not at the test's own hour.
  const now = Date.UTC(2026, 10, 26, 14, 17);
  const markup = await renderCheckout(bill, { token: 'tok&"<', now, goldUnit: 'g' });
  assert.match(markup, /^<bill-checkout bill-id="B&#60;img src=x onerror=alert\(1\)&#62;&#34;&#39;&#38;" token="tok&#38;&#34;&#60;" mode="qr" locale="en" gold-unit="g"><template shadowrootmode="open"><style>/);
  assert.doesNotMatch(markup, /<img|<script|onerror=alert\(1\)>/i, 'nothing the service sent becomes markup');
  assert.match(markup, /<p part="amount">\$12,500\.50<\/p>/);
  assert.match(markup, /<p part="gold-amount">Gold required: 0\.0123 g<\/p>/);
  assert.match(markup, /<p part="reference" class="muted">Reference: ref&#60;img/);
  assert.match(markup, /<p part="countdown" role="timer">Time left: 15:00<\/p>/);
  assert.match(markup, /<p part="expiry" class="print">Pay by: <time datetime="2026-11-26T14:32:00.000Z">Nov 26, 2026, 02:32 PM UTC<\/time><\/p>/);
  assert.match(markup, /<svg part="qr" role="img" aria-label="Payment QR code" viewBox="0 0 (\d+) \1"/);
  assert.match(markup, /<noscript><a part="status-link" href="\/api\/bills\/B%3Cimg%20src%3Dx%20onerror%3Dalert\(1\)%3E%22&#39;%26\/status\.html\?token=tok%26%22%3C">Check the payment status<\/a><\/noscript>/);
  assert.doesNotMatch(markup, /statusName|Pending/);

  const button = await renderCheckout(bill, { token: 't', now, mode: 'button', locale: 'id', endpoint: 'https://pay.shop.example/api', cancellable: true });
  // The pay link goes through the BFF's pay route (it marks the browser that started the bill, then sends it to billUrl).
  assert.match(button, /<a part="pay-button" class="primary" href="https:\/\/pay\.shop\.example\/api\/bills\/B%3Cimg%20src%3Dx%20onerror%3Dalert\(1\)%3E%22&#39;%26\/pay\?token=t">Bayar sekarang<\/a>/);
  const direct = await renderCheckout(bill, { token: 't', now, mode: 'button', payUrl: null });
  assert.match(direct, /<a part="pay-button" class="primary" href="https:\/\/pay\.example\/bill\/B1\?a=1&#38;b=2">/, 'payUrl: null links billUrl itself');
  const app = await renderCheckout({ ...bill, billUrl: 'myapp://pay?b=1' }, { token: 't', now, mode: 'button', allowedSchemes: 'myapp' });
  assert.match(app, /<a part="pay-button" class="primary" href="myapp:\/\/pay\?b=1">/, "an app's link is linked as it is");
  assert.match(button, / endpoint="https:\/\/pay\.shop\.example\/api" mode="button" locale="id" cancellable>/);
  assert.match(button, /<button part="cancel-button" data-focus>Batalkan<\/button>/);
  assert.doesNotMatch(button, /part="qr"/);

  const paid = await renderCheckout({ ...bill, isFinal: true, outcome: 'paid', status: 2 }, { token: 't', now });
  assert.match(paid, /<h2 part="heading" tabindex="-1" data-focus>Payment received<\/h2>/);
  assert.doesNotMatch(paid, /gold-amount|No money/);
  const failed = await renderCheckout({ ...bill, isFinal: true, outcome: 'failed', status: 3 }, { token: 't', now });
  assert.match(failed, /<p part="money">No money was taken\.<\/p>/);
  const unsafe = await renderCheckout({ ...bill, billUrl: 'javascript:alert(1)' }, { token: 't', now });
  assert.match(unsafe, /<p part="error" class="strong">This payment link is not safe\.<\/p>/);
  assert.doesNotMatch(unsafe, /javascript:/);
});

test('renderCheckout, mode qr: without JavaScript a "pay on this device" link (the toggle needs the script), through the pay route, only while there is something to pay', async () => {
  const bill = {
    billId: 'B1', merchantReference: 'ref-1', billUrl: 'https://pay.example/bill/B1?a=1&b=2', billAmount: '12.50',
    currency: 'USD', requireGCAmount: null, expiredOn: Date.UTC(2026, 10, 26, 14, 32), status: 1, statusName: 'Pending',
    isFinal: false, outcome: 'pending' as const, dateTime: null,
  };
  const now = Date.UTC(2026, 10, 26, 14, 17);
  const hereLink = (markup: string) => /<noscript><a part="pay-here-link" href="([^"]*)">([^<]*)<\/a><\/noscript>/.exec(markup);

  const qr = await renderCheckout(bill, { token: 'tok&1', now, endpoint: 'https://bff.example/api' });
  assert.match(qr, /<svg part="qr"/);
  assert.deepEqual(hereLink(qr)?.slice(1), ['https://bff.example/api/bills/B1/pay?token=tok%261', 'Pay on this device'],
    'the pay route, which marks this phone as the one that started the bill');
  assert.match(qr, /pay-here-link[^]*<noscript><a part="status-link"/, 'before the status link');
  assert.equal(hereLink(await renderCheckout(bill, { token: 't', now, locale: 'id' }))?.[2], 'Bayar di perangkat ini', "the element's own toggle text");
  assert.equal(hereLink(await renderCheckout(bill, { token: 't', now, payUrl: null }))?.[1], 'https://pay.example/bill/B1?a=1&#38;b=2', 'payUrl: null links billUrl');
  const app = await renderCheckout({ ...bill, billUrl: 'myapp://pay?b=1' }, { token: 't', now, allowedSchemes: 'myapp' });
  assert.equal(hereLink(app)?.[1], 'myapp://pay?b=1', "an app's link as it is");
  assert.equal(hereLink(await renderCheckout(bill, { token: 't', now, statusUrl: null }))?.[2], 'Pay on this device', 'with no status link too');

  const none: [string, Parameters<typeof renderCheckout>][] = [
    ['button mode (its pay link is the primary action)', [bill, { token: 't', now, mode: 'button' }]],
    ['paid', [{ ...bill, isFinal: true, outcome: 'paid', status: 2 }, { token: 't', now }]],
    ['paid, being confirmed', [{ ...bill, processing: true }, { token: 't', now }]],
    ['past its expiry', [bill, { token: 't', now: bill.expiredOn + 1 }]],
    ['an unsafe billUrl', [{ ...bill, billUrl: 'javascript:alert(1)' }, { token: 't', now }]],
  ];
  for (const [what, args] of none) assert.doesNotMatch(await renderCheckout(...args), /pay-here-link/, what);
});

test('checkout.html?mode=qr: its "pay on this device" link goes through GET …/pay to billUrl', async (t) => {
  const h = await startHarness(t);
  const bill = await h.create({ amount: '12.50' });
  const q = `token=${encodeURIComponent(bill.token)}`;
  const base = `/api/bills/${encodeURIComponent(bill.billId)}`;
  const fragment = await (await h.request(`${base}/checkout.html?${q}&mode=qr`)).text();
  const href = /<a part="pay-here-link" href="([^"]+)"/.exec(fragment)?.[1];
  assert.ok(href, 'the link');
  assert.equal(href, `${h.config.publicUrl}${base}/pay?${q}`);
  const pay = await h.request(href.slice(h.config.publicUrl.length));
  assert.equal(pay.status, 303);
  assert.equal(pay.headers.get('location'), bill.billUrl);
  assert.match(pay.headers.get('set-cookie') ?? '', /^bc_started=1;/, 'the phone is marked as the one that started the bill');
});

test('the routes: checkout.html, qr.svg, qr.png, status.html; a wrong token is a 404 on each', async (t) => {
  const h = await startHarness(t);
  const bill = await h.create({ amount: '12.50' });
  const q = `token=${encodeURIComponent(bill.token)}`;
  const base = `/api/bills/${encodeURIComponent(bill.billId)}`;

  const fragment = await h.request(`${base}/checkout.html?${q}&locale=ms&mode=qr`);
  assert.equal(fragment.status, 200);
  assert.match(fragment.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(fragment.headers.get('cache-control'), 'no-store');
  const csp = fragment.headers.get('content-security-policy') ?? '';
  assert.match(csp, /style-src 'sha256-[A-Za-z0-9+/=]+'/);
  const body = await fragment.text();
  assert.match(body, new RegExp(`^<bill-checkout bill-id="${bill.billId}" token="${bill.token}" endpoint="${h.config.publicUrl}/api" mode="qr" locale="ms">`));
  assert.match(body, /Jumlah perlu dibayar/);
  assert.doesNotMatch(body, /<script/);
  assert.doesNotMatch(body, new RegExp(h.config.upstream.secret));

  const svg = await h.request(`${base}/qr.svg?${q}`);
  assert.equal(svg.status, 200);
  assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
  assert.equal(svg.headers.get('cache-control'), 'private, max-age=3600', 'private caching');
  const svgText = await svg.text();
  // Dark on white, the symbol with its quiet zone: the element's own path (read off a screen in test/e2e/server-rendered.test.ts).
  const { d, size } = qrCode(bill.billUrl);
  assert.equal(svgText, qrSvg({ d, size }));
  assert.match(svgText, /<rect width="(\d+)" height="\1" fill="#fff"\/><path d="M4 4\.5h7m\d+ 0h/);
  // Bytes: fetched past the harness's request, which keeps every answer as text.
  const png = await fetch(`${h.url}${base}/qr.png?${q}`);
  assert.equal(png.status, 200);
  assert.equal(png.headers.get('content-type'), 'image/png');
  assert.equal(png.headers.get('cache-control'), 'private, max-age=3600', 'private caching');
  assert.equal(await zbar(new Uint8Array(await png.arrayBuffer())), bill.billUrl, 'qr.png reads as billUrl');

  const pending = await h.request(`${base}/status.html?${q}`);
  assert.equal(pending.status, 200);
  const pendingPage = await pending.text();
  assert.match(pendingPage, /<meta http-equiv="refresh" content="5">/, 'a pending bill asks again by itself');
  assert.match(pending.headers.get('content-security-policy') ?? '', /default-src 'none'; style-src 'sha256-/);
  assert.doesNotMatch(pendingPage, /<script/);
  h.sandbox.pay(bill.billId);
  let paidPage = '';
  for (let i = 0; i < 50 && !/data-outcome="paid"/.test(paidPage); i++) {
    h.clock.advance(5_000);
    paidPage = await (await h.request(`${base}/status.html?${q}`)).text();
    await h.refreshed();
  }
  assert.match(paidPage, /<h1>Payment received<\/h1>/);
  assert.doesNotMatch(paidPage, /http-equiv="refresh"/, 'no refresh once final');

  for (const route of ['checkout.html', 'status.html', 'qr.svg', 'qr.png']) {
    for (const query of ['token=wrong', '', q.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))]) {
      const res = await h.request(`${base}/${route}?${query}`);
      assert.equal(res.status, 404, `${route}?${query}`);
      if (route.endsWith('.html')) {
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/, `${route}: an HTML 404 page`);
        assert.match(await res.text(), /This payment link is not valid/);
      } else {
        // The API's error body, the same for a wrong token and no bill (qr_too_long is the one other 404).
        assert.deepEqual(((await res.json()) as { error: { code: string } }).error.code, 'not_found', `${route}: not_found`);
      }
    }
    assert.equal((await h.request(`/api/bills/nope/${route}?${q}`)).status, 404, `${route} of an unknown bill`);
  }
});

test('checkout.html: Content-Language is the language the fragment is written in, whatever the locale asked', async (t) => {
  const h = await startHarness(t);
  const bill = await h.create({ amount: '12.50' });
  const base = `/api/bills/${encodeURIComponent(bill.billId)}/checkout.html?token=${encodeURIComponent(bill.token)}`;
  // ' id' and 'id-!!' are not tags a browser sends: the fragment falls back to English, and says so.
  for (const locale of ['ms', ' id', 'id-!!', 'zh-TW', 'in']) {
    const res = await h.request(`${base}&locale=${encodeURIComponent(locale)}`);
    const lang = /<div lang="([^"]+)">/.exec(await res.text())?.[1];
    assert.ok(lang, `the fragment's language for ${JSON.stringify(locale)}`);
    assert.equal(res.headers.get('content-language'), lang, `locale ${JSON.stringify(locale)}`);
  }
});
