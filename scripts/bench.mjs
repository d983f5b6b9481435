// npm run bench: every bench/*.mjs in order (building first when dist is missing, or its compiled
// server older than its sources: the benches measure what `npm start` runs); fails if one fails.
// `npm run bench -- fanout ingest` runs those whose name contains a word given; BENCH_QUICK=1
// shortens every run (a smoke test, not figures to record).
// What only the benches use (the other checkouts, the load generator) is bench/package.json's, with
// its own lockfile: installed here when missing or out of date, so that the product's `npm ci` does
// not fetch it. Everything else the benches import resolves from the root's node_modules.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serverBuildState } from '../bench/lib/server-modules.mjs';
import { build } from './build.mjs';
import { widgetFile } from './build/widget.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const benchDir = join(root, 'bench');

/** The bench's own packages not installed at their lockfile's version (all of them before a first install). */
function staleBenchPackages() {
  const lock = JSON.parse(readFileSync(join(benchDir, 'package-lock.json'), 'utf8'));
  return Object.entries(lock.packages).filter(([path, { version, optional }]) => {
    // An optional package may be one this platform cannot install: its absence is no reason to install again.
    if (!path.startsWith('node_modules/') || optional) return false;
    const manifest = join(benchDir, path, 'package.json');
    return !existsSync(manifest) || JSON.parse(readFileSync(manifest, 'utf8')).version !== version;
  });
}

const stale = staleBenchPackages().length;
if (stale > 0) {
  console.log(`# installing the bench's own packages (bench/package-lock.json: ${stale} missing or at another version)`);
  const { status } = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: benchDir, stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
const server = serverBuildState(pathToFileURL(`${root}/`), process.env);
const rebuild = server.state === 'missing' || server.state === 'stale';
if (!existsSync(widgetFile) || rebuild) {
  console.log(`# building dist/ first${rebuild ? `: ${server.why}` : ''}`);
  await build();
}

const words = process.argv.slice(2);
const files = readdirSync(benchDir)
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
  const { status } = spawnSync(process.execPath, [join(benchDir, file)], { cwd: root, stdio: 'inherit' });
  console.log(`# bench/${file} took ${((Date.now() - start) / 1000).toFixed(1)} s`);
  if (status !== 0) failed.push(file);
}
console.log(`# all took ${((Date.now() - began) / 1000).toFixed(1)} s`);
if (failed.length) {
  console.error(`bench failed: ${failed.join(', ')}`);
  process.exit(1);
}
