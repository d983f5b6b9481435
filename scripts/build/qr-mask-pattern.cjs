// qrcode's lib/core/mask-pattern.js as the widget bundles it (scripts/build/qr-encoder.mjs, qrStubs): the same
// choice of mask (ISO/IEC 18004's penalty rules N1–N4, lowest score, first of equals), with the
// eight masks scored together: each module is a byte whose bit k is its colour under mask k, and
// the rules run bitwise on those bytes, one pass over each row and column, where qrcode makes eight
// passes of a method call per module and rule. On a phone's CPU the eight scores were most of a QR
// code's first encoding.
// test/build/qr-encoder.test.ts compares the symbols with qrcode's own.

const masks = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (i, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => (i * j) % 2 + (i * j) % 3 === 0,
  (i, j) => ((i * j) % 2 + (i * j) % 3) % 2 === 0,
  (i, j) => ((i * j) % 3 + (i + j) % 2) % 2 === 0,
];

let flipTable;

// Bit k of flips()[i % 12 * 12 + j % 12]: whether mask k flips the module of row i, column j (each
// mask repeats every 12 rows and every 12 columns). Built at the first encoding, not when the
// bundle is evaluated: a page that shows the pay button never needs it.
function flips() {
  if (!flipTable) {
    flipTable = new Uint8Array(144);
    for (let k = 0; k < 8; k++) for (let i = 0; i < 144; i++) flipTable[i] |= masks[k](i / 12 | 0, i % 12) << k;
  }
  return flipTable;
}

exports.from = () => {};

exports.applyMask = (pattern, matrix) => {
  // Property reads, not a destructuring: the build prefixes qrcode's internal names (reservedBit) in them.
  const size = matrix.size;
  const data = matrix.data;
  const reserved = matrix.reservedBit;
  const flipped = flips();
  for (let i = 0, row = 0; row < size; row++) {
    for (let col = 0; col < size; col++, i++) {
      if (!reserved[i] && flipped[row % 12 * 12 + col % 12] >> pattern & 1) data[i] ^= 1;
    }
  }
};

// One row or column of `masked` (from `at`, every `step`), counted into `counts` by the byte of the
// eight masks it concerns (below). The runs are bitwise thermometers: bit k of `atLeast5` says the
// run of mask k is 5 modules long or more. Finder-like patterns (N3, an 11-module window) are a
// dark 1:1:3:1:1 `core` with four light modules (`light`: a light run's 4th module or more) before
// it or after it.
function scoreLine(masked, counts, at, step, size) {
  // Unlike every mask's colour: the line's first module starts a run.
  let previous = masked[at] ^ 255;
  let atLeast2 = 0, atLeast3 = 0, atLeast4 = 0, atLeast5 = 0;
  let x1 = 0, x2 = 0, x3 = 0, x4 = 0, x5 = 0, x6 = 0;
  let core1 = 0, core2 = 0, core3 = 0, core4 = 0;
  let light1 = 0, light2 = 0, light3 = 0, light4 = 0, light5 = 0, light6 = 0, light7 = 0;
  for (let b = 0; b < size; b++, at += step) {
    const x = masked[at];
    counts[x]++;
    const same = ~(x ^ previous) & 255;
    previous = x;
    counts[512 + (same & atLeast4 & ~atLeast5)]++;
    atLeast5 = same & atLeast4;
    atLeast4 = same & atLeast3;
    atLeast3 = same & atLeast2;
    atLeast2 = same;
    counts[256 + atLeast5]++;
    const core = x6 & ~x5 & x4 & x3 & x2 & ~x1 & x;
    const light = atLeast4 & ~x;
    // From the 11th module on, the window is inside the line.
    if (b >= 10) counts[1024 + (core4 & light | light7 & core)]++;
    x6 = x5; x5 = x4; x4 = x3; x3 = x2; x2 = x1; x1 = x;
    core4 = core3; core3 = core2; core2 = core1; core1 = core;
    light7 = light6; light6 = light5; light5 = light4; light4 = light3; light3 = light2; light2 = light1; light1 = light;
  }
}

exports.getBestMask = (matrix, setupFormat) => {
  const size = matrix.size;
  const data = matrix.data;
  const reserved = matrix.reservedBit;
  const n = size * size;
  // Every module under the eight masks. The reserved ones do not take the mask, but the format
  // information among them names the mask: each of the eight is written in turn.
  const masked = new Uint8Array(n);
  const flipped = flips();
  const fixed = [];
  for (let i = 0, row = 0; row < size; row++) {
    for (let col = 0; col < size; col++, i++) {
      if (reserved[i]) fixed.push(i);
      else masked[i] = -data[i] & 255 ^ flipped[row % 12 * 12 + col % 12];
    }
  }
  for (let k = 0; k < 8; k++) {
    setupFormat(k);
    for (const i of fixed) masked[i] |= data[i] << k;
  }
  // counts[256 * rule + byte]: how many times the masks of `byte` met the rule. Rules: 0, a dark
  // module (seen twice, once in its row, once in its column); 1, a module of a run from its 5th
  // (N1, 1 point); 2, a run reaching 5 (N1, 2 points more); 3, a 2 × 2 block of one colour (N2,
  // 3 points); 4, a finder-like pattern (N3, 40 points).
  const counts = new Int32Array(1280);
  for (let a = 0; a < size; a++) {
    scoreLine(masked, counts, a * size, 1, size);
    scoreLine(masked, counts, a, size, size);
  }
  for (let i = 0; i < n - size - 1; i++) {
    if ((i + 1) % size) {
      const a = masked[i], b = masked[i + 1], c = masked[i + size], d = masked[i + size + 1];
      counts[768 + (a & b & c & d | ~(a | b | c | d) & 255)]++;
    }
  }
  let best = 0;
  let lowest = Infinity;
  for (let k = 0; k < 8; k++) {
    let dark = 0;
    let points = 0;
    for (let byte = 1; byte < 256; byte++) {
      if (byte >> k & 1) {
        dark += counts[byte] / 2;
        points += counts[256 + byte] + 2 * counts[512 + byte] + 3 * counts[768 + byte] + 40 * counts[1024 + byte];
      }
    }
    // N4: 10 points per 5 % that the dark share is away from 50 %.
    const score = points + Math.abs(Math.ceil((dark * 100 / n) / 5) - 10) * 10;
    if (score < lowest) {
      lowest = score;
      best = k;
    }
  }
  return best;
};
