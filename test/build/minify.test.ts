// scripts/build/minify.mjs: which property names esbuild mangles (mangleProps: `_name`, not Lit's
// `_$name`; CONTRIBUTING.md), and the final pass over the bundle: terser's second minification
// (minifyAgain), then template literals' line breaks folded (finishBundle).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { esbuildBundle } from './support/esbuild-bundle.js';

const root = new URL('../..', import.meta.url).pathname;
const minify = await import(pathToFileURL(join(root, 'scripts/build/minify.mjs')).href) as {
  mangleProps: RegExp;
  minifyAgain(code: string): Promise<string>;
  finishBundle(code: string): Promise<string>;
};

test('mangleProps: `_name` is mangled, Lit\'s `_$name`, `__name` and every other name are not', async () => {
  for (const name of ['_bill', '_onView', '_EventSource', '_x1']) assert.match(name, minify.mangleProps, name);
  for (const name of ['_$litType$', '_$AH', '__proto__', '_', '_1', 'bill', 'billId']) assert.doesNotMatch(name, minify.mangleProps, name);
  const { code } = await esbuild.transform('export class A { _state = 1; _$AH = 2; open = 3; _read() { return { _key: this._state }; } }', { mangleProps: minify.mangleProps, minify: true, format: 'esm' });
  assert.doesNotMatch(code, /_state|_read|_key/);
  assert.match(code, /_\$AH/);
  assert.match(code, /\bopen\b/);
});

test('the final pass folds the line breaks of template literals with their indentation, and leaves strings\' escaped ones', async () => {
  // A tagged template (Lit's html) stays a template through terser, with its raw line breaks.
  const code = await minify.finishBundle('export const t = (html, x) => html`<p>\n    <b>${x}</b>\n  </p>\n  line\n    two`;\n');
  assert.match(code, /^export const t=\((\w),(\w)\)=>\1`<p><b>\$\{\2\}<\/b><\/p>line two`;$/);
  assert.equal(await minify.finishBundle("export const s = 'a\\n  b';\n"), 'export const s="a\\n  b";');
});

test("terser's second minification keeps the bundle's exports and its pointer to the licenses, and makes it smaller", async (t) => {
  const { bundle: once } = await esbuildBundle(t);
  const twice = await minify.minifyAgain(once);
  const exported = (code: string) => [...code.matchAll(/\bexport\s*\{([^}]*)\}/g)]
    .flatMap((m) => m[1]!.split(',').map((item) => item.trim().split(/\s+as\s+/).at(-1)!)).sort();
  assert.deepEqual(exported(twice), exported(once));
  assert.ok(exported(once).includes('BillCheckout'));
  assert.match(twice, /\/\*! For license information please see bill-checkout\.js\.LEGAL\.txt \*\//);
  assert.match(twice, /customElements\.define\("bill-checkout"/);
  assert.ok(twice.length < once.length, `${twice.length} B after terser, ${once.length} B before`);
});
