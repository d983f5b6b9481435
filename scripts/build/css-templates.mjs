// The card's CSS minified at build time, the same bytes in the element and in the server's markup.
import { readFile } from 'node:fs/promises';
import * as esbuild from 'esbuild';

/**
 * An esbuild plugin that minifies the card's CSS (the template marked `css` without interpolations
 * in widget/card/styles.ts), which the element adopts through Lit's `unsafeCSS` and the server
 * writes into the markup it sends (both builds use this plugin).
 */
export const minifyCss = {
  name: 'minify-css-templates',
  setup(build) {
    build.onLoad({ filter: /widget[\\/]card[\\/]styles\.ts$/ }, async (args) => {
      let source = await readFile(args.path, 'utf8');
      for (const [whole, text] of source.matchAll(/\/\* css \*\/ `([^`$]*)`/g)) {
        source = source.replace(whole, JSON.stringify(await minifiedCss(text)));
      }
      return { contents: source, loader: 'ts' };
    });
  },
};

/** CSS text minified as the card ships it. */
export async function minifiedCss(text) {
  const { code } = await esbuild.transform(text, { loader: 'css', minify: true, target: 'chrome100' });
  return tightCustomProperties(code.trim());
}

/** Minified CSS without the spaces esbuild keeps in custom property values (`--_bg: var(--x, Canvas)`): a value's leading space and a var() fallback's are not part of what it means. */
export function tightCustomProperties(code) {
  return code.replace(/(--[\w-]+):\s+/g, '$1:').replace(/(var\(--[\w-]+),\s+/g, '$1,');
}
