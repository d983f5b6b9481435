// Masks secrets in text that leaves the process (log lines, error bodies). A secret can appear
// as written, JSON-escaped once (a string inside a log line) or twice (a JSON body quoted in a
// message), or URL-encoded: every form is masked. A URL's userinfo (`https://user:pw@host`) is
// cut from any text, whether or not its password is a configured secret.

const MASK = '[redacted]';
/** Shorter values are not masked: they would match ordinary text. */
const MIN_SECRET = 4;

/** Text with every configured secret masked. */
export type Redact = (text: string) => string;

const escaped = (text: string) => JSON.stringify(text).slice(1, -1);

/** `scheme://user:pw@` and `scheme://user@`, also JSON-escaped (`https:\/\/`): the userinfo of a URL. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:(?:\\?\/){2})[^\s/\\@"'<>]*@/gi;

/** Text with the userinfo of every URL in it cut out. */
export function stripUserinfo(text: string): string {
  return text.includes('@') ? text.replace(USERINFO, '$1') : text;
}

export function createRedactor(secrets: readonly string[]): Redact {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET) continue;
    const once = escaped(secret);
    for (const form of [secret, once, escaped(once), encodeURIComponent(secret)]) forms.add(form);
  }
  // Longest first, so that a form containing a shorter one is masked whole.
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return stripUserinfo;
  return (text) => {
    let out = text;
    for (const form of ordered) if (out.includes(form)) out = out.split(form).join(MASK);
    return stripUserinfo(out);
  };
}

/** `text` cut to `max` characters, saying how much was left out. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…[${text.length - max} more characters]`;
}
