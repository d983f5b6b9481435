// A store whose failures to reach its database are one error class, StoreUnavailableError, at
// the store's edge: every caller (the HTTP routes, the refresher, the reconciler, the notice
// worker) tells "the store is out of reach, try again" from any other failure the same way,
// whatever the driver. Each store passes its own classifier (postgres/unavailable.ts,
// sqlite/unavailable.ts); errors it does not recognise pass through untouched, and so does
// whatever `exclusive`'s work throws.
import { StoreUnavailableError } from './errors.js';
import type { Store, StoreEvents } from './types.js';

/** A StoreUnavailableError when `error` says the store cannot be reached or used right now; else null. */
export type ClassifyUnavailable = (error: unknown) => StoreUnavailableError | null;

type AnyMethod = (...args: unknown[]) => unknown;

/** The error itself, or what it is the cause of, down a few levels (pg wraps, Node aggregates). */
export function* errorChain(error: unknown, depth = 3): Generator<unknown> {
  if (error === null || error === undefined || depth < 0) return;
  yield error;
  if (error instanceof AggregateError) for (const inner of error.errors) yield* errorChain(inner, depth - 1);
  if (error instanceof Error && error.cause !== undefined) yield* errorChain(error.cause, depth - 1);
}

export function classifyFailures(store: Store, classify: ClassifyUnavailable): Store {
  const reclassify = (error: unknown): unknown =>
    error instanceof StoreUnavailableError ? error : (classify(error) ?? error);
  const guard = (method: AnyMethod): AnyMethod => (...args) => {
    let result: unknown;
    try {
      result = method(...args);
    } catch (error) {
      throw reclassify(error);
    }
    return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(reclassify(error))) : result;
  };

  const guarded: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(store)) {
    // close() is the caller's own shutdown: its failure is not an outage.
    guarded[name] = typeof value === 'function' && name !== 'close' ? guard((value as AnyMethod).bind(store)) : value;
  }
  // The work runs under the store's lock but is the caller's: what it throws is not reclassified.
  guarded.exclusive = <T>(name: string, work: () => Promise<T>) => {
    let thrown: { error: unknown } | null = null;
    const own = async () => {
      try {
        return await work();
      } catch (error) {
        thrown = { error };
        throw error;
      }
    };
    return store.exclusive(name, own).catch((error: unknown) =>
      Promise.reject(thrown !== null && (thrown as { error: unknown }).error === error ? error : reclassify(error)));
  };
  if (store.events) {
    const events = store.events;
    guarded.events = {
      ...events,
      notify: guard(events.notify.bind(events) as AnyMethod),
      listen: guard(events.listen.bind(events) as AnyMethod),
      ...(events.statusChangesSince ? { statusChangesSince: guard(events.statusChangesSince.bind(events) as AnyMethod) } : {}),
      ...(events.instanceBeat ? { instanceBeat: guard(events.instanceBeat.bind(events) as AnyMethod) } : {}),
      ...(events.instanceLeave ? { instanceLeave: guard(events.instanceLeave.bind(events) as AnyMethod) } : {}),
    } as StoreEvents;
  }
  return guarded as unknown as Store;
}
