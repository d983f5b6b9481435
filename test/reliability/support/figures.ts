// Each suite prints its figures as one line of JSON, prefixed so a soak log can be grepped.
export function printFigures(suite: string, figures: object): void {
  console.log(`RELIABILITY ${suite} ${JSON.stringify(figures)}`);
}

/** Runs `work` over `items`, `limit` at a time. */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** Rejects with `message` if `promise` has not settled within `ms` (a guard against a hang, never a wait). */
export function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}
