import { create } from 'qrcode/lib/core/qrcode.js';

/**
 * A QR symbol as one SVG path: `d` draws the dark modules inside a `size` × `size` square, as
 * strokes one module wide (`stroke` dark, no fill of its own).
 */
export interface QrPath {
  size: number;
  d: string;
}

/**
 * Encodes `text` (error correction M: qrcode's default, and the only level the bundle keeps, see
 * scripts/build.mjs) into a path of dark-module runs, with a quiet zone. Each row's first run is
 * `M{x} {y}.5h{run}` (a line through the middle of the row's modules), the next ones in the row
 * `m{gap} 0h{run}` from the end of the one before: about half the bytes of filled rectangles
 * (`M{x} {y}h{run}v1h-{run}z`), which the server sends inline in its HTML to a phone.
 */
export function qrPath(text: string, quietZone = 4): QrPath {
  const { size, data } = create([{ data: text, mode: 'byte' }]).modules;
  let d = '';
  for (let y = 0; y < size; y++) {
    let end = -1;
    for (let x = 0; x < size; x++) {
      if (!data[y * size + x]) continue;
      let run = 1;
      while (x + run < size && data[y * size + x + run]) run++;
      d += end < 0 ? `M${x + quietZone} ${y + quietZone}.5h${run}` : `m${x - end} 0h${run}`;
      x = end = x + run;
    }
  }
  return { size: size + 2 * quietZone, d };
}
