// node:test runs a test's after hooks in the order they were added and skips the rest once one
// throws. A BFF on a temporary folder needs the opposite: close the BFF, then remove its folder.
// Seen on Node 24: the folder's removal, added first, met a SQLite file still being written
// (ENOTEMPTY), the close after it never ran, and the test file's process never ended.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

const stacks = new WeakMap<TestContext, Array<() => unknown>>();

/** Runs `cleanup` after the test, before every cleanup deferred earlier, whether or not another one throws. */
export function defer(t: TestContext, cleanup: () => unknown): void {
  let stack = stacks.get(t);
  if (!stack) {
    const own: Array<() => unknown> = [];
    stacks.set(t, own);
    stack = own;
    t.after(async () => {
      const errors: unknown[] = [];
      for (const next of own.reverse()) {
        try {
          await next();
        } catch (error) {
          errors.push(error);
        }
      }
      if (errors.length > 0) throw new AggregateError(errors, `${errors.length} cleanup(s) of "${t.name}" failed`);
    });
  }
  stack.push(cleanup);
}

/** A new folder under the system's temporary one, removed after the test (after what was deferred later, such as a BFF's close). */
export async function temporaryFolder(t: TestContext, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  defer(t, () => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}
