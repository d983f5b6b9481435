import { expect } from '@open-wc/testing';
import { qrPath } from '../../widget/qr-code.js';

const url125 = `https://pay.example/bill/${'a1B2c3D4e5'.repeat(10)}`;

/** The dark modules of a path of runs: each row's first `M{x} {y}.5h{run}`, the next ones `m{gap} 0h{run}`. */
function dark(d: string): Set<string> {
  const cells = new Set<string>();
  let x = 0;
  let y = 0;
  for (const [, move, a, b, run] of d.matchAll(/([Mm])(\d+) (\d+)(?:\.5)?h(\d+)/g)) {
    if (move === 'M') [x, y] = [Number(a), Number(b)];
    else x += Number(a);
    for (let i = 0; i < Number(run); i++) cells.add(`${x + i},${y}`);
    x += Number(run);
  }
  return cells;
}

describe('qrPath', () => {
  it('encodes a 125-character URL in byte mode as version 8 (49 modules) plus a 4-module quiet zone', () => {
    expect(url125).to.have.length(125);
    const { size, d } = qrPath(url125);
    expect(size).to.equal(57);
    const cells = dark(d);
    for (const cell of cells) {
      const [x, y] = cell.split(',').map(Number) as [number, number];
      expect(x >= 4 && x < 53 && y >= 4 && y < 53, `${cell} inside the quiet zone`).to.equal(true);
    }
  });

  it('draws the three finder patterns', () => {
    const cells = dark(qrPath(url125).d);
    for (const [ox, oy] of [[4, 4], [46, 4], [4, 46]] as const) {
      for (let i = 0; i < 7; i++) {
        expect(cells.has(`${ox + i},${oy}`) && cells.has(`${ox},${oy + i}`)).to.equal(true);
      }
      expect(cells.has(`${ox + 1},${oy + 1}`), 'ring of light modules').to.equal(false);
      expect(cells.has(`${ox + 3},${oy + 3}`), 'dark center').to.equal(true);
    }
  });

  it('draws each run as a stroke one module wide, its row\'s first from an absolute point, the next from the run before', () => {
    const { d } = qrPath(url125);
    expect(d).to.match(/^(?:M\d+ \d+\.5h\d+(?:m\d+ 0h\d+)*)*$/);
    // The top row of the symbol starts with the top left finder pattern's seven modules.
    expect(d.startsWith('M4 4.5h7m')).to.equal(true);
  });

  it('grows with the data and keeps short texts small', () => {
    expect(qrPath('https://a.example/').size, '18 bytes: version 2').to.equal(25 + 8);
    expect(qrPath('x'.repeat(300)).size).to.be.greaterThan(57);
  });
});
