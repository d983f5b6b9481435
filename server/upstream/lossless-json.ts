// JSON.parse turns 12345678901234567.89 into a double and loses digits. Before parsing, the raw
// number tokens of named members are wrapped in quotes, so they arrive as their exact text.

// JSON's own number grammar: `012.50` is no JSON number, so it must not become the string "012.50".
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const SPACE = /[ \t\n\r]*/y;

function skipSpace(text: string, at: number): number {
  SPACE.lastIndex = at;
  SPACE.exec(text);
  return SPACE.lastIndex;
}

/** Index just past the string literal that starts at `at` (which holds `"`). */
function stringEnd(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else i += 1;
  }
  return text.length;
}

/**
 * `text` with every number value of a member named in `fields` turned into a JSON string with the
 * same characters. Anything inside string literals is left alone; invalid JSON passes through so
 * that JSON.parse reports it.
 */
export function quoteNumberMembers(text: string, fields: ReadonlySet<string>): string {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    if (text[i] !== '"') {
      i += 1;
      continue;
    }
    const end = stringEnd(text, i);
    const name = text.slice(i + 1, end - 1);
    i = end;
    if (!fields.has(name)) continue;
    const colon = skipSpace(text, end);
    if (text[colon] !== ':') continue;
    const start = skipSpace(text, colon + 1);
    NUMBER.lastIndex = start;
    const m = NUMBER.exec(text);
    if (!m) continue;
    out += `${text.slice(copied, start)}"${m[0]}"`;
    copied = start + m[0].length;
    i = copied;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The amount members of sections 2.2 and 2.3. */
export const AMOUNT_FIELDS: ReadonlySet<string> = new Set(['billAmount', 'requireGCAmount', 'amount']);

/** JSON.parse that keeps the exact digits of amount members (as strings). Throws SyntaxError. */
export function parseJsonLossless(text: string, fields: ReadonlySet<string> = AMOUNT_FIELDS): unknown {
  return JSON.parse(quoteNumberMembers(text, fields));
}
