// scripts/build/css-templates.mjs: the card's CSS templates minified at build time (minifyCss), by
// esbuild and without the spaces it keeps in custom properties (tightCustomProperties).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { cardCss, serverCss } from '../../widget/card/styles.js';

const root = new URL('../..', import.meta.url).pathname;
const css = await import(pathToFileURL(join(root, 'scripts/build/css-templates.mjs')).href) as {
  minifyCss: esbuild.Plugin;
  minifiedCss(text: string): Promise<string>;
  tightCustomProperties(css: string): string;
};

test('custom property values lose the spaces esbuild keeps, nothing else does', () => {
  assert.equal(css.tightCustomProperties(':host{--_bg: var(--bill-checkout-background, Canvas);font:1rem var(--f, system-ui, sans-serif)}'),
    ':host{--_bg:var(--bill-checkout-background,Canvas);font:1rem var(--f,system-ui, sans-serif)}');
  assert.equal(css.tightCustomProperties('a{color-scheme:light dark;padding:.5rem 1rem}'), 'a{color-scheme:light dark;padding:.5rem 1rem}');
});

test("the plugin puts each of the card's CSS templates, minified, where the template was", async () => {
  const { outputFiles } = await esbuild.build({
    absWorkingDir: root, entryPoints: ['widget/card/styles.ts'], bundle: true, format: 'esm', write: false, plugins: [css.minifyCss],
  });
  const module = await import(`data:text/javascript;base64,${Buffer.from(outputFiles[0]!.text).toString('base64')}`) as { cardCss: string; serverCss: string };
  for (const [name, source, built] of [['cardCss', cardCss, module.cardCss], ['serverCss', serverCss, module.serverCss]] as const) {
    assert.equal(built, await css.minifiedCss(source), name);
    assert.ok(built.length < source.length * 0.8, `${name}: ${built.length} B from ${source.length} B`);
    assert.doesNotMatch(built, /\n|\/\*/, `${name} has no line breaks or comments left`);
  }
});
