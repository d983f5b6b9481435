// What the widget's build does to the code it bundles, each a mechanical transform: dependencies'
// errors keep their throw but not their developer-facing message (shortErrors), Lit without its
// polyfill, hydration and version hooks (stripLitHooks), custom properties without the spaces esbuild
// keeps (tightCustomProperties), the modules the element imports on demand built beside it, and
// terser's second minification (minifyAgain).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = new URL('../..', import.meta.url).pathname;
const build = await import(pathToFileURL(join(root, 'scripts/build.mjs')).href) as {
  shortErrors(source: string, name: string): string;
  stripLitHooks(source: string): string;
  adoptedStyleSheetsOnly(source: string): string;
  tightCustomProperties(css: string): string;
  widgetBuild: esbuild.BuildOptions & { plugins: esbuild.Plugin[] };
  buildOnDemand(outdir: string): Promise<Map<string, string>>;
  onDemandModules(urls: Map<string, string>): esbuild.Plugin;
  minifyAgain(code: string): Promise<string>;
};
const { shortErrors } = build;

test('messages made of strings and names become the package name', () => {
  assert.equal(shortErrors("throw new Error('log(' + n + ')')", 'qr'), 'throw new Error("qr")');
  assert.equal(shortErrors('throw Error("a \\" b")', 'lit'), 'throw Error("lit")');
  assert.equal(shortErrors("throw new Error('\\n' +\n  'line two' +\n  x.y)", 'qr'), 'throw new Error("qr")');
  assert.equal(shortErrors('throw TypeError(`no ${x}`)', 'lit'), 'throw TypeError(`no ${x}`)', 'a template with a substitution is left alone');
});

test('errors whose message calls something, or has no string, are left as they are', () => {
  for (const source of ['throw new Error(describe(x))', 'throw new Error(message)', 'new Error()', "new Error('a' + f('b'))"]) {
    assert.equal(shortErrors(source, 'qr'), source);
  }
});

test('the code around them is unchanged', () => {
  const source = "if (!a) throw new Error('Invalid data'); const e = 'Error(' + 1; b(Error);";
  assert.equal(shortErrors(source, 'qr'), "if (!a) throw new Error(\"qr\"); const e = 'Error(' + 1; b(Error);");
});

test("Lit's hooks for polyfills, hydration and its version list go; what is around them stays", () => {
  assert.equal(build.stripLitHooks('const j={M:h},B=t.litHtmlPolyfillSupport;B?.(S,k),(t.litHtmlVersions??=[]).push("3.3.3");'), 'const j={M:h},B=void 0;B?.(S,k);');
  assert.equal(build.stripLitHooks('i["finalized"]=!0,s.litElementHydrateSupport?.({LitElement:i});const o=s.litElementPolyfillSupport;o?.({LitElement:i});'), 'i["finalized"]=!0;const o=void 0;o?.({LitElement:i});');
  assert.equal(build.stripLitHooks('render(){return r}'), 'render(){return r}');
});

test("Lit's css-tag takes constructable stylesheets as there: the flag is true where it is declared and read, other names stay", async () => {
  const source = 'const t=globalThis,e=t.ShadowRoot&&(void 0===t.ShadyCSS||t.ShadyCSS.nativeShadow)&&"adoptedStyleSheets"in Document.prototype&&"replace"in CSSStyleSheet.prototype,s=1;' +
    'function g(){if(e&&void 0===t){const e=1;e&&f(e)}}S=(s,o)=>{if(e)s.a=o;else for(const e of o)s.b(e)},c=e?t=>t:t=>e+t;';
  assert.equal(build.adoptedStyleSheetsOnly(source),
    'const t=globalThis,e=!0,s=1;function g(){if(!0&&void 0===t){const e=1;e&&f(e)}}S=(s,o)=>{if(!0)s.a=o;else for(const e of o)s.b(e)},c=!0?t=>t:t=>e+t;');
  assert.equal(build.adoptedStyleSheetsOnly('render(){return r}'), 'render(){return r}');
  // The installed Lit: its flag is found, and no read of it is left.
  const installed = await readFile(join(root, 'node_modules/@lit/reactive-element/css-tag.js'), 'utf8');
  const out = build.adoptedStyleSheetsOnly(installed);
  assert.notEqual(out, installed);
  assert.doesNotMatch(out, /ShadyCSS|"adoptedStyleSheets"in/);
});

test('custom property values lose the spaces esbuild keeps, nothing else does', () => {
  assert.equal(build.tightCustomProperties(':host{--_bg: var(--bill-checkout-background, Canvas);font:1rem var(--f, system-ui, sans-serif)}'),
    ':host{--_bg:var(--bill-checkout-background,Canvas);font:1rem var(--f,system-ui, sans-serif)}');
  assert.equal(build.tightCustomProperties('a{color-scheme:light dark;padding:.5rem 1rem}'), 'a{color-scheme:light dark;padding:.5rem 1rem}');
});

/** The widget as esbuild bundles it (before terser), in a directory removed after the test, beside its on-demand modules. */
async function esbuildBundle(t: TestContext): Promise<{ dir: string; bundle: string; onDemand: Map<string, string> }> {
  const dir = await mkdtemp(join(tmpdir(), 'bundle-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const onDemand = await build.buildOnDemand(join(dir, 'on-demand'));
  const outfile = join(dir, 'bill-checkout.js');
  await esbuild.build({ ...build.widgetBuild, plugins: [...build.widgetBuild.plugins, build.onDemandModules(onDemand)], entryPoints: ['widget/index.ts'], outfile });
  return { dir, bundle: await readFile(outfile, 'utf8'), onDemand };
}

test("the bundle: Lit's and qrcode's thrown messages and hooks are gone, and each on-demand module is named beside it", async (t) => {
  const { dir, bundle, onDemand } = await esbuildBundle(t);
  assert.doesNotMatch(bundle, /amount of data is too big|invalid template strings array|CSSResult is not constructable/);
  assert.doesNotMatch(bundle, /PolyfillSupport|HydrateSupport|Versions\?\?=/);
  assert.doesNotMatch(bundle, /litNonce|ShadyCSS|createElement\("style"\)/, "Lit's <style> fallback folded away");
  assert.match(bundle, /Error\("qrcode"\)/);
  const imported = [...bundle.matchAll(/import\("\.\/on-demand\/([\w-]+)\.js"\)/g)].map((m) => m[1]!).sort();
  assert.deepEqual(imported, [...onDemand.values()].map((file) => file.replace(/\.js$/, '')).sort());
  assert.deepEqual(imported.map((name) => name.replace(/-[0-9a-f]{10}$/, '')), ['id', 'ms', 'native-bridge', 'th', 'vi', 'zh-CN']);
  for (const name of imported) {
    const module = await readFile(join(dir, 'on-demand', `${name}.js`), 'utf8');
    assert.doesNotMatch(module, /\bimport\b/, `${name} stands alone`);
  }
});

test("terser's second minification keeps the bundle's exports and its pointer to the licenses, and makes it smaller", async (t) => {
  const { bundle: once } = await esbuildBundle(t);
  const twice = await build.minifyAgain(once);
  const exported = (code: string) => [...code.matchAll(/\bexport\s*\{([^}]*)\}/g)]
    .flatMap((m) => m[1]!.split(',').map((item) => item.trim().split(/\s+as\s+/).at(-1)!)).sort();
  assert.deepEqual(exported(twice), exported(once));
  assert.ok(exported(once).includes('BillCheckout'));
  assert.match(twice, /\/\*! For license information please see bill-checkout\.js\.LEGAL\.txt \*\//);
  assert.match(twice, /customElements\.define\("bill-checkout"/);
  assert.ok(twice.length < once.length, `${twice.length} B after terser, ${once.length} B before`);
});
