// The drop-in's release names: a versioned copy whose name is its content's hash, its SRI hash, and
// both with its sizes in dist/bill-checkout.release.json; printed and written beside it.
import { copyFile, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { tsImport } from 'tsx/esm/api';
import { root } from './root.mjs';

// The names the server answers, from the server's source (dist/server is built alongside this step, not before it).
const { dropInRelease } = await tsImport('../../server/process/static-files.ts', import.meta.url);

/**
 * In `dist` (dist/ unless given), beside its bill-checkout.js: bill-checkout.<hash>.js (and no
 * other versioned copy), bill-checkout.sri.txt (the integrity alone) and bill-checkout.release.json
 * (`{file, integrity, bytes, gzipBytes}`, gzip at level 9 as bench/widget-size.mjs measures it).
 * Returns what release.json holds.
 */
export async function buildRelease(dist = join(root, 'dist')) {
  const code = await readFile(join(dist, 'bill-checkout.js'));
  const { versionedName, integrity } = dropInRelease(code);
  for (const name of await readdir(dist)) {
    if (/^bill-checkout\.[0-9a-f]{16}\.js$/.test(name) && name !== versionedName) await rm(join(dist, name));
  }
  await copyFile(join(dist, 'bill-checkout.js'), join(dist, versionedName));
  await writeFile(join(dist, 'bill-checkout.sri.txt'), `${integrity}\n`);
  const release = { file: versionedName, integrity, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
  await writeFile(join(dist, 'bill-checkout.release.json'), `${JSON.stringify(release, null, 2)}\n`);
  console.log(`dist/${versionedName}  integrity="${integrity}"`);
  return release;
}
