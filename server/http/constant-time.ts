const encoder = new TextEncoder();

/** Compares two strings in time that depends only on the length of `given`, not on where they differ. */
export function constantTimeEqual(given: string, expected: string): boolean {
  const a = encoder.encode(given);
  const b = encoder.encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ (b[i % (b.length || 1)] ?? 0);
  return diff === 0;
}
