// dist/server: what `bill-checkout/server` and `bill-checkout/sandbox` run, compiled by tsc.
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { root, runNode } from './root.mjs';

const require = createRequire(import.meta.url);

/** dist/server: server/, sandbox/ and contract/ as ES modules with their declarations (tsconfig.server.json). */
export async function buildServer() {
  await rm(join(root, 'dist/server'), { recursive: true, force: true });
  await runNode(require.resolve('typescript/bin/tsc'), ['-p', 'tsconfig.server.json']);
}
