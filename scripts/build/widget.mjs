// dist/bill-checkout.js, the drop-in: one minified ES module with Lit and the QR encoder inside.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { finishBundle } from './minify.mjs';
import { buildNoDomEntry } from './node-entry.mjs';
import { buildOnDemand, onDemandModules } from './on-demand.mjs';
import { root } from './root.mjs';
import { widgetBuild } from './widget-config.mjs';

export const widgetFile = join(root, 'dist/bill-checkout.js');
export const widgetMetafile = join(root, 'dist/bill-checkout.meta.json');

/** dist/bill-checkout.js: one minified ES module with Lit and the QR encoder inside, the modules it imports on demand beside it (buildOnDemand), and its metafile; also the no-DOM entry (buildNoDomEntry). */
export async function buildWidget() {
  const onDemand = await buildOnDemand();
  const result = await esbuild.build({
    ...widgetBuild,
    plugins: [...widgetBuild.plugins, onDemandModules(onDemand)],
    entryPoints: ['widget/index.ts'],
    outfile: widgetFile,
    metafile: true,
  });
  await writeFile(widgetFile, await finishBundle(await readFile(widgetFile, 'utf8')));
  await writeFile(widgetMetafile, JSON.stringify(result.metafile));
  await buildNoDomEntry(onDemand);
  return result.metafile;
}
