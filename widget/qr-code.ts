import { create } from 'qrcode/lib/core/qrcode.js';

/** A QR symbol as one SVG path: `d` draws the dark modules inside a `size` × `size` square. */
export interface QrPath {
  size: number;
  d: string;
}

/**
 * Encodes `text` (error correction M: qrcode's default, and the only level the bundle keeps, see
 * scripts/build.mjs) into a path of dark-module runs, with a quiet zone.
 */
export function qrPath(text: string, quietZone = 4): QrPath {
  const { size, data } = create([{ data: text, mode: 'byte' }]).modules;
  let d = '';
  for (let y = 0; y < size; y++) {
    const row = y * size;
    for (let x = 0; x < size; x++) {
      if (!data[row + x]) continue;
      let run = 1;
      while (x + run < size && data[row + x + run]) run++;
      d += `M${x + quietZone} ${y + quietZone}h${run}v1h-${run}z`;
      x += run;
    }
  }
  return { size: size + 2 * quietZone, d };
}
