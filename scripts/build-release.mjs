// The parts of `npm run build` a merchant installs besides the drop-in: the compiled server
// (dist/server, JavaScript and declarations) and the drop-in's release names (a versioned copy
// whose name is its content's hash, and its SRI hash), printed and written beside it.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const run = promisify(execFile);

/** dist/server: server/, sandbox/ and contract/ as ES modules with their declarations. */
export async function buildServer() {
  await rm(join(root, 'dist/server'), { recursive: true, force: true });
  await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.server.json'], { cwd: root });
}

/**
 * The same names the server answers (server/process/static-files.ts, dropInRelease):
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
