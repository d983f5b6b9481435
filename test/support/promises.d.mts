/**
 * Rejects with `message` if `promise` has not settled within `ms` (a guard against a hang, never a
 * wait); a rejection of `promise` after that is ignored.
 */
export function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T>;
/** Runs `work` over `items`, at most `limit` at a time. */
export function eachLimited<T>(items: readonly T[], limit: number, work: (item: T, i: number) => Promise<void>): Promise<void>;
