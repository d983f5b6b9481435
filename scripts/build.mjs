// npm run build: the drop-in widget bundle, its type declarations and custom-elements.json.
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const run = promisify(execFile);

export const widgetFile = join(root, 'dist/bill-checkout.js');
export const widgetMetafile = join(root, 'dist/bill-checkout.meta.json');

const qrCore = dirname(require.resolve('qrcode/lib/core/qrcode.js'));
const core = (name) => require(`qrcode/lib/core/${name}.js`);
const [ecc, { M }, version, utils, { BYTE }] = ['error-correction-code', 'error-correction-level', 'version', 'utils', 'mode'].map(core);
const versions = Array.from({ length: 40 }, (_, i) => i + 1);
const table = (f) => `[${versions.map(f)}]`;
const qrStubs = {
  // widget/qr-code.ts passes one byte segment: the other modes and the mixed-mode optimizer
  // (dijkstrajs, kanji tables) are dead code. Output is identical; test/widget/qr-code.test.ts compares.
  segments: "const B=require('./byte-data');exports.fromArray=a=>a.map(s=>new B(s.data))",
  // Level M and byte mode only: tables computed here from qrcode's own functions.
  'error-correction-level': 'exports.M={bit:0};exports.from=()=>exports.M',
  'error-correction-code': `const B=${table((v) => ecc.getBlocksCount(v, M))},C=${table((v) => ecc.getTotalCodewordsCount(v, M))};`
    + 'exports.getBlocksCount=v=>B[v-1];exports.getTotalCodewordsCount=v=>C[v-1]',
  version: `const C=${table((v) => version.getCapacity(v, M, BYTE))},E=${table((v) => (v < 7 ? 0 : version.getEncodedBits(v)))};`
    + 'exports.from=()=>{};exports.getEncodedBits=v=>E[v-1];'
    + 'exports.getBestVersionForData=([s])=>C.findIndex(c=>s.getLength()<=c)+1||void 0',
  utils: `const W=[0,...${table(utils.getSymbolTotalCodewords)}];`
    + 'exports.getSymbolSize=v=>v*4+17;exports.getSymbolTotalCodewords=v=>W[v];exports.getBCHDigit=d=>32-Math.clz32(d)',
  mode: 'exports.BYTE={bit:4,ccBits:[8,16,16]};exports.MIXED={bit:-1};exports.getCharCountIndicator=(m,v)=>m.ccBits[v<10?0:v<27?1:2]',
};

/** An esbuild plugin that drops the parts of qrcode's core encoder a byte-mode segment never uses. */
export const qrByteOnly = {
  name: 'qrcode-byte-only',
  setup(build) {
    build.onResolve({ filter: /^\.\/(segments|mode|error-correction-level|error-correction-code|version|utils)$/ }, (args) =>
      args.resolveDir === qrCore ? { path: args.path.slice(2), namespace: 'qr-stub' } : undefined);
    build.onLoad({ filter: /.*/, namespace: 'qr-stub' }, (args) =>
      ({ contents: qrStubs[args.path], loader: 'js', resolveDir: qrCore }));
  },
};

/** An esbuild plugin that minifies the CSS of `css` tagged templates without interpolations in widget/styles.ts. */
export const minifyCss = {
  name: 'minify-css-templates',
  setup(build) {
    build.onLoad({ filter: /widget[\\/]styles\.ts$/ }, async (args) => {
      let source = await readFile(args.path, 'utf8');
      for (const [whole, text] of source.matchAll(/css`([^`$]*)`/g)) {
        const { code } = await esbuild.transform(text, { loader: 'css', minify: true, target: 'chrome100' });
        source = source.replace(whole, `css\`${code.trim()}\``);
      }
      return { contents: source, loader: 'ts' };
    });
  },
};

// Property names no page code reads: the element's private state (`_name`, Lit's convention), its
// controllers' internal API, and qrcode's internal functions.
export const mangleProps = new RegExp(`^(_[a-z]\\w*|${[
  'follow', 'checkNow', 'remaining', 'observe', 'eventsUrl', 'onView', 'onError', 'pollInterval',
  'applyMask', 'generateECPolynomial', 'getBCHDigit', 'getBestMask', 'getBestVersionForData', 'getBitsLength',
  'getCapacity', 'getEncodedBits', 'getPenaltyN1', 'getPenaltyN2', 'getPenaltyN3', 'getPenaltyN4', 'getPositions',
  'getRowColCoords', 'getSymbolSize', 'getSymbolTotalCodewords', 'isKanjiModeEnabled', 'isReserved',
  'setToSJISFunction', 'toSJIS', 'getBlocksCount', 'getTotalCodewordsCount', 'getCharCountIndicator', 'reservedBit',
  'genPoly', 'degree', 'getLengthInBits', 'putBit', 'ccBits', 'Patterns', 'PATTERN[01]{3}', 'fromArray', 'rawSplit',
  'errorCorrectionLevel', 'maskPattern', 'toSJISFunc', 'moduleCount',
].join('|')})$`);

// In minified output only template literals keep raw line breaks: fold them with their indentation.
const foldTemplates = (code) => code.replace(/>\n\s*/g, '>').replace(/\n\s*</g, '<').replace(/\n\s*/g, ' ');

/** dist/bill-checkout.js: one minified ES module with Lit and the QR encoder inside. */
export async function buildWidget() {
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['widget/index.ts'],
    outfile: widgetFile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'linked',
    tsconfig: 'tsconfig.json',
    metafile: true,
    plugins: [qrByteOnly, minifyCss],
    mangleProps,
    logLevel: 'warning',
  });
  await writeFile(widgetFile, foldTemplates(await readFile(widgetFile, 'utf8')));
  await writeFile(widgetMetafile, JSON.stringify(result.metafile));
  return result.metafile;
}

/** dist/types: declarations of the widget's public modules. */
export async function buildTypes() {
  await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root });
}

/** custom-elements.json at the repository root (config: custom-elements-manifest.config.mjs). */
export async function buildManifest() {
  const cem = join(dirname(require.resolve('@custom-elements-manifest/analyzer/package.json')), 'cem.js');
  await run(process.execPath, [cem, 'analyze', '--config', 'custom-elements-manifest.config.mjs'], { cwd: root });
}

export async function build() {
  await mkdir(join(root, 'dist'), { recursive: true });
  await buildWidget();
  await Promise.all([buildTypes(), buildManifest()]);
  await buildDemo();
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
