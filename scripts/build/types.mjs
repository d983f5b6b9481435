// dist/types: the element's declarations (tsconfig.build.json).
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { root, runNode } from './root.mjs';

const require = createRequire(import.meta.url);

/** dist/types: declarations of the widget's public modules (and none left from modules since moved). */
export async function buildTypes() {
  await rm(join(root, 'dist/types'), { recursive: true, force: true });
  await runNode(require.resolve('typescript/bin/tsc'), ['-p', 'tsconfig.build.json']);
}
