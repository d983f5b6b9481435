// The drop-in's release names: a versioned copy whose name is its content's hash, and its SRI hash,
// printed and written beside it.
import { createHash } from 'node:crypto';
import { copyFile, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { root } from './root.mjs';

/**
 * The same names the server answers (server/platform/node/static-files.ts, dropInRelease):
 * `bill-checkout.<first 16 hex of SHA-256>.js` and `sha384-<base64>`.
 */
export function dropInRelease(code) {
  return {
    versionedName: `bill-checkout.${createHash('sha256').update(code).digest('hex').slice(0, 16)}.js`,
    integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`,
  };
}

/** dist/bill-checkout.<hash>.js and dist/bill-checkout.sri.txt; returns what it wrote. */
export async function buildRelease() {
  const dist = join(root, 'dist');
  const code = await readFile(join(dist, 'bill-checkout.js'));
  const release = dropInRelease(code);
  for (const name of await readdir(dist)) {
    if (/^bill-checkout\.[0-9a-f]{16}\.js$/.test(name) && name !== release.versionedName) await rm(join(dist, name));
  }
  await copyFile(join(dist, 'bill-checkout.js'), join(dist, release.versionedName));
  await writeFile(join(dist, 'bill-checkout.sri.txt'), `${release.integrity}\n`);
  console.log(`dist/${release.versionedName}  integrity="${release.integrity}"`);
  return release;
}
