// npm run build: the drop-in widget bundle, its type declarations and custom-elements.json.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { buildAdmin } from './build-admin.mjs';
import { buildRelease, buildServer } from './build-release.mjs';
import { buildNoDomEntry, buildServerCard } from './build-server-card.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const run = promisify(execFile);

export const widgetFile = join(root, 'dist/bill-checkout.js');
export const widgetMetafile = join(root, 'dist/bill-checkout.meta.json');

const qrCore = dirname(require.resolve('qrcode/lib/core/qrcode.js'));
const core = (name) => require(`qrcode/lib/core/${name}.js`);
const [ecc, { M }, version, utils, { BYTE }, formatInfo] = ['error-correction-code', 'error-correction-level', 'version', 'utils', 'mode', 'format-info'].map(core);
const versions = Array.from({ length: 40 }, (_, i) => i + 1);
const table = (f) => `[${versions.map(f)}]`;
// Written against qrcode's own names; qrInternals prefixes them like the modules they replace.
const qrStubs = {
  // widget/qr-code.ts passes one byte segment: the other modes and the mixed-mode optimizer
  // (dijkstrajs, kanji tables) are dead code. Output is identical: test/build/qr-encoder.test.ts
  // compares the encoder built as the bundle builds it with qrcode's own.
  segments: "const B=require('./byte-data');exports.fromArray=a=>a.map(s=>new B(s.data))",
  // Level M and byte mode only: tables computed here from qrcode's own functions.
  'error-correction-level': 'exports.M={bit:0};exports.from=()=>exports.M',
  'error-correction-code': `const B=${table((v) => ecc.getBlocksCount(v, M))},C=${table((v) => ecc.getTotalCodewordsCount(v, M))};`
    + 'exports.getBlocksCount=v=>B[v-1];exports.getTotalCodewordsCount=v=>C[v-1]',
  version: `const C=${table((v) => version.getCapacity(v, M, BYTE))},E=${table((v) => (v < 7 ? 0 : version.getEncodedBits(v)))};`
    + 'exports.from=()=>{};exports.getEncodedBits=v=>E[v-1];'
    + 'exports.getBestVersionForData=([s])=>C.findIndex(c=>s.getLength()<=c)+1||void 0',
  utils: `const W=[0,...${table(utils.getSymbolTotalCodewords)}];`
    + 'exports.getSymbolSize=v=>v*4+17;exports.getSymbolTotalCodewords=v=>W[v]',
  'format-info': `const F=[${[0, 1, 2, 3, 4, 5, 6, 7].map((mask) => formatInfo.getEncodedBits(M, mask))}];exports.getEncodedBits=(e,m)=>F[m]`,
  mode: 'exports.BYTE={bit:4,ccBits:[8,16,16]};exports.getCharCountIndicator=(m,v)=>m.ccBits[v<10?0:v<27?1:2]',
  // The same masks, scored in one pass over the matrix: most of a first encoding's time on a phone.
  'mask-pattern': readFileSync(join(root, 'scripts/qr-mask-pattern.cjs'), 'utf8'),
};

/** An esbuild plugin that drops the parts of qrcode's core encoder a byte-mode segment never uses. */
export const qrByteOnly = {
  name: 'qrcode-byte-only',
  setup(build) {
    build.onResolve({ filter: new RegExp(`^\\./(${Object.keys(qrStubs).join('|')})$`) }, (args) =>
      args.resolveDir === qrCore ? { path: args.path.slice(2), namespace: 'qr-stub' } : undefined);
    build.onLoad({ filter: /.*/, namespace: 'qr-stub' }, async (args) =>
      ({ contents: await prefixQrInternals(qrStubs[args.path]), loader: 'js', resolveDir: qrCore }));
  },
};

const identifier = '[A-Za-z$][\\w$]*';

/**
 * The names qrcode's core modules define for one another: what each assigns to `exports`, to a
 * constructor, its prototype or `this`, the keys of the object literals it assigns there or returns,
 * and the members of an `options` argument. Left
 * out: the names widget code that imports qrcode uses (`create`, `modules`…), and the names these
 * modules also read on built-in objects (`encode` of a TextEncoder, `floor` of Math…).
 */
export async function qrInternalNames() {
  const names = new Set();
  const sources = await Promise.all((await readdir(qrCore)).filter((name) => name.endsWith('.js'))
    .map((name) => readFile(join(qrCore, name), 'utf8')));
  for (const source of sources) {
    for (const [, name] of source.matchAll(new RegExp(`^\\s*(?:exports|this|[A-Z]\\w*(?:\\.prototype)?)\\.(?!prototype\\b)(${identifier})\\s*=(?!=)`, 'gm'))) names.add(name);
    // Object literals assigned to exports or a prototype, and those a function returns.
    for (const { index } of source.matchAll(/^(?:(?:exports\.\w+|[A-Z]\w*\.prototype)\s*=|\s*return)\s*\{/gm)) {
      for (const [, key] of topLevel(source, source.indexOf('{', index)).matchAll(new RegExp(`(?:^|,)\\s*(${identifier})\\s*:`, 'g'))) names.add(key);
    }
    // The members of an `options` argument (create's), which only its caller could set.
    for (const [, name] of source.matchAll(new RegExp(`\\boptions\\.(${identifier})`, 'g'))) names.add(name);
  }
  for (const name of await widgetNamesNearQr()) names.delete(name);
  for (const name of builtinNamesReadBy(sources.join('\n'))) names.delete(name);
  return names;
}

// The text of the object literal that opens at `start`, without what nested braces enclose.
function topLevel(source, start) {
  let depth = 0;
  let text = '';
  for (let i = start; i < source.length; i++) {
    const ch = source[i];
    if (ch === '}' && --depth === 0) return text;
    if (depth === 1 && ch !== '{') text += ch;
    if (ch === '{') depth++;
  }
  throw new Error(`unbalanced braces in qrcode's source at ${start}`);
}

// The identifiers in the widget modules that import qrcode (`create`, `modules`, `size`…), not the text of their strings.
async function widgetNamesNearQr() {
  const { default: ts } = await import('typescript');
  const names = new Set();
  const visit = (node) => {
    if (ts.isIdentifier(node)) names.add(node.text);
    ts.forEachChild(node, visit);
  };
  for (const file of await readdir(join(root, 'widget'), { recursive: true })) {
    if (!/(?<!\.d)\.ts$/.test(file)) continue;
    const source = await readFile(join(root, 'widget', file), 'utf8');
    if (/from 'qrcode[/']/.test(source)) visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest));
  }
  return names;
}

// What any built-in object has (`length`, `encode`…), and what `source` reads on built-ins by name (`Math.floor`).
function builtinNamesReadBy(source) {
  const names = new Set();
  for (const key of Object.getOwnPropertyNames(globalThis)) {
    const { value } = Object.getOwnPropertyDescriptor(globalThis, key);
    const prototype = value?.prototype;
    if (prototype === Object(prototype)) for (const name of Object.getOwnPropertyNames(prototype)) names.add(name);
  }
  for (const [, global, name] of source.matchAll(new RegExp(`\\b(${identifier})\\.(${identifier})`, 'g'))) {
    if (Object.hasOwn(globalThis, global)) names.add(name);
  }
  return names;
}

let qrNames;

/** qrcode's core source (or a stub of it) with its internal names prefixed by `_`. */
export async function prefixQrInternals(source) {
  const names = await (qrNames ??= qrInternalNames());
  // Property accesses (not spreads), and object literal keys.
  const use = new RegExp(`(?<!\\.)\\.(${identifier})|(?<=[{,]\\s*)(${identifier})(?=\\s*:)`, 'g');
  return source.replace(use, (whole, property, key) => {
    const name = property ?? key;
    if (!names.has(name)) return whole;
    return property ? `._${name}` : `_${name}`;
  });
}

/** An esbuild plugin that prefixes qrcode's internal names with `_` (qrInternalNames), so that mangleProps shortens them. */
export const qrInternals = {
  name: 'qrcode-internals',
  setup(build) {
    build.onLoad({ filter: /[\\/]qrcode[\\/]lib[\\/]core[\\/][\w-]+\.js$/ }, async (args) =>
      ({ contents: shortErrors(await prefixQrInternals(await readFile(args.path, 'utf8')), 'qrcode'), loader: 'js' }));
  },
};

const stringLiteral = /^(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\$]|\\.)*`)/;

/**
 * `source` with the message of every `Error(…)` it builds from strings (and names joined by `+`)
 * replaced by `"<name>"`: those messages tell a developer of Lit or qrcode how they misused it,
 * never a customer, and weigh about 250 B gzip. Arguments that call anything are left alone.
 */
export function shortErrors(source, name) {
  let out = '';
  let at = 0;
  for (const match of source.matchAll(/\bError\(/g)) {
    const start = match.index + match[0].length;
    if (start < at) continue;
    let i = start;
    let strings = 0;
    for (;;) {
      const rest = source.slice(i);
      const space = /^[\s+]+/.exec(rest);
      if (space) { i += space[0].length; continue; }
      const literal = stringLiteral.exec(rest);
      if (literal) { strings++; i += literal[0].length; continue; }
      const word = /^[\w$.]+/.exec(rest);
      if (word) { i += word[0].length; continue; }
      break;
    }
    if (source[i] !== ')' || strings === 0) continue;
    out += `${source.slice(at, start)}${JSON.stringify(name)}`;
    at = i;
  }
  return out + source.slice(at);
}


/** qrcode's core encoder as the widget bundles it. */
export const qrPlugins = [qrByteOnly, qrInternals];

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
// Property names no page code reads: `_name`, Lit's convention for internals (the element's state,
// its controllers' API, qrcode's internals once qrInternals has prefixed them). Not Lit's own `_$name`.
export const mangleProps = /^_[A-Za-z]/;

// In minified output only template literals keep raw line breaks: fold them with their indentation.
const foldTemplates = (code) => code.replace(/>\n\s*/g, '>').replace(/\n\s*</g, '<').replace(/\n\s*/g, ' ');

/**
 * `code` (esbuild's minified bundle) minified once more by terser: two passes of its compressor,
 * and names given by how often they occur, which gzip compresses better (about 550 B gzip less than
 * esbuild alone). Export names and the `/*!` pointer to the license file stay.
 */
export async function minifyAgain(code) {
  const { minify } = await import('terser');
  const result = await minify(code, { module: true, ecma: 2022, compress: { passes: 2 }, format: { comments: 'some' } });
  return result.code;
}

/** esbuild's bundle of the element as it ships: minified once more (minifyAgain), template literals folded. */
export async function finishBundle(code) {
  return foldTemplates(await minifyAgain(code));
}

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

/** dist/bill-checkout.js: one minified ES module with Lit and the QR encoder inside, the modules it imports on demand beside it (buildOnDemand), and its metafile. */
export async function buildWidget() {
  const onDemand = await buildOnDemand();
  const result = await esbuild.build({
    ...widgetBuild,
    plugins: [...widgetBuild.plugins, onDemandModules(onDemand)],
    entryPoints: ['widget/index.ts'],
    outfile: widgetFile,
    metafile: true,
  });
  await writeFile(widgetFile, await finishBundle(await readFile(widgetFile, 'utf8')));
  await writeFile(widgetMetafile, JSON.stringify(result.metafile));
  await buildNoDomEntry(onDemand);
  return result.metafile;
}

/** dist/types: declarations of the widget's public modules (and none left from modules since moved). */
export async function buildTypes() {
  await rm(join(root, 'dist/types'), { recursive: true, force: true });
  await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root });
}

/** custom-elements.json at the repository root, or in `outdir` (config: custom-elements-manifest.config.mjs). */
export async function buildManifest(outdir = root) {
  const cem = join(dirname(require.resolve('@custom-elements-manifest/analyzer/package.json')), 'cem.js');
  await run(process.execPath, [cem, 'analyze', '--config', 'custom-elements-manifest.config.mjs', '--outdir', relative(root, outdir) || '.'], { cwd: root });
}

export async function build() {
  await mkdir(join(root, 'dist'), { recursive: true });
  await buildWidget();
  await Promise.all([buildTypes(), buildManifest(), buildServer().then(buildServerCard), buildRelease()]);
  await buildDemo();
  await buildAdmin();
}

/** The Vite demo (demo/ → demo/dist), which `npm start` serves at `/`. */
export async function buildDemo() {
  const { build: viteBuild } = await import('vite');
  await viteBuild({ configFile: join(root, 'vite.config.ts'), logLevel: 'warn' });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await build();
  } catch (error) {
    console.error(error?.stderr || error?.stdout || error);
    process.exit(1);
  }
}
