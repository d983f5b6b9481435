import type { z } from 'zod';

/** The first issue of a refused input, its field named once: `orderId: 1 to 128 of …`. */
export function issueMessage(error: z.ZodError, fallback = 'invalid body'): string {
  const issue = error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue?.message ?? fallback}`;
}
