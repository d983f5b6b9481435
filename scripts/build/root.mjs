// Where the build runs: the repository's root, and a Node script run there (tsc, the manifest analyzer).
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

const execFileAsync = promisify(execFile);

/** `node <script> ...args` with the root as its working directory; rejects (with its output) if it fails. */
export function runNode(script, args) {
  return execFileAsync(process.execPath, [script, ...args], { cwd: root });
}
