// How the element is bundled, but for its entry and output: the drop-in, its on-demand modules, its
// no-DOM entry, the tests' and the benches' builds of it all start from these options.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { minifyCss } from './css-templates.mjs';
import { litHooks } from './lit-hooks.mjs';
import { mangleProps } from './minify.mjs';
import { qrPlugins } from './qr-encoder.mjs';
import { root } from './root.mjs';

/** How the widget is bundled, but for its entry and output (test/build/qr-encoder.test.ts builds the encoder alone so). */
export const widgetBuild = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'linked',
  // A module script is UTF-8 whatever the server says: "…" costs 3 bytes, not 6 as \u2026.
  charset: 'utf8',
  // tsconfig.json but `alwaysStrict` (implied by its `strict`): the bundle is an ES module, strict
  // throughout, and would otherwise get a "use strict" in every qrcode module's CommonJS wrapper.
  tsconfigRaw: { compilerOptions: { ...JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')).compilerOptions, alwaysStrict: false } },
  plugins: [...qrPlugins, litHooks, minifyCss],
  mangleProps,
  logLevel: 'warning',
};
