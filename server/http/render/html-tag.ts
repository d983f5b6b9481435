// A string-rendering tag with Lit's template syntax, so that the element's own templates
// (widget/card/card.ts) draw the server's markup: text and attribute values escaped; `name=${v}`
// written quoted (dropped for `nothing`, null or undefined); `?name=${v}` as presence; `@event` and
// `.property` bindings dropped (they mean something only to a live element); nested results and
// arrays as children. Whitespace is folded as the drop-in's build folds its templates
// (scripts/build.mjs, foldTemplates), so that the two are the same markup.
import { escapeHtml } from '../../../contract/escape-html.js';

/** Markup made by `html`: written as it is where another template nests it. */
export class Markup {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** Lit's `nothing`: no child, no attribute. */
export const nothing: unique symbol = Symbol('nothing');

const fold = (text: string) => text.replace(/>\n\s*/g, '>').replace(/\n\s*</g, '<').replace(/\n\s*/g, ' ');

type State = 'text' | 'tag' | '"' | "'";

/** Where a template's text leaves the parser: in text, inside a tag, or in a quoted attribute value. */
function after(text: string, state: State): State {
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (state === 'text') {
      if (ch === '<' && /[A-Za-z/!]/.test(text[i + 1] ?? '')) state = 'tag';
    } else if (state === 'tag') {
      if (ch === '>') state = 'text';
      else if (ch === '"' || ch === "'") state = ch;
    } else if (ch === state) {
      state = 'tag';
    }
  }
  return state;
}

function child(value: unknown): string {
  if (value === nothing || value === null || value === undefined) return '';
  if (value instanceof Markup) return value.text;
  if (Array.isArray(value)) return value.map(child).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Markup {
  let out = fold(strings[0]!);
  let state = after(out, 'text');
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    const next = fold(strings[i + 1]!);
    if (state === 'text') {
      out += child(value);
    } else if (state === 'tag') {
      // An unquoted attribute binding: ` name=`, `?name=`, `@name=` or `.name=` ends the text before it.
      const binding = /\s([.?@]?)([^\s=/>]+)=$/.exec(out);
      if (!binding) throw new Error(`html: a value inside a tag must be an attribute's: …${out.slice(-40)}`);
      out = out.slice(0, binding.index);
      const [, prefix, name] = binding;
      if (prefix === '?') {
        if (value && value !== nothing) out += ` ${name}`;
      } else if (prefix === '' && value !== nothing && value !== null && value !== undefined) {
        out += ` ${name}="${escapeHtml(String(value))}"`;
      }
    } else {
      // Inside a quoted value (`class="icon ${name}"`).
      out += value === nothing || value === null || value === undefined ? '' : escapeHtml(String(value));
    }
    state = after(next, state);
    out += next;
  }
  return new Markup(out);
}
