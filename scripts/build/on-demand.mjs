// The modules the element imports on demand (its languages, the native bridge): each bundled alone
// beside the element, and left out of the element's bundle.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import * as esbuild from 'esbuild';
import { root } from './root.mjs';
import { widgetBuild } from './widget-config.mjs';

/** Where the modules the element imports on demand go: `dist/on-demand/<name>-<hash>.js`, beside the element. */
export const onDemandDir = join(root, 'dist/on-demand');

/** The widget modules the element imports with `import('./…')` (its languages, the native bridge), as paths under widget/. */
export async function onDemandSources() {
  const found = new Set();
  for (const file of await readdir(join(root, 'widget'), { recursive: true })) {
    if (!/(?<!\.d)\.ts$/.test(file)) continue;
    const source = await readFile(join(root, 'widget', file), 'utf8');
    for (const [, specifier] of source.matchAll(/\bimport\(\s*'(\.\.?\/[^']+)\.js'\s*\)/g)) {
      found.add(posix.normalize(posix.join(posix.dirname(file.split(sep).join('/')), `${specifier}.ts`)));
    }
  }
  return [...found].sort();
}

/**
 * dist/on-demand/: each module the element imports on demand (onDemandSources), bundled alone and
 * named with one hash of all their contents (`ms-<hash>.js`, `native-bridge-<hash>.js`): the
 * bundle then names them with one repeated string, which compresses to nothing. Returns, for each
 * source under widget/, the URL the bundle imports it by.
 */
export async function buildOnDemand(outdir = onDemandDir) {
  await rm(outdir, { recursive: true, force: true });
  const sources = await onDemandSources();
  const names = sources.map((source) => posix.basename(source, '.ts'));
  if (new Set(names).size !== names.length) throw new Error(`on-demand modules need distinct file names: ${sources.join(', ')}`);
  const result = await esbuild.build({
    ...widgetBuild,
    plugins: [onDemandModules(new Map())],
    entryPoints: sources.map((source) => join('widget', source)),
    outdir,
    outbase: 'widget',
    write: false,
  });
  const hash = createHash('sha256');
  for (const file of result.outputFiles) hash.update(file.contents);
  const version = hash.digest('hex').slice(0, 10);
  await mkdir(outdir, { recursive: true });
  const urls = new Map();
  for (const [i, source] of sources.entries()) {
    await writeFile(join(outdir, `${names[i]}-${version}.js`), result.outputFiles.find((file) => file.path.endsWith(`${source.replace(/\.ts$/, '.js')}`)).contents);
    urls.set(source, `${names[i]}-${version}.js`);
  }
  return urls;
}

/**
 * An esbuild plugin that leaves the on-demand modules (buildOnDemand) out of the bundle:
 * `import('./locales/ms.js')` becomes `import('./on-demand/ms-<hash>.js')`, fetched beside the
 * bundle when a page asks for Malay. A module the widget imports on demand must not also be
 * imported statically (it would be in the bundle and fetched again), nor import another.
 */
export function onDemandModules(urls) {
  return {
    name: 'on-demand-modules',
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        const importer = relative(join(root, 'widget'), args.importer).split(sep).join('/');
        if (importer.startsWith('..')) return undefined;
        const source = posix.normalize(posix.join(posix.dirname(importer), args.path.replace(/\.js$/, '.ts')));
        const url = urls.get(source);
        if (args.kind === 'dynamic-import') {
          if (!url) throw new Error(`${args.path} (imported on demand by ${importer}) was not built by buildOnDemand`);
          return { path: `./on-demand/${url}`, external: true };
        }
        if (url) throw new Error(`${importer} imports ${args.path} statically, but the element imports it on demand`);
        return undefined;
      });
    },
  };
}
