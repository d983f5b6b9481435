// Lit as the element bundles it: without the hooks for polyfills, hydration and its version list,
// with constructable stylesheets taken as there, and its errors' messages shortened.
import { readFile } from 'node:fs/promises';
import { shortErrors } from './short-errors.mjs';

/**
 * An esbuild plugin that shortens the error messages of Lit's modules (shortErrors) and leaves out
 * of them the hooks for Lit's polyfills of browsers without Shadow DOM, for server-side hydration
 * and the version list Lit keeps on globalThis: the element needs none of them. Each hook has a
 * fixed form; a Lit whose forms changed fails the build.
 */
export const litHooks = {
  name: 'lit-hooks',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/](?:lit-html|lit-element|@lit[\\/]reactive-element)[\\/].*\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const stripped = /[\\/]css-tag\.js$/.test(args.path) ? adoptedStyleSheetsOnly(source) : stripLitHooks(source);
      if (stripped === source && /[\\/](?:lit-html|lit-element|reactive-element|css-tag)\.js$/.test(args.path)) {
        throw new Error(`lit-hooks: none of the hooks it removes is in ${args.path} any more: update stripLitHooks or adoptedStyleSheetsOnly`);
      }
      return { contents: shortErrors(stripped, 'lit'), loader: 'js' };
    });
  },
};

/** Lit's production source without its polyfill, hydration and version hooks (litHooks). */
export function stripLitHooks(source) {
  return source
    // (globalThis.litHtmlVersions ??= []).push("3.3.3")
    .replace(/,?\(\w+\.\w+Versions\?\?=\[\]\)\.push\("[\d.]+"\)/g, '')
    // const B = t.litHtmlPolyfillSupport; … B?.(S, k)
    .replace(/(\w+)=\w+\.(?:litHtml|litElement|reactiveElement)PolyfillSupport([,;])/g, '$1=void 0$2')
    // s.litElementHydrateSupport?.({LitElement: i})
    .replace(/,?\w+\.litElementHydrateSupport\?\.\(\{LitElement:\w+\}\)/g, '');
}

/**
 * Lit's css-tag.js with constructable stylesheets taken as there: every browser that runs the
 * bundle (ES2022, class static blocks) has them but Firefox 93–100, so the `<style>` fallback,
 * which a CSP without 'unsafe-inline' blocks anyway, folds away. The flag (`e = t.ShadowRoot &&
 * (ShadyCSS…) && "adoptedStyleSheets" in Document.prototype && …`) becomes `!0` where it is
 * declared, and where it is read as `if(e)`, `if(e&&` or `=e?` so that the minifier folds those
 * branches (a read of another form still reads the declared `!0`).
 */
export function adoptedStyleSheetsOnly(source) {
  const flag = /(\w+)=\w+\.ShadowRoot&&\(void 0===\w+\.ShadyCSS\|\|\w+\.ShadyCSS\.nativeShadow\)&&"adoptedStyleSheets"in Document\.prototype&&"replace"in CSSStyleSheet\.prototype/.exec(source);
  if (!flag) return source;
  const name = flag[1];
  return source.replace(flag[0], `${name}=!0`).replace(new RegExp(`(?<=\\bif\\(|=)${name}(?=[)&?])`, 'g'), '!0');
}
