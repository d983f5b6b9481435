// The element's parts the server draws its markup with (server/http/render/), made fit for
// dist/server after tsc compiled them (buildServer): the QR encoder bundled with qrcode's core
// inside, as the drop-in bundles it (dist/server imports no qrcode at run time), and the card's CSS
// minified as the drop-in ships it (the server's markup then carries the same bytes the element adopts).
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { minifyCss } from './css-templates.mjs';
import { mangleProps } from './minify.mjs';
import { qrPlugins } from './qr-encoder.mjs';
import { root } from './root.mjs';
import { widgetBuild } from './widget-config.mjs';

/** dist/server/widget/qr-code.js and dist/server/widget/card/styles.js, over what tsc wrote there; `outdir` is dist/server unless given. */
export async function buildServerCard(outdir = join(root, 'dist/server')) {
  const common = { absWorkingDir: root, bundle: true, format: 'esm', platform: 'neutral', target: 'es2022', logLevel: 'warning', charset: 'utf8', tsconfigRaw: widgetBuild.tsconfigRaw };
  await Promise.all([
    esbuild.build({
      ...common, entryPoints: ['widget/qr-code.ts'], outfile: join(outdir, 'widget/qr-code.js'),
      plugins: qrPlugins, mangleProps, minify: true, legalComments: 'eof',
    }),
    esbuild.build({
      ...common, entryPoints: ['widget/card/styles.ts'], outfile: join(outdir, 'widget/card/styles.js'),
      plugins: [minifyCss],
    }),
  ]);
}
