// Issue 17, part 2: the drop-in on a phone, side by side. Chromium as a mid-range phone (150 ms RTT,
// 1.6 Mbps down, 750 kbps up, CPU 4x slower, a 412 × 823 touch screen: bench/lib/phone-browser.mjs),
// a fresh context (cold cache) per visit, against the real BFF and sandbox on loopback.
//
// 1. Navigation → QR painted (mode="qr") and → pay button ready (no mode: the phone gets the
//    button), on the script-tag page (bench/pages/pages.mjs, 'script-tag': the server mints an order
//    and its ticket into the HTML; the element creates the bill) and on a page whose server created
//    the bill while rendering it ('pre-created': `bill-id` + `token`; the element reads it). Breakdown, each
//    from the end of the one before: html (the document's responseEnd), script (bill-checkout.js's
//    responseEnd), define (the custom element defined: evaluation), create or read (the API answer's
//    responseEnd), render (painted); and, from the same untraced visits, the page's long tasks
//    (PerformanceObserver 'longtask'): the longest from the element's script arriving to its part
//    painted, and the page's Total Blocking Time. Issue 34: a third page, 'server-rendered', whose
//    bill was created before the visit (the merchant's server holds it) and whose server puts
//    renderCheckout's markup (the package's dist/server build) in the HTML, the drop-in's script
//    after it; beside it in the same rounds the page alone (no checkout), the ratio read against it,
//    the layout shifts through the element's take-over, and the script bytes received before the paint.
// 2. The cost to a merchant page of each embeddable checkout, same profile, same run: <bill-checkout>
//    (the pre-created page, mode="qr") against @adyen/adyen-web (core + PayNow), @getalby/bitcoin-connect
//    (pay button + payment modal) and bitcoin-qr, bundled and served by bench/lib/phone-peers.mjs.
//    Bytes on the wire after the page (headers included), script time (the main thread's JavaScript
//    in a trace, microtasks included), Total Blocking Time (sum over long tasks of duration − 50 ms,
//    PerformanceObserver 'longtask'), the longest main-thread task from the checkout's code arriving
//    to its part painted (the trace's tasks, below 50 ms too), defined and rendered times; each peer's
//    ratio to ours. A page without a checkout gives the floor: a fresh renderer's own first layout.
//    The floor under ours (bench/pages/lit-qr-floor.ts: Lit and the QR encoder, which DESIGN puts in
//    the drop-in, in the least element, on the same pre-created page) says what bounds the bytes
//    goal and the pre-created one: the room it leaves under each, and what ours takes beyond it.
//    Script time, main-thread time and the longest task come from traced visits (DevTools' timeline
//    categories, which slow each JavaScript call), everything else from untraced ones, alternating.
// Goals (issue 17): QR painted ≤ 900 ms median on the script-tag page, ≤ 600 ms with a pre-created
// bill; ours ≤ 1/3 of the bytes and of the blocking time of the smallest peer (fewest bytes); no
// long task (> 50 ms) of the element from its script to its QR painted (p95, untraced, script tag).
// Issue 44 item 6: the server-rendered page's take-over blocks no more than the pre-created page's
// element: the blocking time from the element's script arriving (both sections; the cost section
// through its take-over painted and the settle time after it) printed for the three pages, and the
// goal phone.server_rendered.takeover_tbt_median_minus_pre_created_ms (a difference, in ms, of the
// cost section's medians: ≤ 0); beside it the same windows' main-thread CPU time (traced visits,
// `main_thread_cpu_from_code`, `longest_task_cpu_from_code`: what was computed, which other work
// on the machine does not lengthen as it does a task's duration), server-rendered ÷ pre-created.
// Visits alternate between variants (round-robin), so that noise from other work on the machine
// spreads over all of them. Median and p95 over `runs` visits each.
// While iterating: BENCH_PHONE_ONLY=takeover visits only our three pages (navigation: both views;
// cost: the page alone, pre-created and server-rendered; no peers, no floor), BENCH_PHONE_RUNS=n
// sets the visits per variant, and BENCH_PHONE_BASELINE=path/to/bill-checkout.js adds, in the same
// rounds, the pre-created and server-rendered pages with that drop-in instead (`*_baseline`): a
// change and what it replaced, side by side on one machine. BENCH_PHONE_TRACE_DIR=dir writes each
// traced visit's trace there (<variant>-<visit>.json, for DevTools' performance panel), with a CPU
// profile of the page's JavaScript in it (which slows the traced figures further).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { goal, pick, quantile, report } from './lib/common.mjs';
import { startBff } from './lib/bff.mjs';
import { request } from './lib/client.mjs';
import { listen } from './lib/listen.mjs';
import { launchChromium, profile, visit } from './lib/phone-browser.mjs';
import { mountFloor } from './lib/phone-floor.mjs';
import { bundlePeers, pageAnswer, startPeerServer } from './lib/phone-peers.mjs';
import { pages } from './pages/pages.mjs';
import { startSandbox } from './lib/sandbox.mjs';
import { importServer } from './lib/server-modules.mjs';
import { build } from '../scripts/build.mjs';
import { buildWidget, widgetFile } from '../scripts/build/widget.mjs';

const runs = Number(process.env.BENCH_PHONE_RUNS) || pick(20, 3);
const only = process.env.BENCH_PHONE_ONLY === 'takeover' ? 'takeover' : null;
const baselineFile = process.env.BENCH_PHONE_BASELINE;
const traceDir = process.env.BENCH_PHONE_TRACE_DIR;
if (traceDir) mkdirSync(traceDir, { recursive: true });
// The pre-created page's goal, which the floor's figures below are also read against.
const preCreatedGoalMs = 600;
// Long tasks a checkout leaves for after its first paint (analytics, polling set-up) still block
// the merchant's page: each visit waits this fixed time after the paint before it is read.
const settleMs = 1000;

const root = new URL('../', import.meta.url);
// renderCheckout as the package ships it (bill-checkout/server: the card's CSS minified by the build).
const serverEntry = new URL('dist/server/server/index.js', root);
if (!existsSync(serverEntry)) await build();
else if (!existsSync(widgetFile)) await buildWidget();
const [{ staticFiles }, { orderTicket }, { renderCheckout }, { qrCode, qrSvg }] = await Promise.all([
  importServer('server/process/static-files.ts'),
  importServer('server/domain/orders/order-ticket.ts'),
  import(serverEntry.href),
  importServer('server/http/render/qr-images.ts'),
]);
// Issue 34's goals: the server-rendered page's QR painted (and pay button ready) at most this, and within
// this ratio of the page alone measured in the same run.
const serverRenderedGoalMs = 450;
const pageAloneRatioGoal = 1.1;

// The merchant's side: its order service (ORDER_LOOKUP_URL: every order costs 12.50) and the secret
// its page server mints order tickets with.
const orders = await listen(() => globalThis.Response.json({ amount: '12.50' }));
const ticketSecret = randomBytes(32).toString('base64url');
const sandbox = await startSandbox();

let orderCount = 0;
// The server-rendered page's bills, created before the visit (issue 34's "pre-created bill": the
// merchant's server has the bill when the page is asked for), by the key in the page's URL.
const heldBills = new Map();

/** The merchant's server creates the bill of a new order through the BFF's API. */
async function createBill() {
  const orderId = `phone-${++orderCount}-${randomBytes(4).toString('hex')}`;
  const ticket = await orderTicket(orderId, ticketSecret, 15 * 60_000);
  const { status, body } = await request(`${bff.url}/api/bills`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': orderId },
    body: JSON.stringify({ orderId, orderTicket: ticket }),
  });
  if (status !== 201) throw new Error(`the page's create answered ${status}: ${body}`);
  return { orderId, bill: JSON.parse(body) };
}

/** The URL of `page` (a route below) for a bill created now, before the navigation (untimed). */
async function heldBillUrl(page, query = '') {
  const { orderId, bill } = await createBill();
  heldBills.set(orderId, bill);
  return `${bff.url}/phone/${page}.html?${query}bill=${encodeURIComponent(orderId)}`;
}
const serverRenderedUrl = (view) => heldBillUrl('server-rendered', `mode=${view}&`);

/** The bill a held-bill URL names, taken out of the held ones (each is visited once), or undefined. */
function takeHeldBill(c) {
  const key = c.req.query('bill') ?? '';
  const bill = heldBills.get(key);
  heldBills.delete(key);
  return bill;
}

let staticsReady;
let floorReady;
let baselineRoot;
let baselineReady;
/** A page's HTML with the baseline drop-in in place of ours when the URL asks for it (`baseline=1`). */
const withScript = (c, html) => (c.req.query('baseline') ? html.replace('src="/bill-checkout.js"', 'src="/baseline/bill-checkout.js"') : html);
const bff = await startBff({
  upstreamUrl: sandbox.url,
  env: { ORDER_TICKET_SECRET: ticketSecret, ORDER_LOOKUP_URL: `${orders.url}/orders` },
  mount(app) {
    // The element as `npm start` serves it (brotli or gzip as the browser asks, ETag, CORS).
    staticsReady = staticFiles(app, { root: root.pathname, config: { allowedOrigins: ['*'] }, demoOrders: null });
    // The floor under it (Lit and the QR encoder alone), served the same way at /floor/bill-checkout.js.
    floorReady = mountFloor(app, { allowedOrigins: ['*'] });
    // Another drop-in (BENCH_PHONE_BASELINE), served the same way at /baseline/bill-checkout.js.
    if (baselineFile) {
      baselineRoot = mkdtempSync(join(tmpdir(), 'bench-baseline-'));
      mkdirSync(join(baselineRoot, 'dist'));
      writeFileSync(join(baselineRoot, 'dist/bill-checkout.js'), readFileSync(baselineFile));
      const baseline = new Hono();
      baselineReady = staticFiles(baseline, { root: baselineRoot, config: { allowedOrigins: ['*'] }, demoOrders: null });
      app.route('/baseline', baseline);
    }
    // The merchant's pages, rendered per visit as its server would (a fresh order and its ticket) and
    // compressed as its web server would, as the page alone and the peers' pages are.
    for (const page of ['script-tag', 'pre-created', 'lit-qr-floor']) {
      app.get(`/phone/${page}.html`, async (c) => {
        const mode = c.req.query('mode') === 'qr' ? 'qr' : undefined;
        if (page === 'script-tag') {
          const orderId = `phone-${++orderCount}-${randomBytes(4).toString('hex')}`;
          return pageAnswer(c.req.raw, pages[page]({ orderId, orderTicket: await orderTicket(orderId, ticketSecret, 15 * 60_000), mode }));
        }
        // The server creates the bill through the BFF's API while it renders the page (issue 17's pre-created page).
        const { bill: { billId, token } } = await createBill();
        return pageAnswer(c.req.raw, withScript(c, pages[page]({ billId, token, mode })));
      });
    }
    // Issue 34: the bill was created before the page was asked for; the page's server draws it with
    // renderCheckout in its own process (README, "A checkout in the first HTML", the Node form): a
    // phone gets the pay button.
    app.get('/phone/server-rendered.html', async (c) => {
      const bill = takeHeldBill(c);
      if (!bill) return c.text('no such bill', 404);
      const checkout = await renderCheckout(bill, { token: bill.token, mode: c.req.query('mode') === 'qr' ? 'qr' : 'button', locale: 'en' });
      return pageAnswer(c.req.raw, withScript(c, pages['server-rendered']({ checkout })));
    });
    // The floor under it: the same bill's QR code as the server draws it (15rem wide, as the card's
    // is on a phone), alone in the page.
    app.get('/phone/qr-in-html.html', (c) => {
      const bill = takeHeldBill(c);
      if (!bill) return c.text('no such bill', 404);
      return pageAnswer(c.req.raw, pages['qr-in-html']({ svg: qrSvg(qrCode(bill.billUrl), 240) }));
    });
  },
});
await staticsReady;
await baselineReady;
const floor = await floorReady;

const unknownRequests = [];
// The page alone is the peers' server's: started with no peer bundled in the narrowed run.
const peerServer = await startPeerServer(only ? new Map() : await bundlePeers(), (what) => unknownRequests.push(what));
const browser = await launchChromium();

/**
 * `runs` visits of each variant ({ name, url or prepare() (resolves to the URL), probe, trace? }), interleaved, after one round that
 * is not counted (it warms the BFF's and the sandbox's code and the machine's file cache, not the
 * browser: each visit has a fresh context); `settle` is the probe's settleMs. Resolves to
 * { [variant name]: [figures of each visit] }.
 */
async function roundRobin(variants, settle = 0) {
  const results = Object.fromEntries(variants.map(({ name }) => [name, []]));
  for (let i = -1; i < runs; i++) {
    for (const variant of variants) {
      const url = variant.prepare ? await variant.prepare() : variant.url;
      const figures = await visit(browser, url, {
        trace: variant.trace, probe: { ...variant.probe, settleMs: settle },
        ...traceDir && variant.trace ? { traceCategories: ['disabled-by-default-v8.cpu_profiler', 'disabled-by-default-devtools.timeline'], rawTrace: true } : {},
      });
      if (figures.trace) {
        if (i >= 0) writeFileSync(join(traceDir, `${variant.name}-${i}.json`), JSON.stringify(figures.trace));
        delete figures.trace;
      }
      if (i >= 0) results[variant.name].push(figures);
    }
  }
  return results;
}

const medianAndP95 = (name, values, unit = 'ms') => {
  report(`${name}_median_${unit}`, quantile(values, 0.5), unit);
  report(`${name}_p95_${unit}`, quantile(values, 0.95), unit);
};
const blocking = (longTasks) => longTasks.reduce((sum, t) => sum + Math.max(0, t.duration - 50), 0);
const script = (r) => r.resources.find((e) => e.name.endsWith('/bill-checkout.js'));
const scriptEnd = (r) => script(r).responseEnd;
// The API's answer: the element's fetch, or the page's preload of it (initiator 'link') that the fetch took.
const apiEnd = (r) => r.resources.find((e) => (e.initiatorType === 'fetch' || e.initiatorType === 'link') && e.name.includes('/api/bills')).responseEnd;
/** When the element had both its definition and the bill: a preloaded answer can come before the script. */
const billReadyAt = (r) => Math.max(apiEnd(r), r.definedAt);

try {
  report('phone.runs', runs, 'count');
  report('phone.profile.rtt_ms', profile.latencyMs, 'ms');
  report('phone.profile.down_kbps', profile.downloadBitsPerSecond / 1000, 'kbps');
  report('phone.profile.up_kbps', profile.uploadBitsPerSecond / 1000, 'kbps');
  report('phone.profile.cpu_slowdown', profile.cpuSlowdown, 'x');
  report('phone.chromium_version', browser.version(), 'version');

  // 1. Navigation to the QR painted and to the pay button ready.
  const views = { qr: { selector: '[part~="qr"]', end: 'nav_to_painted' }, button: { selector: '[part~="pay-button"]', end: 'nav_to_ready' } };
  const pageFiles = { script_tag: 'script-tag', pre_created: 'pre-created', server_rendered: 'server-rendered' };
  // The same page with no checkout, in the same rounds: what the server-rendered page is read against.
  const variants = [
    { name: 'page_alone', url: `${peerServer.url}/page-alone.html`, probe: { selector: 'main > p' } },
    // Issue 34's floor, in the same rounds: a QR code in the HTML and nothing else of a checkout.
    { name: 'qr_in_html', prepare: () => heldBillUrl('qr-in-html'), probe: { selector: 'main > svg' } },
  ];
  // With BENCH_PHONE_BASELINE: the pre-created and server-rendered pages with the other drop-in too.
  if (baselineFile) Object.assign(pageFiles, { pre_created_baseline: 'pre-created', server_rendered_baseline: 'server-rendered' });
  for (const [page, file] of Object.entries(pageFiles)) {
    const serverRenderedPage = file === 'server-rendered';
    const baseline = page.endsWith('_baseline') ? 'baseline=1&' : '';
    for (const [view, { selector }] of Object.entries(views)) {
      const mode = view === 'qr' ? 'qr' : 'auto';
      variants.push({
        name: `${page}.${view}`,
        ...serverRenderedPage
          ? { prepare: () => heldBillUrl('server-rendered', `${baseline}mode=${mode}&`) }
          : { url: `${bff.url}/phone/${file}.html?${baseline}mode=${mode}` },
        probe: { tag: 'bill-checkout', selector, takeOver: serverRenderedPage },
      });
    }
  }
  const navigation = await roundRobin(variants);
  const navMedians = {};
  const elementLongest = {};
  const pageAlone = navigation.page_alone;
  delete navigation.page_alone;
  navMedians.page_alone = quantile(pageAlone.map((r) => r.paintedAt), 0.5);
  medianAndP95('phone.page_alone.nav_to_painted', pageAlone.map((r) => r.paintedAt));
  medianAndP95('phone.page_alone.html', pageAlone.map((r) => r.htmlEnd));
  const qrInHtml = navigation.qr_in_html;
  delete navigation.qr_in_html;
  navMedians.qr_in_html = quantile(qrInHtml.map((r) => r.paintedAt), 0.5);
  medianAndP95('phone.qr_in_html.nav_to_painted', qrInHtml.map((r) => r.paintedAt));
  // What the 10 % goal leaves a checkout, read in this run: the bare QR code's own share of it.
  report('phone.qr_in_html.ratio_to_page_alone', navMedians.qr_in_html / navMedians.page_alone, 'ratio');
  // Issue 44 item 6: the blocking time of the long tasks that end after the element's script arrived
  // (its definition, read or create, render; on the server-rendered page its take-over), through
  // the element's part painted (the take-over painted, on the server-rendered page).
  const scriptTbt = (r) => blocking(r.longTasks.filter((t) => t.startTime + t.duration > scriptEnd(r)));
  for (const [name, results] of Object.entries(navigation)) {
    const [page, view] = name.split('.');
    const key = `phone.${name}`;
    medianAndP95(`${key}.tbt_from_script`, results.map(scriptTbt));
    const totals = results.map((r) => r.paintedAt);
    navMedians[name] = quantile(totals, 0.5);
    medianAndP95(`${key}.${views[view].end}`, totals);
    medianAndP95(`${key}.html`, results.map((r) => r.htmlEnd));
    // The server-rendered page paints its QR code from the HTML: no script, no read before it.
    medianAndP95(`${key}.cls`, results.map((r) => r.cls), 'score');
    medianAndP95(`${key}.script_bytes_before_painted`, results.map((r) => r.scriptBytesBefore), 'B');
    report(`${key}.script_bytes_before_painted_max`, Math.max(...results.map((r) => r.scriptBytesBefore)), 'B');
    report(`${key}.visits_with_script_bytes_before_painted`, results.filter((r) => r.scriptBytesBefore > 0).length, 'count');
    // Requests for a script that had started (not arrived) before the paint, in how many visits.
    report(`${key}.visits_with_script_requested_before_painted`, results.filter((r) => r.scriptsRequestedBefore > 0).length, 'count');
    if (page.startsWith('server_rendered')) {
      medianAndP95(`${key}.taken_over_at`, results.map((r) => r.takenOverAt));
      // Against the page alone, visited in the same rounds (medians).
      report(`${key}.ratio_to_page_alone`, navMedians[name] / navMedians.page_alone, 'ratio');
      // And against the floor: what the card around the QR code costs beyond the code itself.
      report(`${key}.ratio_to_qr_in_html`, navMedians[name] / navMedians.qr_in_html, 'ratio');
      continue;
    }
    medianAndP95(`${key}.script`, results.map((r) => scriptEnd(r) - r.htmlEnd));
    // When the script was asked for: after the parser met its tag, in a renderer that starts cold.
    medianAndP95(`${key}.script_requested_at`, results.map((r) => script(r).startTime));
    medianAndP95(`${key}.define`, results.map((r) => r.definedAt - scriptEnd(r)));
    // 0 when the answer was there before the definition (the pre-created page preloads its read).
    medianAndP95(`${key}.${page === 'script_tag' ? 'create' : 'read'}`, results.map((r) => billReadyAt(r) - r.definedAt));
    medianAndP95(`${key}.${page === 'script_tag' ? 'create' : 'read'}_answered_at`, results.map((r) => apiEnd(r)));
    medianAndP95(`${key}.render`, results.map((r) => r.paintedAt - billReadyAt(r)));
    // Without a trace (whose recording slows every call): the element's long tasks, from its script
    // arriving to its part painted, as the page's PerformanceObserver sees them (0: none over 50 ms).
    const longest = results.map((r) => Math.max(0, ...r.longTasks
      .filter((t) => t.startTime + t.duration > scriptEnd(r) && t.startTime < r.paintedAt).map((t) => t.duration)));
    elementLongest[name] = quantile(longest, 0.95);
    medianAndP95(`${key}.longest_long_task`, longest);
    medianAndP95(`${key}.tbt`, results.map((r) => blocking(r.longTasks)));
  }
  goal('phone.script_tag.qr.nav_to_painted_median_ms', navMedians['script_tag.qr'] <= 900, 900, 'ms');
  goal('phone.pre_created.qr.nav_to_painted_median_ms', navMedians['pre_created.qr'] <= preCreatedGoalMs, preCreatedGoalMs, 'ms');
  goal('phone.server_rendered.qr.nav_to_painted_median_ms', navMedians['server_rendered.qr'] <= serverRenderedGoalMs, serverRenderedGoalMs, 'ms');
  goal('phone.server_rendered.button.nav_to_ready_median_ms', navMedians['server_rendered.button'] <= serverRenderedGoalMs, serverRenderedGoalMs, 'ms');
  for (const view of ['qr', 'button']) {
    goal(`phone.server_rendered.${view}.ratio_to_page_alone`, navMedians[`server_rendered.${view}`] <= pageAloneRatioGoal * navMedians.page_alone, pageAloneRatioGoal, 'ratio');
  }
  const serverRendered = navigation['server_rendered.qr'].concat(navigation['server_rendered.button']);
  goal('phone.server_rendered.cls_max', Math.max(...serverRendered.map((r) => r.cls)) === 0, 0, 'score');
  goal('phone.server_rendered.script_bytes_before_painted_max', Math.max(...serverRendered.map((r) => r.scriptBytesBefore)) === 0, 0, 'B');
  goal('phone.script_tag.qr.longest_long_task_p95_ms', elementLongest['script_tag.qr'] <= 50, 50, 'ms');

  // 2. The cost of each checkout to the merchant's page, and of the page without one (its own first
  // layout and paint in a fresh renderer: what no checkout can take away).
  const contenders = [
    { name: 'page_alone', url: `${peerServer.url}/page-alone.html`, probe: { selector: 'main > p' } },
    { name: 'bill_checkout', url: `${bff.url}/phone/pre-created.html?mode=qr`, probe: { tag: 'bill-checkout', selector: '[part~="qr"]' } },
    // Issue 34: the checkout in the HTML (the QR painted before any script), then the drop-in; its bill
    // created before the visit. Read through its take-over painted and the settle time after it (issue 44).
    { name: 'server_rendered', prepare: () => serverRenderedUrl('qr'), probe: { tag: 'bill-checkout', selector: '[part~="qr"]', takeOver: true } },
    // The same page with the floor's script (Lit and the QR encoder alone): what is left to ours.
    { name: 'lit_qr_floor', url: `${bff.url}/phone/lit-qr-floor.html?mode=qr`, probe: { tag: 'bill-checkout', selector: '[part~="qr"]' } },
    // Its QR code is an image drawn by Adyen's server (stubbed here): painted once loaded.
    { name: 'adyen', peer: true, url: `${peerServer.url}/adyen.html`, probe: { mark: 'defined', selector: 'img[data-testid="paynow-qr-image"]' } },
    // On a narrow screen its payment modal shows buttons, the QR code only after a tap: its
    // "Open in a Bitcoin Wallet" link (lightning:) is what the customer pays from.
    { name: 'bitcoin_connect', peer: true, url: `${peerServer.url}/bitcoin-connect.html`, probe: { tag: 'bc-pay-button', selector: 'a[href^="lightning:"]' } },
    // qr-code-styling's SVG: the rect clipped by the QR's dots, added once they are drawn.
    { name: 'bitcoin_qr', peer: true, url: `${peerServer.url}/bitcoin-qr.html`, probe: { tag: 'bitcoin-qr', selector: 'svg rect[clip-path]' } },
  ];
  if (baselineFile) {
    contenders.push(
      { name: 'bill_checkout_baseline', url: `${bff.url}/phone/pre-created.html?baseline=1&mode=qr`, probe: { tag: 'bill-checkout', selector: '[part~="qr"]' } },
      { name: 'server_rendered_baseline', prepare: () => heldBillUrl('server-rendered', 'baseline=1&mode=qr&'), probe: { tag: 'bill-checkout', selector: '[part~="qr"]', takeOver: true } },
    );
  }
  // Narrowed (BENCH_PHONE_ONLY=takeover): ours and the page alone.
  if (only) contenders.splice(0, contenders.length, ...contenders.filter((c) => c.name === 'page_alone' || c.name.startsWith('bill_checkout') || c.name.startsWith('server_rendered')));
  // Each visited twice a round: untraced (bytes, blocking time, times) and traced (script, tasks).
  const costs = await roundRobin(contenders.flatMap((c) => [c, { ...c, name: `${c.name}.traced`, trace: true }]), settleMs);
  const summary = {};
  for (const { name } of contenders) {
    const results = costs[name];
    const traced = costs[`${name}.traced`];
    const key = `phone.cost.${name}`;
    // When the checkout's first code (script or stylesheet) arrived: before it, nothing is its doing.
    // (A stylesheet is a `link`; so is our page's preload of the bill, which is data, not code.)
    const codeAt = (r) => Math.min(...r.resources.filter((e) => e.initiatorType === 'script' || (e.initiatorType === 'link' && !e.name.includes('/api/bills')))
      .map((e) => e.responseEnd));
    const bytes = results.map((r) => r.responses.reduce((sum, x) => sum + (x.bytes ?? 0), 0));
    const code = results[0].responses.filter((x) => x.type === 'Script' || x.type === 'Stylesheet');
    const tbt = results.map((r) => blocking(r.longTasks.filter((t) => name === 'page_alone' || t.startTime >= codeAt(r))));
    // The longest task from its code arriving to its part painted: its definition and render.
    const longest = traced.map((r) => Math.max(0, ...r.tasks
      .filter((t) => t.start + t.duration > (name === 'page_alone' ? 0 : codeAt(r)) && t.start < r.paintedAt).map((t) => t.duration)));
    const scriptMs = traced.map((r) => r.scriptMs);
    // The main thread's CPU time from the checkout's code arriving to the visit's end (traced): the
    // work itself, which other work on the machine does not lengthen as it does the tasks' durations.
    const cpuFromCode = traced.map((r) => r.tasks.filter((t) => t.start >= (name === 'page_alone' ? 0 : codeAt(r))).map((t) => t.cpu));
    summary[name] = {
      bytes: quantile(bytes, 0.5), tbt: quantile(tbt, 0.5), tbtP95: quantile(tbt, 0.95), script: quantile(scriptMs, 0.5),
      cpuFromCode: quantile(cpuFromCode.map((cpu) => cpu.reduce((sum, c) => sum + c, 0)), 0.5),
      longestCpuFromCode: quantile(cpuFromCode.map((cpu) => Math.max(0, ...cpu)), 0.5),
      defined: quantile(results.map((r) => r.definedAt), 0.5), rendered: quantile(results.map((r) => r.paintedAt), 0.5),
    };
    report(`${key}.bytes_median`, summary[name].bytes, 'B');
    report(`${key}.requests`, results[0].responses.length, 'count');
    report(`${key}.code_bytes`, code.reduce((sum, x) => sum + (x.bytes ?? 0), 0), 'B');
    report(`${key}.code_files`, code.length, 'count');
    if (code.length) report(`${key}.code_encoding`, [...new Set(code.map((x) => x.encoding))].join('+'), 'encoding');
    medianAndP95(`${key}.script`, scriptMs);
    medianAndP95(`${key}.main_thread`, traced.map((r) => r.tasks.reduce((sum, t) => sum + t.duration, 0)));
    // The main thread's tasks from the navigation to the part painted (issue 34: what the renderer
    // does before the first paint, the page's own parse, style, layout and paint included).
    medianAndP95(`${key}.main_thread_before_painted`, traced.map((r) => r.tasks.filter((t) => t.start < r.paintedAt)
      .reduce((sum, t) => sum + Math.min(t.duration, r.paintedAt - t.start), 0)));
    medianAndP95(`${key}.tbt`, tbt);
    medianAndP95(`${key}.main_thread_cpu_from_code`, cpuFromCode.map((cpu) => cpu.reduce((sum, c) => sum + c, 0)));
    medianAndP95(`${key}.longest_task_cpu_from_code`, cpuFromCode.map((cpu) => Math.max(0, ...cpu)));
    medianAndP95(`${key}.longest_task`, longest);
    report(`${key}.longest_task_max_ms`, Math.max(...longest), 'ms');
    if (name !== 'page_alone') medianAndP95(`${key}.defined`, results.map((r) => r.definedAt));
    medianAndP95(`${key}.rendered`, results.map((r) => r.paintedAt));
  }
  // Issue 44 item 6: the server-rendered page's blocking time from its script through its take-over
  // and a second after it, against the pre-created page's from its script through its paint and a
  // second after it (the same count: PerformanceObserver's long tasks, untraced), as a difference.
  const takeoverTbt = (sr, pre, suffix = '') => {
    report(`phone.server_rendered.takeover_tbt${suffix}_median_ms`, summary[sr].tbt, 'ms');
    report(`phone.server_rendered.takeover_tbt${suffix}_p95_ms`, summary[sr].tbtP95, 'ms');
    report(`phone.pre_created.tbt${suffix}_median_ms`, summary[pre].tbt, 'ms');
    report(`phone.pre_created.tbt${suffix}_p95_ms`, summary[pre].tbtP95, 'ms');
    report(`phone.server_rendered.takeover_tbt${suffix}_p95_minus_pre_created_ms`, summary[sr].tbtP95 - summary[pre].tbtP95, 'ms');
    // The same windows' work in the thread's CPU time (traced visits), as ratios: what the take-over
    // computes against what the pre-created page's element computes, whatever else the machine ran.
    report(`phone.server_rendered.takeover_cpu${suffix}_ratio_to_pre_created`, summary[sr].cpuFromCode / summary[pre].cpuFromCode, 'ratio');
    report(`phone.server_rendered.takeover_longest_task_cpu${suffix}_ratio_to_pre_created`, summary[sr].longestCpuFromCode / summary[pre].longestCpuFromCode, 'ratio');
    const difference = summary[sr].tbt - summary[pre].tbt;
    report(`phone.server_rendered.takeover_tbt${suffix}_median_minus_pre_created_ms`, difference, 'ms');
    return difference;
  };
  if (baselineFile) takeoverTbt('server_rendered_baseline', 'bill_checkout_baseline', '_baseline');
  goal('phone.server_rendered.takeover_tbt_median_minus_pre_created_ms', takeoverTbt('server_rendered', 'bill_checkout') <= 0, 0, 'ms');
  // Issue 34: the server-rendered page against the page alone, measured in the same run.
  report('phone.cost.server_rendered.ratio_to_page_alone.rendered', summary.server_rendered.rendered / summary.page_alone.rendered, 'ratio');
  goal('phone.cost.server_rendered.ratio_to_page_alone.rendered', summary.server_rendered.rendered <= pageAloneRatioGoal * summary.page_alone.rendered, pageAloneRatioGoal, 'ratio');
  // The peers and the floor (not in the narrowed run).
  if (!only) {
    const peers = contenders.filter((c) => c.peer).map((c) => c.name);
    const ours = summary.bill_checkout;
    for (const peer of peers) {
      for (const figure of ['bytes', 'script', 'tbt', 'defined', 'rendered']) {
        // A blocking time of 0 ms makes no ratio: said as such.
        report(`phone.cost.${peer}.ratio_to_ours.${figure}`, ours[figure] > 0 ? summary[peer][figure] / ours[figure] : 'n/a', 'ratio');
      }
    }
    if (unknownRequests.length) report('phone.cost.unanswered_requests', [...new Set(unknownRequests)].join(','), 'list');

    const smallest = [...peers].sort((a, b) => summary[a].bytes - summary[b].bytes)[0];
    report('phone.cost.smallest_peer', smallest, 'name');
    report('phone.cost.bytes_ours_over_smallest_peer', ours.bytes / summary[smallest].bytes, 'ratio');
    goal('phone.cost.bytes_ours_over_smallest_peer', ours.bytes * 3 <= summary[smallest].bytes, 0.333, 'ratio');
    report('phone.cost.tbt_ours_over_smallest_peer', summary[smallest].tbt > 0 ? ours.tbt / summary[smallest].tbt : 'n/a', 'ratio');
    goal('phone.cost.tbt_ours_over_smallest_peer', ours.tbt * 3 <= summary[smallest].tbt, 0.333, 'ratio');
    // The goal reads "the smallest peer's bytes and blocking time": one peer. The peer that blocks
    // least may be another one; its ratio is said too.
    const leastBlocking = [...peers].sort((a, b) => summary[a].tbt - summary[b].tbt)[0];
    report('phone.cost.least_blocking_peer', leastBlocking, 'name');
    report('phone.cost.tbt_ours_over_least_blocking_peer', summary[leastBlocking].tbt > 0 ? ours.tbt / summary[leastBlocking].tbt : 'n/a', 'ratio');

    // What bounds the two goals: the room the floor leaves under each (negative: the floor alone
    // misses it), and what ours takes beyond the floor.
    const floorFigures = summary.lit_qr_floor;
    report('phone.floor.raw_bytes', floor.bytes, 'B');
    report('phone.floor.bytes_over_smallest_peer', floorFigures.bytes / summary[smallest].bytes, 'ratio');
    report('phone.floor.bytes_left_under_goal', Math.round(summary[smallest].bytes / 3 - floorFigures.bytes), 'B');
    report('phone.floor.ours_minus_floor_bytes', ours.bytes - floorFigures.bytes, 'B');
    report('phone.floor.ms_left_under_pre_created_goal', preCreatedGoalMs - floorFigures.rendered, 'ms');
    report('phone.floor.ours_minus_floor_rendered_ms', ours.rendered - floorFigures.rendered, 'ms');
  }
} finally {
  await browser.close();
  floor.close();
  if (baselineRoot) rmSync(baselineRoot, { recursive: true, force: true });
  await peerServer.close();
  await bff.close();
  await sandbox.close();
  await orders.close();
}
