// custom-elements.json, by the Custom Elements Manifest analyzer.
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { root, runNode } from './root.mjs';

const require = createRequire(import.meta.url);

/** custom-elements.json at the repository root, or in `outdir` (config: custom-elements-manifest.config.mjs). */
export async function buildManifest(outdir = root) {
  const cem = join(dirname(require.resolve('@custom-elements-manifest/analyzer/package.json')), 'cem.js');
  await runNode(cem, ['analyze', '--config', 'custom-elements-manifest.config.mjs', '--outdir', relative(root, outdir) || '.']);
}
