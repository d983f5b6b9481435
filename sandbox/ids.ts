// Identifiers: bill and customer ids are unguessable (crypto); references only need to look real.

export function randomToken(bytes = 16): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
}

export function digits(random: () => number, count: number): string {
  let s = '';
  for (let i = 0; i < count; i++) s += Math.floor(random() * 10).toString();
  return s;
}
