// Who is waiting on a request to the service, most urgent first: news of a payment never waits
// behind polls.

export type Priority = 'news' | 'customer' | 'watch' | 'background';
export const PRIORITIES: readonly Priority[] = ['news', 'customer', 'watch', 'background'];

const RANK: Record<Priority, number> = { news: 0, customer: 1, watch: 2, background: 3 };

/** A priority that can rise while its request waits; the budget listens while it does. */
export interface Rising {
  /** The priority now. */
  readonly value: Priority;
  /** Calls `listener` at each rise until the returned function is called. */
  onRise(listener: () => void): () => void;
}

/**
 * A priority that can rise while its request waits (news about the bill a poll's requery is for):
 * the budget moves the waiting request the moment it rises, so none is looked for among thousands.
 */
export class Urgency implements Rising {
  #value: Priority;
  readonly #listeners = new Set<() => void>();

  constructor(value: Priority) {
    this.#value = value;
  }

  /** The priority now. */
  get value(): Priority {
    return this.#value;
  }

  /** Makes it `priority` when that is more urgent (it never falls). */
  raise(priority: Priority): void {
    if (!moreUrgent(priority, this.#value)) return;
    this.#value = priority;
    for (const listener of this.#listeners) listener();
  }

  /** Calls `listener` at each rise until the returned function is called (the budget, while the request waits). */
  onRise(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/**
 * Who waits on a call: a priority as it is; one that can rise (an Urgency); or a function read at
 * each turn (kept for callers of the published client: the budget reads each one at every grant).
 * Told apart by shape, not by class: two copies of this module (two bundles) still agree.
 */
export type PriorityOf = Priority | Rising | (() => Priority);

/** A priority given in any form: what it is now. */
export const priorityNow = (priority: PriorityOf): Priority =>
  (typeof priority === 'string' ? priority : typeof priority === 'function' ? priority() : priority.value);

/** Whether `a` goes before `b`. */
export const moreUrgent = (a: Priority, b: Priority): boolean => RANK[a] < RANK[b];

/** The rank of a priority: 0 for news, the most urgent. */
export const rankOf = (priority: Priority): number => RANK[priority];
