// The element's parts the server draws its markup with (server/http/render/), made fit for
// dist/server after tsc compiled them: the QR encoder bundled with qrcode's core inside, as the
// drop-in bundles it (dist/server imports no qrcode at run time), and the card's CSS minified as the
// drop-in ships it (the server's markup then carries the same bytes the element adopts).
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { mangleProps, minifyCss, onDemandModules, qrPlugins, widgetBuild } from './build.mjs';

export async function buildServerCard() {
  // Read when called: build.mjs imports this module, and this one imports build.mjs.
  const root = widgetBuild.absWorkingDir;
  const common = { absWorkingDir: root, bundle: true, format: 'esm', platform: 'neutral', target: 'es2022', logLevel: 'warning', charset: 'utf8', tsconfigRaw: widgetBuild.tsconfigRaw };
  await Promise.all([
    esbuild.build({
      ...common, entryPoints: ['widget/qr-code.ts'], outfile: join(root, 'dist/server/widget/qr-code.js'),
      plugins: qrPlugins, mangleProps, minify: true, legalComments: 'eof',
    }),
    esbuild.build({
      ...common, entryPoints: ['widget/card/styles.ts'], outfile: join(root, 'dist/server/widget/card/styles.js'),
      plugins: [minifyCss],
    }),
  ]);
}

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
    outfile: join(widgetBuild.absWorkingDir, 'dist/bill-checkout.node.js'),
    legalComments: 'none',
  });
}
