// scripts/build/qr-encoder.mjs: the QR encoder as the bundle builds it (qrcode's core with its unused
// modules stubbed by tables and its internal names prefixed, then mangled) draws what the qrcode
// package draws.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import type { QRCode } from 'qrcode';

const root = new URL('../..', import.meta.url).pathname;
const { widgetBuild } = await import(pathToFileURL(join(root, 'scripts/build/widget-config.mjs')).href) as { widgetBuild: esbuild.BuildOptions };
const { qrEntryAsEsm, qrInternalNames } = await import(pathToFileURL(join(root, 'scripts/build/qr-encoder.mjs')).href) as {
  qrEntryAsEsm(source: string): string;
  qrInternalNames(): Promise<Set<string>>;
};
const require = createRequire(import.meta.url);
const qrcode = require('qrcode') as { create(data: { data: string; mode: 'byte' }[], options: { errorCorrectionLevel: 'M' }): QRCode };
const entry = { contents: "export { qrPath } from './widget/qr-code.ts';", resolveDir: root, loader: 'ts' } as const;

let dir: string;
let qrPath: (text: string) => { size: number; d: string };
let bundled: string;
let inputs: string[];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'qr-encoder-'));
  const outfile = join(dir, 'encoder.mjs');
  const { metafile } = await esbuild.build({ ...widgetBuild, stdin: entry, outfile, metafile: true });
  inputs = Object.keys(metafile.inputs);
  bundled = await readFile(outfile, 'utf8');
  ({ qrPath } = await import(pathToFileURL(outfile).href) as { qrPath: typeof qrPath });
});

after(() => rm(dir, { recursive: true, force: true }));

// The dark modules a path of runs draws (each row's first `M{x} {y}.5h{run}`, the next ones
// `m{gap} 0h{run}`: strokes one module wide), without its 4-module quiet zone.
function matrixOf({ size, d }: { size: number; d: string }): { size: number; dark: string } {
  const inner = size - 8;
  const cells = new Uint8Array(inner * inner);
  let x = 0;
  let y = 0;
  assert.match(d, /^(?:M\d+ \d+\.5h\d+(?:m\d+ 0h\d+)*)*$/, 'runs only');
  for (const [, move, a, b, run] of d.matchAll(/([Mm])(\d+) (\d+)(?:\.5)?h(\d+)/g)) {
    if (move === 'M') [x, y] = [Number(a) - 4, Number(b) - 4];
    else x += Number(a);
    for (let i = 0; i < Number(run); i++) cells[y * inner + x + i] = 1;
    x += Number(run);
  }
  return { size: inner, dark: cells.join('') };
}

function reference(text: string): { size: number; dark: string } {
  const { size, data } = qrcode.create([{ data: text, mode: 'byte' }], { errorCorrectionLevel: 'M' }).modules;
  return { size, dark: Array.from(data, (bit) => (bit ? 1 : 0)).join('') };
}

// Deterministic: the same URLs on every run.
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function urls(): string[] {
  const next = random(14);
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%/?=&';
  const url = (length: number, extra = '') => {
    let text = `https://pay.example/bill/${extra}`;
    while (text.length < length) text += chars[Math.floor(next() * chars.length)];
    return text.slice(0, length);
  };
  // Byte capacities at level M: a URL that just fits a version, and one byte more.
  const capacities = [26, 42, 62, 84, 106, 122, 152, 180, 213, 251, 287, 331, 362, 412, 450, 504, 560, 624, 666, 711, 779, 857, 911, 997];
  const list = capacities.flatMap((c) => [c - 1, c, c + 1]).filter((n) => n >= 20 && n <= 1000).map((n) => url(n));
  list.push(url(20), url(1000));
  while (list.length < 240) list.push(url(20 + Math.floor(next() * 981)));
  // Beyond ASCII: more bytes than characters.
  for (let i = 0; i < 10; i++) list.push(url(20 + Math.floor(next() * 500), 'é✓'));
  return list;
}

test('the encoder is built as the bundle builds it: stubs in, the optimizer out, internals mangled', () => {
  assert.ok(inputs.includes('qr-stub:segments') && inputs.includes('qr-stub:version'), inputs.join(', '));
  assert.ok(!inputs.some((input) => /dijkstrajs|kanji-data/.test(input)), inputs.join(', '));
  assert.ok(!/\bgetBestMask\b|\bapplyMask\b/.test(bundled), 'qrcode internals are mangled');
});

test('the stubbed, mangled encoder draws what qrcode draws (byte mode, level M), at 250 URLs of 20 to 1,000 characters', () => {
  const list = urls();
  assert.ok(list.length >= 250);
  const versions = new Set<number>();
  for (const url of list) {
    const expected = reference(url);
    versions.add((expected.size - 17) / 4);
    assert.deepEqual(matrixOf(qrPath(url)), expected, `${url.length} characters: ${url}`);
  }
  // From version 2 (20 bytes) to version 25 (997 bytes and a few more).
  assert.ok(versions.has(2) && versions.has(25) && versions.has(26), [...versions].sort((a, b) => a - b).join(' '));
});

test('qrcode\'s core entry is loaded as an ES module: no CommonJS interop helpers to read create', () => {
  assert.doesNotMatch(bundled, /__toESM|__copyProps|getOwnPropertyNames|"default"/);
  assert.throws(() => qrEntryAsEsm('module.exports = { create }'), /qrEntryAsEsm/);
});

test('qrcode\'s internal names are derived from its own modules, less what widget code and built-ins use', async () => {
  const names = await qrInternalNames();
  for (const name of ['applyMask', 'getBestMask', 'getPenaltyN1', 'getBCHDigit', 'generateECPolynomial', 'getSymbolSize',
    'getBestVersionForData', 'getCharCountIndicator', 'fromArray', 'putBit', 'getLengthInBits', 'reservedBit', 'ccBits', 'PATTERN000']) {
    assert.ok(names.has(name), `${name} is an internal name`);
  }
  // The widget calls create() and reads modules, size and data; qrcode also reads encode on a
  // TextEncoder and set on a Uint8Array, and floor on Math.
  for (const name of ['create', 'modules', 'size', 'data', 'encode', 'set', 'floor', 'length', 'prototype']) {
    assert.ok(!names.has(name), `${name} is not an internal name`);
  }
});

test('nothing qrcode defines for itself is left unprefixed in the encoder, but what widget code or built-ins use', async () => {
  const { outputFiles } = await esbuild.build({
    ...widgetBuild, stdin: entry, minify: false, mangleProps: undefined, write: false, legalComments: 'none',
  });
  const code = outputFiles[0]!.text;
  const widget = await readFile(join(root, 'widget/qr-code.ts'), 'utf8');
  const builtin = (name: string) => Object.getOwnPropertyNames(globalThis).some((key) => {
    const prototype = (Object.getOwnPropertyDescriptor(globalThis, key)?.value as { prototype?: unknown } | undefined)?.prototype;
    return prototype === Object(prototype) && Object.hasOwn(prototype as object, name);
  });
  const defined = [...code.matchAll(/^\s*(?:exports|this|[A-Z]\w*(?:\.prototype)?)\.(?!prototype\b)([A-Za-z_$][\w$]*)\s*=(?!=)/gm)].map((m) => m[1]!);
  assert.ok(defined.filter((name) => name.startsWith('_')).length > 30, defined.join(' '));
  const left = [...new Set(defined.filter((name) => !name.startsWith('_')))];
  for (const name of left) {
    assert.ok(new RegExp(`\\b${name}\\b`).test(widget) || builtin(name), `${name} is defined by qrcode and not prefixed`);
  }
  // create, the one name the widget imports, is exported as an ES module's (qrEntryAsEsm).
  assert.ok(!left.includes('create'));
  assert.match(code, /^function create\(/m);
  // And mangled in the bundle (mangled names are one or two characters).
  for (const name of await qrInternalNames()) {
    if (name.length > 2) assert.ok(!new RegExp(`[.{,]_?${name}\\b`).test(bundled), `${name} is left in the bundle`);
  }
});
