// Developer-facing error messages of bundled dependencies shortened to their package's name
// (used by the QR encoder's and Lit's plugins: qr-encoder.mjs, lit-hooks.mjs).

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
