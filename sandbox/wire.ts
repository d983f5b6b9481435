// JSON text with exact amounts: numbers are read and written as their digits, never as doubles.

/** A JSON number kept as the text it was (or will be) written with. */
export class NumberText {
  constructor(readonly text: string) {}
}

export type ExactJson = null | boolean | string | NumberText | ExactJson[] | { [k: string]: ExactJson };

/**
 * Parses JSON like JSON.parse (and throws where it throws) but yields every number as NumberText,
 * so `12345678901.23` or `0.1` keep their digits.
 */
export function parseExactJson(text: string): ExactJson {
  JSON.parse(text); // validates; the walk below may then assume well-formed input
  let i = 0;
  const skip = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const value = (): ExactJson => {
    skip();
    const ch = text[i]!;
    if (ch === '{') {
      i++;
      const obj: Record<string, ExactJson> = {};
      skip();
      if (text[i] === '}') { i++; return obj; }
      for (;;) {
        skip();
        const key = string();
        skip();
        i++; // ':'
        obj[key] = value();
        skip();
        if (text[i++] === '}') return obj;
      }
    }
    if (ch === '[') {
      i++;
      const arr: ExactJson[] = [];
      skip();
      if (text[i] === ']') { i++; return arr; }
      for (;;) {
        arr.push(value());
        skip();
        if (text[i++] === ']') return arr;
      }
    }
    if (ch === '"') return string();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (text.startsWith('null', i)) { i += 4; return null; }
    const m = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    i += m![0].length;
    return new NumberText(m![0]);
  };
  const string = (): string => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  return value();
}

/** JSON text in which NumberText values are written verbatim. */
export function toJsonText(value: unknown): string {
  if (value instanceof NumberText) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => toJsonText(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
