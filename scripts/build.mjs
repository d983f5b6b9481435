// npm run build: the drop-in element and what ships beside it, each step a module of scripts/build/:
//   dist/bill-checkout.js, dist/on-demand/, dist/bill-checkout.node.js   widget.mjs
//   dist/types/                                                          types.mjs
//   custom-elements.json                                                 manifest.mjs
//   dist/server/ (then the card's encoder and CSS in it)                 server.mjs, server-card.mjs
//   dist/react/ (bill-checkout/react)                                    react.mjs
//   dist/bill-checkout.<hash>.js, .sri.txt and .release.json             release.mjs
//   dist/admin/ (the admin page the package ships)                       admin.mjs
//   demo/dist/                                                           demo.mjs
// The element's esbuild options are widget-config.mjs; each plugin and transform they use is a
// module named by its job (qr-encoder, lit-hooks, css-templates, short-errors, on-demand, minify),
// tested in test/build/<the same name>.test.ts. CONTRIBUTING.md says how to write for them.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildAdmin } from './build/admin.mjs';
import { buildDemo } from './build/demo.mjs';
import { buildManifest } from './build/manifest.mjs';
import { buildReact } from './build/react.mjs';
import { buildRelease } from './build/release.mjs';
import { root } from './build/root.mjs';
import { buildServerCard } from './build/server-card.mjs';
import { buildServer } from './build/server.mjs';
import { buildTypes } from './build/types.mjs';
import { buildWidget } from './build/widget.mjs';

export async function build() {
  await mkdir(join(root, 'dist'), { recursive: true });
  await buildWidget();
  await Promise.all([buildTypes(), buildManifest(), buildServer().then(() => buildServerCard()), buildRelease(), buildReact()]);
  await buildAdmin();
  await buildDemo();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await build();
  } catch (error) {
    console.error(error?.stderr || error?.stdout || error);
    process.exit(1);
  }
}
