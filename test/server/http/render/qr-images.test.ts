// A bill URL too long for one QR code (issue 41). The encoder (widget/qr-code.ts) writes the URL as
// the element shows it (safeUrl's href: non-ASCII percent-encoded) as UTF-8 bytes in byte mode at
// error correction M, where a version 40 symbol holds 2,331 bytes. A 2 KB URL of non-ASCII
// characters is many times that: checkout.html then shows the pay link, qr.svg and qr.png answer
// 404 qr_too_long, nothing answers 500 or logs an error, and the create still takes the bill.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import type { CreatedBillView } from '../../../../contract/bill-view.js';
import { QR_MAX_BYTES, qrBytes, qrCode, qrFits, qrSvg } from '../../../../server/http/render/qr-images.js';
import { renderCheckout } from '../../../../server/http/render/checkout.js';
import type { HttpClient } from '../../../../server/upstream/index.js';
import { startHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const require = createRequire(import.meta.url);

test('QR_MAX_BYTES is qrcode\'s own capacity of a version 40 symbol in byte mode at level M, the level the encoder uses', () => {
  const version = require('qrcode/lib/core/version.js') as { getCapacity(v: number, level: unknown, mode: unknown): number };
  const levels = require('qrcode/lib/core/error-correction-level.js') as Record<'L' | 'M', unknown>;
  const { BYTE } = require('qrcode/lib/core/mode.js') as { BYTE: unknown };
  assert.equal(QR_MAX_BYTES, version.getCapacity(40, levels.M, BYTE));
  assert.equal(QR_MAX_BYTES, 2331);
  assert.equal(version.getCapacity(40, levels.L, BYTE), 2953, 'level L would hold more; the encoder does not use it');
  // The boundary, through the element's own encoder: the last byte that fits, and the first that does not.
  assert.equal(qrCode('a'.repeat(QR_MAX_BYTES)).size, 177 + 8, 'version 40 with its quiet zone');
  assert.throws(() => qrCode('a'.repeat(QR_MAX_BYTES + 1)));
  // Bytes, not characters: 'é' is 2 bytes of UTF-8.
  const twoByte = 'a' + 'é'.repeat((QR_MAX_BYTES - 1) / 2);
  assert.equal(qrBytes(twoByte), QR_MAX_BYTES);
  assert.ok(qrFits(twoByte));
  assert.equal(qrCode(twoByte).size, 177 + 8);
  assert.ok(!qrFits(`${twoByte}é`));
  assert.throws(() => qrCode(`${twoByte}é`));
  // A surrogate pair is 4 bytes for 2 units; the quick bound (3 bytes a unit) is never short of it.
  assert.ok(qrFits('😀'.repeat(582)) && !qrFits('😀'.repeat(583)));
  assert.ok(qrFits('€'.repeat(777)) && !qrFits('€'.repeat(778)));
});

test('renderCheckout: a URL too long for a QR code is drawn as the pay link, even when a QR code is asked for', async () => {
  const bill = {
    billId: 'B1', merchantReference: 'r1', billUrl: `https://pay.example/${'é'.repeat(1000)}`, billAmount: '12.50', currency: 'USD',
    requireGCAmount: null, expiredOn: Date.UTC(2026, 10, 26, 14, 32), status: 1, statusName: 'Pending', isFinal: false,
    outcome: 'pending' as const, dateTime: null,
  };
  const now = Date.UTC(2026, 10, 26, 14, 17);
  const href = new URL(bill.billUrl).href;
  assert.ok(qrBytes(href) > QR_MAX_BYTES && qrBytes(bill.billUrl) <= QR_MAX_BYTES, 'it overflows once percent-encoded, as the element shows it');
  for (const mode of [undefined, 'qr', 'button'] as const) {
    const markup = await renderCheckout(bill, { token: 't', now, ...(mode ? { mode } : {}) });
    assert.match(markup, / mode="button" locale="en">/, `${mode}: the element is told what the server drew`);
    // Through the BFF's pay route, which sends the browser on to billUrl.
    assert.ok(markup.includes('<a part="pay-button" class="primary" href="/api/bills/B1/pay?token=t">'), `${mode}: the pay link`);
    assert.doesNotMatch(markup, /part="qr"/);
  }
  const direct = await renderCheckout(bill, { token: 't', now, payUrl: null });
  assert.ok(direct.includes(`<a part="pay-button" class="primary" href="${href}">`), 'payUrl: null, billUrl itself');
  // One byte below the capacity still draws the QR code.
  const fits = { ...bill, billUrl: `https://pay.example/${'a'.repeat(QR_MAX_BYTES - 20)}` };
  assert.equal(qrBytes(fits.billUrl), QR_MAX_BYTES);
  const drawn = await renderCheckout(fits, { token: 't', now });
  assert.match(drawn, / mode="qr" locale="en">/);
  assert.match(drawn, /<svg part="qr" role="img" aria-label="Payment QR code" viewBox="0 0 185 185"/);
});

/** A harness whose service answers the next creates with `billUrl` (the rest of its answer as it was). */
async function withBillUrl(t: Parameters<typeof startHarness>[0]): Promise<{ h: Harness; next: (url: string | null) => void }> {
  let billUrl: string | null = null;
  const h = await startHarness(t, {
    upstreamHttp: (real): HttpClient => async (url, request) => {
      const res = await real(url, request);
      if (billUrl === null || !new URL(url).pathname.endsWith('/v1/bill/create')) return res;
      const text = await res.text();
      const answer = JSON.parse(text) as { data?: { billUrl?: string } };
      const given = answer.data?.billUrl;
      assert.ok(given, `a create answer with a billUrl: ${text.slice(0, 200)}`);
      const rewritten = text.replace(JSON.stringify(given), JSON.stringify(billUrl));
      return { status: res.status, headers: res.headers, text: async () => rewritten };
    },
  });
  return { h, next: (url) => void (billUrl = url) };
}

function routes(h: Harness, bill: CreatedBillView) {
  const q = `token=${encodeURIComponent(bill.token)}`;
  const base = `/api/bills/${encodeURIComponent(bill.billId)}`;
  return {
    html: (query = '') => h.request(`${base}/checkout.html?${q}${query}`),
    image: (name: 'qr.svg' | 'qr.png') => h.request(`${base}/${name}?${q}`),
  };
}

const errorLines = (h: Harness) => h.logs.filter((line) => (JSON.parse(line) as { level: string }).level === 'error');

test('over HTTP: a non-ASCII billUrl too long for a QR code is taken; checkout.html shows its pay link, qr.svg and qr.png answer 404 qr_too_long; no 500, no error line', async (t) => {
  const { h, next } = await withBillUrl(t);
  const long = `https://pay.example/${'é'.repeat(1000)}`;
  next(long);
  const bill = await h.create({ amount: '12.50' });
  assert.equal(bill.billUrl, long, 'the create takes it: the bill is payable through its link');
  const href = new URL(long).href;
  assert.equal(qrBytes(href), 6020);
  const read = await h.request(`/api/bills/${encodeURIComponent(bill.billId)}?token=${encodeURIComponent(bill.token)}`);
  assert.equal(read.status, 200);

  const r = routes(h, bill);
  const payLink = `${h.url}/api/bills/${encodeURIComponent(bill.billId)}/pay?token=${encodeURIComponent(bill.token)}`;
  for (const query of ['', '&mode=qr', '&mode=button', '&locale=id']) {
    const res = await r.html(query);
    assert.equal(res.status, 200, `checkout.html?…${query}`);
    const body = await res.text();
    assert.match(body, / mode="button" locale="[a-z]+">/, query);
    assert.ok(body.includes(`<a part="pay-button" class="primary" href="${payLink}">`), `${query}: the pay link`);
    assert.doesNotMatch(body, /part="qr"/, query);
  }
  const pay = await h.request(payLink.slice(h.url.length));
  assert.deepEqual([pay.status, pay.headers.get('location')], [303, href], 'the pay link leads to billUrl');
  for (const name of ['qr.svg', 'qr.png'] as const) {
    const res = await r.image(name);
    assert.equal(res.status, 404, name);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/, name);
    assert.equal(res.headers.get('cache-control'), 'no-store', `${name}: the refusal is not cached as an image`);
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'qr_too_long', name);
    assert.match(body.error.message, /too long for a QR code \(6020 bytes encoded, at most 2331\)/);
  }
  assert.deepEqual(errorLines(h), [], 'no error line');

  // The same BFF, a bill of a normal URL: the QR code is drawn.
  next(null);
  const normal = await h.create({ amount: '13' });
  const n = routes(h, normal);
  const page = await (await n.html()).text();
  assert.match(page, / mode="qr" locale="en">/);
  assert.match(page, /<svg part="qr" role="img"/);
  const svg = await n.image('qr.svg');
  assert.equal(svg.status, 200);
  assert.equal(svg.headers.get('cache-control'), 'private, max-age=3600');
  assert.equal(await svg.text(), qrSvg(qrCode(normal.billUrl)));
  const png = await n.image('qr.png');
  assert.equal(png.status, 200);
  assert.equal(png.headers.get('content-type'), 'image/png');
  assert.deepEqual(errorLines(h), []);
});

test('over HTTP: the boundary is the capacity in bytes of what is encoded: 2,331 bytes draw a version 40 QR code, 2,332 do not', async (t) => {
  const { h, next } = await withBillUrl(t);
  const prefix = 'https://pay.example/';
  // 406 characters, 2,331 bytes once percent-encoded ('é' is written %C3%A9: 6 bytes).
  const at = `${prefix}${'é'.repeat(385)}a`;
  assert.equal(qrBytes(new URL(at).href), QR_MAX_BYTES);
  next(at);
  const fits = await h.create({ amount: '12.50' });
  const f = routes(h, fits);
  const svg = await f.image('qr.svg');
  assert.equal(svg.status, 200);
  assert.match(await svg.text(), /viewBox="0 0 185 185"/, 'version 40');
  assert.equal((await f.image('qr.png')).status, 200);
  assert.match(await (await f.html()).text(), /<svg part="qr" role="img" aria-label="Payment QR code" viewBox="0 0 185 185"/);

  next(`${at}b`);
  const over = await h.create({ amount: '12.50' });
  const o = routes(h, over);
  for (const name of ['qr.svg', 'qr.png'] as const) {
    const res = await o.image(name);
    assert.equal(res.status, 404, name);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'qr_too_long');
  }
  const page = await o.html('&mode=qr');
  assert.equal(page.status, 200);
  assert.match(await page.text(), /part="pay-button"/);
  assert.deepEqual(errorLines(h), []);
});
