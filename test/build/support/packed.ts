// The package as npm publishes it, for the tests that install it into a project of their own
// (package.test.ts, framework-bundles.test.ts): built once per test file, packed, and a free port
// for what they serve from it.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let built: Promise<void> | undefined;
/** `npm run build` once for the calling test file: the tarball carries dist/. */
export function build(): Promise<void> {
  built ??= (async () => {
    const { build: buildAll } = (await import(pathToFileURL(join(ROOT, 'scripts/build.mjs')).href)) as { build: () => Promise<void> };
    await buildAll();
  })();
  return built;
}

export interface Packed {
  /** The tarball's path. */
  tarball: string;
  /** The paths of the files it holds, relative to the package. */
  paths: string[];
}

/** `npm pack` of the built package into `dir`. */
export async function pack(dir: string): Promise<Packed> {
  await build();
  const { stdout } = await run(npm, ['pack', '--pack-destination', dir, '--json'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(dir, packed!.filename), paths: packed!.files.map((f) => f.path) };
}

export { freePort } from '../../support/ports.mjs';
