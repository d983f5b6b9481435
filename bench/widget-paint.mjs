// <bill-checkout> in Chromium against a real BFF and sandbox (in this process, on loopback): time
// from the create response arriving (resource timing responseEnd) to the QR painted, and from the
// paid SSE message arriving to the final state painted. "Painted": the part is in the DOM, then a
// requestAnimationFrame, then the task after it (the frame has been produced). Median and p95.
import { existsSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { pick, quantile, report } from './lib/common.mjs';
import { startBff } from './lib/bff.mjs';
import { startSandbox } from './lib/sandbox.mjs';
import { buildWidget, widgetFile } from '../scripts/build/widget.mjs';

const runs = pick(30, 6);
if (!existsSync(widgetFile)) await buildWidget();
const bundle = readFileSync(widgetFile);

const page = `<!doctype html><meta charset="utf-8"><body><script type="module">
import '/bill-checkout.js';
const afterPaint = () => new Promise((resolve) => requestAnimationFrame(() => {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => resolve(performance.now());
  channel.port2.postMessage(0);
}));
const whenPart = (root, selector) => new Promise((resolve) => {
  if (root.querySelector(selector)) return resolve(performance.now());
  const observer = new MutationObserver(() => {
    if (!root.querySelector(selector)) return;
    observer.disconnect();
    resolve(performance.now());
  });
  observer.observe(root, { childList: true, subtree: true, attributes: true });
});
window.runOnce = async (pay) => {
  sessionStorage.clear();
  performance.clearResourceTimings();
  let paidMessageAt = 0;
  class TimedEventSource extends EventSource {
    constructor(url) {
      super(url);
      this.addEventListener('status', (e) => {
        if (!paidMessageAt && e.data.includes('"outcome":"paid"')) paidMessageAt = performance.now();
      });
    }
  }
  const el = document.createElement('bill-checkout');
  el.mode = 'qr';
  el.amount = '12.50';
  el.eventSourceImpl = TimedEventSource;
  const created = new Promise((resolve) => el.addEventListener('bill-created', (e) => resolve(e.detail), { once: true }));
  document.body.append(el);
  await el.updateComplete;
  const qrInDom = whenPart(el.shadowRoot, '[part~="qr"]');
  const bill = await created;
  const qrDom = await qrInDom;
  const qrPainted = await afterPaint();
  const [entry] = performance.getEntriesByType('resource').filter((r) => r.name.endsWith('/api/bills') && r.initiatorType === 'fetch');
  const finalInDom = whenPart(el.shadowRoot, '[part~="heading"]');
  await pay(bill.billId);
  const finalDom = await finalInDom;
  const finalPainted = await afterPaint();
  el.remove();
  return {
    qrDom: qrDom - entry.responseEnd, qrPainted: qrPainted - entry.responseEnd,
    statusDom: finalDom - paidMessageAt, statusPainted: finalPainted - paidMessageAt,
  };
};
window.ready = true;
</script>`;

const sandbox = await startSandbox();
const bff = await startBff({
  upstreamUrl: sandbox.url,
  env: { ALLOWED_ORIGINS: '*' },
  mount(root) {
    root.get('/bench.html', (c) => c.html(page));
    root.get('/bill-checkout.js', (c) => c.body(bundle, 200, { 'content-type': 'text/javascript' }));
  },
});
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const tab = await browser.newPage();
  await tab.exposeFunction('payBill', (billId) => void sandbox.sandbox.pay(billId));
  await tab.goto(`${bff.url}/bench.html`);
  await tab.waitForFunction(() => globalThis.ready === true);
  const results = [];
  await tab.evaluate(() => globalThis.runOnce(globalThis.payBill));
  for (let i = 0; i < runs; i++) results.push(await tab.evaluate(() => globalThis.runOnce(globalThis.payBill)));
  report('widget.paint.runs', runs, 'count');
  for (const [key, name] of [['qrDom', 'create_to_qr_dom'], ['qrPainted', 'create_to_qr_painted'],
    ['statusDom', 'event_to_dom'], ['statusPainted', 'event_to_painted']]) {
    const values = results.map((r) => r[key]);
    report(`widget.paint.${name}_median_ms`, quantile(values, 0.5), 'ms');
    report(`widget.paint.${name}_p95_ms`, quantile(values, 0.95), 'ms');
  }
  report('widget.paint.chromium_version', browser.version(), 'version');
} finally {
  await browser.close();
  await bff.close();
  await sandbox.close();
}
