// Who is waiting on a request to the service, most urgent first: news of a payment never waits
// behind polls.

export type Priority = 'news' | 'customer' | 'watch' | 'background';
export const PRIORITIES: readonly Priority[] = ['news', 'customer', 'watch', 'background'];

const RANK: Record<Priority, number> = { news: 0, customer: 1, watch: 2, background: 3 };

/** A priority given as it is, or as a function read at each turn (it can rise): what it is now. */
export const priorityNow = (priority: Priority | (() => Priority)): Priority =>
  (typeof priority === 'function' ? priority() : priority);

/** Whether `a` goes before `b`. */
export const moreUrgent = (a: Priority, b: Priority): boolean => RANK[a] < RANK[b];
