// dist/bill-checkout.node.js: the package's entry where there is no DOM.
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { onDemandModules } from './on-demand.mjs';
import { root } from './root.mjs';
import { widgetBuild } from './widget-config.mjs';

/**
 * dist/bill-checkout.node.js: the package's entry where there is no DOM (widget/no-dom.ts, the
 * `node` condition of package.json): the same names, nothing defined, nothing thrown. `urls` are the
 * on-demand modules' (buildOnDemand), which its strings import as the element does.
 */
export async function buildNoDomEntry(urls) {
  await esbuild.build({
    ...widgetBuild,
    platform: 'neutral',
    plugins: [onDemandModules(urls)],
    entryPoints: ['widget/no-dom.ts'],
    outfile: join(root, 'dist/bill-checkout.node.js'),
    legalComments: 'none',
  });
}
