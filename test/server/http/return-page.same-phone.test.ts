// The same-phone return for every bill (issue 43, item 3): a bill the merchant's server made (its
// create answer goes to a server, which keeps no cookie) and then showed to a browser marks that
// browser as the one that started it: the element's read, the server-rendered pay link (GET …/pay),
// the status page. Paid at the sandbox's pay page, that browser's return lands on RETURN_URL;
// another device (the phone that scanned the QR code, which says billUrl itself) still gets the
// other-device page. In development localhost and 127.0.0.1 are one host. Over real HTTP, with a
// browser's cookie jar: cookies by host name (not port) and path prefix, as browsers keep them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CreatedBillView } from '../../../contract/bill-view.js';
import { RETURN_PAGE_TEXTS } from '../../../server/http/return-page.js';
import { startHarness, TEST_TICKET_SECRET } from '../support/harness.js';
import type { Harness, HarnessOptions } from '../support/harness.js';

const RETURN_URL = 'https://shop.example/thanks';
const ORDERS: Record<string, { amount: string }> = { 'order-1': { amount: '42.00' }, 'order-2': { amount: '7.50' }, 'order-3': { amount: '9.00' } };

interface Visit {
  /** Every URL opened, in order (redirects followed). */
  urls: string[];
  /** The last answer on this machine, or null when the browser left it (a Location on another host). */
  res: Response | null;
  body: string;
  /** Where the browser went when it left this machine. */
  left: URL | null;
}

const LOCAL = new Set(['127.0.0.1', 'localhost']);

/** A browser: a cookie jar by host name (ports share cookies) and path prefix; follows redirects as a top-level navigation. */
function browser() {
  const jar = new Map<string, Map<string, string>>();
  const cookieFor = (url: URL) => [...(jar.get(url.hostname) ?? new Map<string, string>())]
    .filter(([key]) => {
      const path = key.slice(key.indexOf(' ') + 1);
      return url.pathname === path || url.pathname.startsWith(`${path.replace(/\/$/, '')}/`);
    })
    .map(([, pair]) => pair).join('; ');
  const keep = (url: URL, res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
      const cookies = jar.get(url.hostname) ?? new Map<string, string>();
      cookies.set(`${pair.split('=')[0]} ${path}`, pair);
      jar.set(url.hostname, cookies);
    }
  };
  return {
    /** The cookies it holds for a host, as `name=value path` lines. */
    cookies: (hostname: string) => [...(jar.get(hostname) ?? [])].map(([key, pair]) => `${pair} ${key.slice(key.indexOf(' ') + 1)}`),
    async open(start: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Visit> {
      const urls: string[] = [];
      let url = new URL(start);
      let request = init;
      for (let hop = 0; hop < 10; hop++) {
        urls.push(url.href);
        const cookie = cookieFor(url);
        const res = await fetch(url, {
          method: request.method ?? 'GET',
          redirect: 'manual',
          headers: { ...request.headers, ...(cookie ? { Cookie: cookie } : {}) },
          ...(request.body === undefined ? {} : { body: request.body }),
        });
        keep(url, res);
        const body = await res.text();
        const location = res.headers.get('location');
        if (res.status < 300 || res.status >= 400 || location === null) return { urls, res, body, left: null };
        const next = new URL(location, url);
        if (!LOCAL.has(next.hostname)) return { urls, res: null, body: '', left: next };
        url = next;
        request = {};
      }
      throw new Error(`too many redirects: ${urls.join(' → ')}`);
    },
  };
}
type Browser = ReturnType<typeof browser>;

async function start(t: Parameters<typeof startHarness>[0], env: Record<string, string> = {}, options: HarnessOptions = {}): Promise<Harness> {
  return startHarness(t, {
    env: { ORDER_TICKET_SECRET: TEST_TICKET_SECRET, RETURN_URL, ...env },
    hooks: { resolveOrder: async (orderId) => ORDERS[orderId] ?? null },
    ...options,
  });
}

/** The merchant's server makes the bill: a create with the order's ticket, from a server that keeps no cookie. */
async function serverMade(h: Harness, orderId: string): Promise<CreatedBillView> {
  const res = await fetch(`${h.url}/api/bills`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ orderId, orderTicket: await h.ticket(orderId) }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as CreatedBillView;
}

/** Pays at the sandbox's pay page (its form's POST), then follows the service's redirect back to the BFF's return. */
async function payAt(who: Browser, billUrl: string): Promise<Visit> {
  const page = await who.open(billUrl);
  assert.equal(page.res?.status, 200, 'the pay page');
  const action = /<form method="post" action="([^"]+\/pay[^"]*)"/.exec(page.body)?.[1];
  assert.ok(action, 'the pay form');
  return who.open(new URL(action.replace(/&amp;/g, '&'), billUrl).href, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' });
}

const readPath = (bill: CreatedBillView) => `/api/bills/${encodeURIComponent(bill.billId)}?token=${encodeURIComponent(bill.token)}`;

function landedOnReturnUrl(visit: Visit, bill: CreatedBillView, orderId: string): void {
  assert.ok(visit.left, `left for RETURN_URL: ${visit.urls.join(' → ')} answered ${visit.res?.status} ${visit.body.slice(0, 200)}`);
  assert.equal(`${visit.left.origin}${visit.left.pathname}`, RETURN_URL);
  assert.deepEqual(Object.fromEntries(visit.left.searchParams), { billId: bill.billId, orderId, outcome: 'paid' });
}

function otherDevicePage(visit: Visit): void {
  assert.equal(visit.res?.status, 200, visit.urls.join(' → '));
  assert.ok(visit.body.includes(RETURN_PAGE_TEXTS.en.back), 'go back to the device where you started');
  assert.ok(visit.body.includes(RETURN_PAGE_TEXTS.en.heading.paid));
}

test("a server-made bill read by the browser (the element's read): paid on that browser, it lands on RETURN_URL; the phone that scanned the QR code gets the other-device page", async (t) => {
  const h = await start(t, { ALLOWED_ORIGINS: 'https://shop.example' });
  const bill = await serverMade(h, 'order-1');
  const phone = browser();
  // The browser shown the bill: the element's first read, with the bill's token.
  const read = await phone.open(`${h.url}${readPath(bill)}`);
  assert.equal(read.res?.status, 200);
  assert.deepEqual(phone.cookies('127.0.0.1'), [`bc_started=1 /api/hooks/return/${bill.merchantReference}`]);
  // From a shop on another origin a browser keeps it from a read sent with credentials, which CORS allows.
  const cors = await fetch(`${h.url}${readPath(bill)}`, { headers: { Origin: 'https://shop.example' } });
  assert.deepEqual([cors.headers.get('access-control-allow-origin'), cors.headers.get('access-control-allow-credentials')], ['https://shop.example', 'true']);
  assert.match(cors.headers.get('set-cookie') ?? '', /^bc_started=1; Path=\/api\/hooks\/return\//);
  const back = await payAt(phone, bill.billUrl);
  assert.ok(back.urls.some((u) => u.includes(`/api/hooks/return/${bill.merchantReference}/`)), 'through the BFF\'s return');
  landedOnReturnUrl(back, bill, 'order-1');

  // A desktop shows the QR code of another bill (its read marks the desktop, not the phone); the phone scans it.
  const other = await serverMade(h, 'order-2');
  const desktop = browser();
  assert.equal((await desktop.open(`${h.url}${readPath(other)}`)).res?.status, 200);
  const qr = await fetch(`${h.url}/api/bills/${encodeURIComponent(other.billId)}/qr.svg?token=${encodeURIComponent(other.token)}`);
  assert.equal(qr.headers.get('set-cookie'), null, 'the QR code marks no one');
  const scanned = browser();
  otherDevicePage(await payAt(scanned, other.billUrl));
  assert.deepEqual(scanned.cookies('127.0.0.1'), []);
});

test('without JavaScript: the server-rendered pay link goes through the BFF, which marks the browser and sends it to billUrl; its return lands on RETURN_URL', async (t) => {
  const h = await start(t, { RETURN_OTHER_DEVICE_URL: 'https://shop.example/paid-elsewhere' });
  const bill = await serverMade(h, 'order-1');
  // The merchant's server puts the fragment in its page (as PHP or Python would fetch it).
  const fragment = await (await fetch(`${h.url}/api/bills/${encodeURIComponent(bill.billId)}/checkout.html?token=${encodeURIComponent(bill.token)}&mode=button`)).text();
  const href = /<a part="pay-button" class="primary" href="([^"]+)"/.exec(fragment)?.[1]?.replace(/&#38;/g, '&');
  assert.equal(href, `${h.url}/api/bills/${encodeURIComponent(bill.billId)}/pay?token=${encodeURIComponent(bill.token)}`);

  const phone = browser();
  const pay = await phone.open(href);
  assert.equal(pay.urls[1], bill.billUrl, 'the pay link leads to billUrl');
  assert.equal(pay.res?.status, 200, 'the pay page');
  assert.deepEqual(phone.cookies('127.0.0.1'), [`bc_started=1 /api/hooks/return/${bill.merchantReference}`]);
  landedOnReturnUrl(await payAt(phone, bill.billUrl), bill, 'order-1');

  // The phone that scanned the QR code of the same kind of page is another device.
  const other = await serverMade(h, 'order-2');
  const scanned = browser();
  const elsewhere = await payAt(scanned, other.billUrl);
  assert.equal(`${elsewhere.left?.origin}${elsewhere.left?.pathname}`, 'https://shop.example/paid-elsewhere');
  assert.equal(elsewhere.left?.searchParams.get('device'), 'other');

  // Paid: the pay link now answers the status page (nothing to pay twice), and still only with the token.
  const again = await phone.open(href);
  assert.deepEqual([again.res?.status, again.urls.length], [200, 1]);
  assert.match(again.body, /data-outcome="paid"/);
  const stranger = browser();
  for (const path of [`/api/bills/${encodeURIComponent(bill.billId)}/pay?token=wrong`, `/api/bills/${encodeURIComponent(bill.billId)}/pay`, `${readPath(bill)}x`]) {
    const refused = await stranger.open(`${h.url}${path}`);
    assert.equal(refused.res?.status, 404, path);
  }
  assert.deepEqual(stranger.cookies('127.0.0.1'), [], 'no mark without the token');
});

test('the status page (the no-script status link) marks its browser too', async (t) => {
  const h = await start(t);
  const bill = await serverMade(h, 'order-3');
  const phone = browser();
  const page = await phone.open(`${h.url}/api/bills/${encodeURIComponent(bill.billId)}/status.html?token=${encodeURIComponent(bill.token)}`);
  assert.equal(page.res?.status, 200);
  landedOnReturnUrl(await payAt(phone, bill.billUrl), bill, 'order-3');
});

test('development: a shop opened at localhost while PUBLIC_URL says 127.0.0.1 — the return looks once on the name the bill was shown on', async (t) => {
  // RETURN_URL by default: PUBLIC_URL/, answered on the name the shop was opened at.
  const h = await startHarness(t, { env: { ORDER_TICKET_SECRET: TEST_TICKET_SECRET }, hooks: { resolveOrder: async (orderId) => ORDERS[orderId] ?? null } });
  assert.match(h.config.publicUrl, /^http:\/\/127\.0\.0\.1:/);
  const local = h.url.replace('127.0.0.1', 'localhost');
  const bill = await serverMade(h, 'order-1');
  const phone = browser();
  assert.equal((await phone.open(`${local}${readPath(bill)}`)).res?.status, 200);
  assert.deepEqual(phone.cookies('127.0.0.1'), []);
  assert.equal(phone.cookies('localhost').length, 1, 'the mark is on the name the shop used');

  const back = await payAt(phone, bill.billUrl);
  const returns = back.urls.filter((u) => u.includes('/api/hooks/return/'));
  assert.equal(returns.length, 2, returns.join(' → '));
  assert.equal(new URL(returns[0]!).hostname, '127.0.0.1', "the service's redirect: PUBLIC_URL");
  assert.equal(new URL(returns[1]!).hostname, 'localhost', 'once more, on the name the bill was shown on');
  assert.equal(new URL(returns[1]!).pathname, new URL(returns[0]!).pathname);
  // PUBLIC_URL/ is this machine: followed here, it is the shop's own name with the bill and its outcome.
  const landed = new URL(back.urls.at(-1)!);
  assert.equal(`${landed.origin}${landed.pathname}`, `${local}/`);
  assert.deepEqual(Object.fromEntries(landed.searchParams), { billId: bill.billId, orderId: 'order-1', outcome: 'paid' });

  // Another device (no mark on either name) looks there too, and is told the outcome there.
  const stranger = browser();
  const other = await stranger.open(returns[0]!);
  assert.deepEqual(other.urls.map((u) => new URL(u).hostname), ['127.0.0.1', 'localhost']);
  otherDevicePage(other);

  // The element's own create on that name, the same.
  const create = await phone.open(`${local}/api/bills`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"amount":"5"}' });
  assert.equal(create.res?.status, 201);
  const own = JSON.parse(create.body) as CreatedBillView;
  const ownLanded = new URL((await payAt(phone, own.billUrl)).urls.at(-1)!);
  assert.equal(`${ownLanded.origin}${ownLanded.pathname}`, `${local}/`);
  assert.deepEqual(Object.fromEntries(ownLanded.searchParams), { billId: own.billId, outcome: 'paid' });
  // A bill never shown on another name: no detour.
  const plain = await serverMade(h, 'order-2');
  const desk = browser();
  assert.equal((await desk.open(`${h.url}${readPath(plain)}`)).res?.status, 200);
  const scanned = await payAt(browser(), plain.billUrl);
  assert.equal(scanned.urls.filter((u) => u.includes('/api/hooks/return/')).length, 1);
  otherDevicePage(scanned);
});

test('production: PUBLIC_URL is the one name; a return on it without the mark gets the other-device page at once', async (t) => {
  const h = await start(t, { NODE_ENV: 'production' });
  const bill = await serverMade(h, 'order-1');
  const phone = browser();
  assert.equal((await phone.open(`${h.url.replace('127.0.0.1', 'localhost')}${readPath(bill)}`)).res?.status, 200);
  const back = await payAt(phone, bill.billUrl);
  assert.equal(back.urls.filter((u) => u.includes('/api/hooks/return/')).length, 1, 'no detour');
  otherDevicePage(back);
});
