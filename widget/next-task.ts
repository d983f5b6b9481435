/**
 * Resolves in a later task where the browser can yield the main thread between two pieces of work
 * (`scheduler.yield`: Chromium 129, Firefox 142), in a microtask elsewhere: on a phone's CPU, work
 * split so is no long task.
 */
export const nextTask = (): Promise<void> | undefined => (globalThis as { scheduler?: { yield(): Promise<void> } }).scheduler?.yield();
