// scripts/build/lit-hooks.mjs: Lit without its polyfill, hydration and version hooks
// (stripLitHooks), with constructable stylesheets taken as there (adoptedStyleSheetsOnly), and the
// plugin that applies both to the installed Lit.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = new URL('../..', import.meta.url).pathname;
const lit = await import(pathToFileURL(join(root, 'scripts/build/lit-hooks.mjs')).href) as {
  litHooks: esbuild.Plugin;
  stripLitHooks(source: string): string;
  adoptedStyleSheetsOnly(source: string): string;
};

test("Lit's hooks for polyfills, hydration and its version list go; what is around them stays", () => {
  assert.equal(lit.stripLitHooks('const j={M:h},B=t.litHtmlPolyfillSupport;B?.(S,k),(t.litHtmlVersions??=[]).push("3.3.3");'), 'const j={M:h},B=void 0;B?.(S,k);');
  assert.equal(lit.stripLitHooks('i["finalized"]=!0,s.litElementHydrateSupport?.({LitElement:i});const o=s.litElementPolyfillSupport;o?.({LitElement:i});'), 'i["finalized"]=!0;const o=void 0;o?.({LitElement:i});');
  assert.equal(lit.stripLitHooks('render(){return r}'), 'render(){return r}');
});

test("Lit's css-tag takes constructable stylesheets as there: the flag is true where it is declared and read, other names stay", async () => {
  const source = 'const t=globalThis,e=t.ShadowRoot&&(void 0===t.ShadyCSS||t.ShadyCSS.nativeShadow)&&"adoptedStyleSheets"in Document.prototype&&"replace"in CSSStyleSheet.prototype,s=1;' +
    'function g(){if(e&&void 0===t){const e=1;e&&f(e)}}S=(s,o)=>{if(e)s.a=o;else for(const e of o)s.b(e)},c=e?t=>t:t=>e+t;';
  assert.equal(lit.adoptedStyleSheetsOnly(source),
    'const t=globalThis,e=!0,s=1;function g(){if(!0&&void 0===t){const e=1;e&&f(e)}}S=(s,o)=>{if(!0)s.a=o;else for(const e of o)s.b(e)},c=!0?t=>t:t=>e+t;');
  assert.equal(lit.adoptedStyleSheetsOnly('render(){return r}'), 'render(){return r}');
  // The installed Lit: its flag is found, and no read of it is left.
  const installed = await readFile(join(root, 'node_modules/@lit/reactive-element/css-tag.js'), 'utf8');
  const out = lit.adoptedStyleSheetsOnly(installed);
  assert.notEqual(out, installed);
  assert.doesNotMatch(out, /ShadyCSS|"adoptedStyleSheets"in/);
});

test('the plugin on the installed Lit: a LitElement bundles without the hooks, the <style> fallback or the thrown messages', async () => {
  const { outputFiles } = await esbuild.build({
    absWorkingDir: root, bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, write: false, legalComments: 'none',
    stdin: { contents: "import { LitElement, html, css } from 'lit'; export class X extends LitElement { static styles = css`p{}`; render() { return html`<p></p>`; } }", resolveDir: root, loader: 'js' },
    plugins: [lit.litHooks],
  });
  const code = outputFiles[0]!.text;
  assert.doesNotMatch(code, /PolyfillSupport|HydrateSupport|Versions\?\?=/);
  assert.doesNotMatch(code, /litNonce|ShadyCSS|createElement\("style"\)/);
  assert.doesNotMatch(code, /invalid template strings array|CSSResult is not constructable/);
  assert.match(code, /Error\("lit"\)/);
});
