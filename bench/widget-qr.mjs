// QR encoding of a 125-character URL in Chromium (median and p95 against the 1 ms budget), with the
// encoder exactly as bundled in dist/bill-checkout.js, after checking it matches qrcode's own output.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import { widgetBuild } from '../scripts/build/widget-config.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const budgetMs = 1;
const url = `https://pay.example/bill/${'a1B2c3D4e5'.repeat(10)}`;

const { outputFiles } = await esbuild.build({
  ...widgetBuild,
  stdin: { contents: "export { qrPath } from './widget/qr-code.ts';", resolveDir: root, loader: 'ts' },
  format: 'iife', globalName: 'qr', legalComments: 'none', write: false,
});
const bundle = outputFiles[0].text;

// The trimmed encoder must draw what qrcode's full core draws.
const bundled = new Function(`${bundle}; return qr;`)();
const { create } = require('qrcode/lib/core/qrcode.js');
const reference = (text) => {
  const { size, data } = create([{ data: text, mode: 'byte' }], { errorCorrectionLevel: 'M' }).modules;
  let d = '';
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (!data[y * size + x]) continue;
      let run = 1;
      while (x + run < size && data[y * size + x + run]) run++;
      d += `M${x + 4} ${y + 4}h${run}v1h-${run}z`;
      x += run;
    }
  }
  return d;
};
let mismatches = 0;
for (let n = 1; n <= 1500; n += 7) {
  const text = `https://pay.example/${'é9xQ'.repeat(n).slice(0, n)}`;
  if (bundled.qrPath(text).d !== reference(text)) mismatches++;
}
console.log(`widget.qr_reference_mismatches ${mismatches}`);

// Cross-origin isolation gives performance.now() microsecond resolution.
const server = createServer((_req, res) => {
  res.writeHead(200, {
    'content-type': 'text/html',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-embedder-policy': 'require-corp',
  });
  res.end(`<!doctype html><script>${bundle}</script>`);
}).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  const result = await page.evaluate((text) => {
    const times = [];
    for (let i = 0; i < 200; i++) globalThis.qr.qrPath(text);
    for (let i = 0; i < 2000; i++) {
      const start = globalThis.performance.now();
      globalThis.qr.qrPath(text);
      times.push(globalThis.performance.now() - start);
    }
    times.sort((a, b) => a - b);
    return { isolated: globalThis.crossOriginIsolated, median: times[1000], p95: times[1900], size: globalThis.qr.qrPath(text).size };
  }, url);
  console.log(`widget.qr_url_chars ${url.length}`);
  console.log(`widget.qr_modules_with_quiet_zone ${result.size}`);
  console.log(`widget.qr_timer_isolated ${result.isolated ? 1 : 0}`);
  console.log(`widget.qr_encode_median_ms ${result.median.toFixed(3)}`);
  console.log(`widget.qr_encode_p95_ms ${result.p95.toFixed(3)}`);
  console.log(`widget.qr_budget_ms ${budgetMs}`);
  if (mismatches > 0) throw new Error('the bundled QR encoder differs from qrcode');
  if (result.median > budgetMs) throw new Error(`QR encoding median ${result.median} ms is over ${budgetMs} ms`);
} catch (error) {
  console.error(error.message);
  process.exitCode = 1;
} finally {
  await browser.close();
  server.close();
}
