/** A text's pieces: plain text, and the parts written `like this` as code. */
export function textParts(text: string): { code: boolean; text: string }[] {
  return text.split('`').map((piece, i) => ({ code: i % 2 === 1, text: piece })).filter((p) => p.text !== '');
}
