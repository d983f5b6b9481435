// qrcode's lib/core/mask-pattern.js as the widget bundles it (scripts/build.mjs, qrStubs): the same
// choice of mask (ISO/IEC 18004's penalty rules N1–N4, lowest score, first of equals), scored in
// one pass over the matrix's bytes instead of four passes of a method call per module. On a
// phone's CPU the eight scores were most of a QR code's first encoding.
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

exports.from = () => {};

exports.applyMask = (pattern, matrix) => {
  // Property reads, not a destructuring: the build prefixes qrcode's internal names (reservedBit) in them.
  const size = matrix.size;
  const data = matrix.data;
  const reserved = matrix.reservedBit;
  const mask = masks[pattern];
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      if (!reserved[row * size + col] && mask(row, col)) data[row * size + col] ^= 1;
    }
  }
};

// N1: 3 + (n − 5) per run of n ≥ 5 modules of one colour in a row or column; N2: 3 per 2 × 2
// block of one colour; N3: 40 per 1:1:3:1:1 finder-like pattern with four light modules on one
// side (an 11-bit window); N4: 10 per 5 % that the dark share is away from 50 %.
function penalty(matrix) {
  const size = matrix.size;
  const data = matrix.data;
  let points = 0;
  let dark = 0;
  for (let a = 0; a < size; a++) {
    let runRow = 0;
    let runCol = 0;
    let lastRow = -1;
    let lastCol = -1;
    let bitsRow = 0;
    let bitsCol = 0;
    for (let b = 0; b < size; b++) {
      const inRow = data[a * size + b];
      const inCol = data[b * size + a];
      dark += inRow;
      if (inRow === lastRow) runRow++;
      else {
        if (runRow >= 5) points += runRow - 2;
        lastRow = inRow;
        runRow = 1;
      }
      if (inCol === lastCol) runCol++;
      else {
        if (runCol >= 5) points += runCol - 2;
        lastCol = inCol;
        runCol = 1;
      }
      bitsRow = ((bitsRow << 1) & 0x7ff) | inRow;
      bitsCol = ((bitsCol << 1) & 0x7ff) | inCol;
      if (b >= 10) {
        if (bitsRow === 0x5d0 || bitsRow === 0x05d) points += 40;
        if (bitsCol === 0x5d0 || bitsCol === 0x05d) points += 40;
      }
      if (a < size - 1 && b < size - 1) {
        const block = inRow + data[a * size + b + 1] + data[(a + 1) * size + b] + data[(a + 1) * size + b + 1];
        if (block === 0 || block === 4) points += 3;
      }
    }
    if (runRow >= 5) points += runRow - 2;
    if (runCol >= 5) points += runCol - 2;
  }
  return points + Math.abs(Math.ceil((dark * 100 / data.length) / 5) - 10) * 10;
}

exports.getBestMask = (matrix, setupFormat) => {
  let best = 0;
  let lowest = Infinity;
  for (let pattern = 0; pattern < 8; pattern++) {
    setupFormat(pattern);
    exports.applyMask(pattern, matrix);
    const score = penalty(matrix);
    exports.applyMask(pattern, matrix);
    if (score < lowest) {
      lowest = score;
      best = pattern;
    }
  }
  return best;
};
