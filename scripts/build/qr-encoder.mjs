// qrcode's core encoder as the element bundles it: the modules a byte-mode segment at level M never
// needs replaced by stubs (qrByteOnly), and the names its modules define for one another prefixed
// with `_` (qrInternals), so that mangleProps (minify.mjs) shortens them.
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { root } from './root.mjs';
import { shortErrors } from './short-errors.mjs';

const require = createRequire(import.meta.url);

const qrEntry = require.resolve('qrcode/lib/core/qrcode.js');
const qrCore = dirname(qrEntry);
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
  'mask-pattern': readFileSync(new URL('./qr-mask-pattern.cjs', import.meta.url), 'utf8'),
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

/**
 * qrcode's core entry (lib/core/qrcode.js) as an ES module: its one export, `create`, exported by
 * name. Imported from CommonJS, esbuild would wrap it in its interop helpers (__toESM, __copyProps:
 * about 200 B gzip of the drop-in) to read one function; its `require()`s of the other modules stay.
 */
export function qrEntryAsEsm(source) {
  const exported = /^exports\.create = function create \(/m;
  if (!exported.test(source)) throw new Error('qrcode-internals: lib/core/qrcode.js no longer has `exports.create = function create (`: update qrEntryAsEsm');
  return source.replace(exported, 'export function create (');
}

/** An esbuild plugin that prefixes qrcode's internal names with `_` (qrInternalNames), so that mangleProps shortens them, and loads its core entry as an ES module (qrEntryAsEsm). */
export const qrInternals = {
  name: 'qrcode-internals',
  setup(build) {
    build.onLoad({ filter: /[\\/]qrcode[\\/]lib[\\/]core[\\/][\w-]+\.js$/ }, async (args) => {
      const source = shortErrors(await prefixQrInternals(await readFile(args.path, 'utf8')), 'qrcode');
      return { contents: args.path === qrEntry ? qrEntryAsEsm(source) : source, loader: 'js' };
    });
  },
};

/** qrcode's core encoder as the widget bundles it. */
export const qrPlugins = [qrByteOnly, qrInternals];
