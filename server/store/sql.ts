// SQL text that both stores build the same way, each with its own placeholders: a LIKE pattern
// for "contains", and the WHERE clause of the admin's notice query.

import type { NoticeQuery } from './types.js';

/** A LIKE pattern that finds `text` anywhere, its own `%`, `_` and `\` taken literally (ESCAPE '\'). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The WHERE clause of a notice query (empty when it filters nothing) and its arguments; `placeholder(n)` is the n-th one (1-based). */
export function noticeFilter(query: NoticeQuery, placeholder: (n: number) => string): { where: string; args: (string | number)[] } {
  const conditions: [string, string | number | undefined][] = [
    ['state =', query.state], ['channel =', query.channel], ['bill_id =', query.billId],
    ['created_at >=', query.from], ['created_at <', query.to],
  ];
  const given = conditions.filter((c): c is [string, string | number] => c[1] !== undefined);
  const where = given.map((c, i) => `${c[0]} ${placeholder(i + 1)}`).join(' AND ');
  return { where: where ? `WHERE ${where}` : '', args: given.map((c) => c[1]) };
}
