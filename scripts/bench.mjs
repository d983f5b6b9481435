// npm run bench: every bench/*.mjs in order (building first when dist is missing); fails if one fails.
// `npm run bench -- fanout ingest` runs those whose name contains a word given; BENCH_QUICK=1
// shortens every run (a smoke test, not figures to record).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from './build.mjs';
import { widgetFile } from './build/widget.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(widgetFile)) await build();

const words = process.argv.slice(2);
const files = readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.mjs'))
  .filter((f) => words.length === 0 || words.some((w) => f.includes(w)))
  .sort();
if (files.length === 0) {
  console.error(`no bench matches ${words.join(', ')}`);
  process.exit(1);
}

const failed = [];
const began = Date.now();
for (const file of files) {
  console.log(`# bench/${file}`);
  const start = Date.now();
  const { status } = spawnSync(process.execPath, [join(root, 'bench', file)], { cwd: root, stdio: 'inherit' });
  console.log(`# bench/${file} took ${((Date.now() - start) / 1000).toFixed(1)} s`);
  if (status !== 0) failed.push(file);
}
console.log(`# all took ${((Date.now() - began) / 1000).toFixed(1)} s`);
if (failed.length) {
  console.error(`bench failed: ${failed.join(', ')}`);
  process.exit(1);
}
