// The QR code of a bill URL as images a page or an e-mail can hold: SVG, and PNG for the e-mail
// clients that block SVG. Dark on white with a quiet zone of 4 modules, from the element's own
// encoder (widget/qr-code.ts, which the build bundles for the server: no qrcode at run time).
// The PNG is written here (a few chunks; its pixels deflated by CompressionStream, which Node,
// Bun and Deno all have): no image library.
import { qrPath, type QrPath } from '../../../widget/qr-code.js';

/**
 * Most bytes one QR code holds: widget/qr-code.ts encodes its text as one byte-mode segment (the
 * text's UTF-8 bytes) at error correction M, and a version 40 symbol holds 2,331 bytes so (2,953
 * at level L, which the encoder does not use). test/server/http/render/qr-images.test.ts checks the number
 * against qrcode's own table.
 */
export const QR_MAX_BYTES = 2331;

const utf8 = new TextEncoder();

/** The bytes the QR encoder writes for `text`: its UTF-8 encoding. */
export function qrBytes(text: string): number {
  return utf8.encode(text).length;
}

/**
 * Whether `text` fits in one QR code. Give the text as it is encoded: a bill's URL as the element
 * shows it (safeUrl's `href`, with its non-ASCII characters percent-encoded: up to 9 bytes for
 * one character), not as the service wrote it.
 */
export function qrFits(text: string): boolean {
  // At most 3 UTF-8 bytes per UTF-16 unit (a surrogate pair is 4 for 2): a short text fits unencoded.
  return text.length * 3 <= QR_MAX_BYTES || qrBytes(text) <= QR_MAX_BYTES;
}

/**
 * The QR symbol of `text`, as the element draws it: a path of dark-module runs inside a `size`
 * square (quiet zone included). Throws when the text does not fit (check qrFits first).
 */
export function qrCode(text: string): QrPath {
  return qrPath(text);
}

/** A standalone SVG document of the symbol, `pixels` wide (8 per module by default). */
export function qrSvg({ size, d }: QrPath, pixels = size * 8): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" width="${pixels}" height="${pixels}" shape-rendering="crispEdges">` +
    `<rect width="${size}" height="${size}" fill="#fff"/><path d="${d}" stroke="#000"/></svg>`;
}

/**
 * The dark modules of a symbol (quiet zone included), row by row, read back from its path: each
 * row's first run `M{x} {y}.5h{run}`, the next ones `m{gap} 0h{run}` (widget/qr-code.ts).
 */
export function qrModules({ size, d }: QrPath): Uint8Array {
  const dark = new Uint8Array(size * size);
  let x = 0;
  let y = 0;
  for (const [, move, a, b, run] of d.matchAll(/([Mm])(\d+) (\d+)(?:\.5)?h(\d+)/g)) {
    if (move === 'M') [x, y] = [Number(a), Number(b)];
    else x += Number(a);
    dark.fill(1, y * size + x, y * size + x + Number(run));
    x += Number(run);
  }
  return dark;
}

let crcTable: Uint32Array | undefined;
function crc32(bytes: Uint8Array): number {
  crcTable ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let crc = 0xffffffff;
  for (const b of bytes) crc = crcTable[(crc ^ b) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

async function deflate(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  // 'deflate' is the zlib format (RFC 1950): what a PNG's IDAT holds.
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A 1-bit greyscale PNG of the symbol, `scale` pixels per module (8 by default). */
export async function qrPng(qr: QrPath, scale = 8): Promise<Uint8Array<ArrayBuffer>> {
  const dark = qrModules(qr);
  const width = qr.size * scale;
  const rowBytes = Math.ceil(width / 8);
  const raw = new Uint8Array((rowBytes + 1) * width);
  for (let y = 0; y < width; y++) {
    const row = (y * (rowBytes + 1));
    // Filter type 0, then the row's bits: 1 is white, 0 black.
    raw.fill(0xff, row + 1, row + 1 + rowBytes);
    const my = Math.floor(y / scale);
    for (let x = 0; x < width; x++) {
      if (dark[my * qr.size + Math.floor(x / scale)]) raw[row + 1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
    }
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, width);
  header.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, filter 0, no interlace
  const parts = [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', await deflate(raw)), chunk('IEND', new Uint8Array())];
  const png = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    png.set(part, at);
    at += part.length;
  }
  return png;
}
