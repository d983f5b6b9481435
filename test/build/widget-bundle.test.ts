// scripts/build/widget-config.mjs: the element bundled with every plugin of the drop-in together
// (qrcode's stubs and prefixes, Lit's hooks, the CSS templates), before the final minification.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { esbuildBundle } from './support/esbuild-bundle.js';

test("the bundle: Lit's and qrcode's thrown messages and hooks are gone, Lit's <style> fallback folded away", async (t) => {
  const { bundle } = await esbuildBundle(t);
  assert.doesNotMatch(bundle, /amount of data is too big|invalid template strings array|CSSResult is not constructable/);
  assert.doesNotMatch(bundle, /PolyfillSupport|HydrateSupport|Versions\?\?=/);
  assert.doesNotMatch(bundle, /litNonce|ShadyCSS|createElement\("style"\)/, "Lit's <style> fallback folded away");
  assert.match(bundle, /Error\("qrcode"\)/);
  assert.doesNotMatch(bundle, /dijkstra|kanji/i, "qrcode's mixed-mode optimizer is out");
  assert.doesNotMatch(bundle, /\/\* css \*\//, 'the CSS templates are minified');
  assert.doesNotMatch(bundle, /\.(?:_bill|_problem|_onView|_checkNow)\b/, 'the element\'s `_` names are mangled');
});
