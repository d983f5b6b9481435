// Size of the drop-in bundle against its budget, and what it is made of.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { onDemandDir } from '../scripts/build/on-demand.mjs';
import { buildWidget, widgetFile, widgetMetafile } from '../scripts/build/widget.mjs';

const budget = 16 * 1024;
if (!existsSync(widgetFile) || !existsSync(widgetMetafile)) await buildWidget();

const code = readFileSync(widgetFile);
const gzip = gzipSync(code, { level: 9 }).length;
const brotli = brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
console.log(`widget.raw_bytes ${code.length}`);
console.log(`widget.gzip_bytes ${gzip}`);
console.log(`widget.brotli_bytes ${brotli}`);
console.log(`widget.gzip_budget_bytes ${budget}`);
console.log(`widget.gzip_headroom_bytes ${budget - gzip}`);

// The modules the element fetches on demand beside it (languages, the native bridge): not in the budget.
for (const file of readdirSync(onDemandDir).sort()) {
  const name = file.replace(/-[0-9a-f]{10}\.js$/, '');
  console.log(`widget.on_demand.${name}_gzip_bytes ${gzipSync(readFileSync(`${onDemandDir}/${file}`), { level: 9 }).length}`);
}

// Shares of the minified bytes, from esbuild's metafile.
const meta = JSON.parse(readFileSync(widgetMetafile, 'utf8'));
const output = Object.values(meta.outputs).find((o) => o.entryPoint);
const groups = { lit: 0, qr: 0, own: 0 };
for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
  const group = /qrcode|qr-stub|dijkstra/.test(input) ? 'qr' : /node_modules\/(lit|@lit|lit-html|lit-element)\//.test(input) ? 'lit' : 'own';
  groups[group] += bytesInOutput;
}
const total = Object.values(groups).reduce((a, b) => a + b, 0);
for (const [group, bytes] of Object.entries(groups)) {
  console.log(`widget.share.${group}_min_bytes ${bytes}`);
  console.log(`widget.share.${group}_pct ${((100 * bytes) / total).toFixed(1)}`);
}

if (gzip > budget) {
  console.error(`dist/bill-checkout.js is ${gzip} bytes gzip, over the ${budget}-byte budget`);
  process.exit(1);
}
