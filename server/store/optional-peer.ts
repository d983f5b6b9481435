// The stores' drivers are optional peer dependencies (`pg`; `better-sqlite3` in sqlite/driver.ts),
// loaded by the store that needs them when it is opened. A framework that bundles the server
// package (Next.js with Turbopack or webpack, Vite SSR, Astro, React Router) must build without
// them installed and leave them to run time: the specifier is a variable, which Rollup, Rolldown
// and esbuild do not resolve, and the comments keep webpack and Turbopack (which turn a
// variable import into a stub that throws) and Vite (which warns of it) from touching it.

/** The package `name`, imported at run time from where this package is installed. */
export function importPeer<T>(name: string): Promise<T> {
  return import(/* webpackIgnore: true */ /* turbopackIgnore: true */ /* @vite-ignore */ name) as Promise<T>;
}

/**
 * Whether `error` says that the package `name` itself is not installed: Node and Bun say "Cannot
 * find package 'pg'" (or module), Deno "Could not find package 'pg'" or 'Import "pg" not a dependency'.
 */
export function isMissingPackage(error: unknown, name: string): boolean {
  const message = error instanceof Error ? error.message : '';
  const quoted = new RegExp(`['"]${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}['"]`);
  return quoted.test(message) && /cannot find|could not (find|resolve)|not a dependency/i.test(message);
}

/** The error for a store whose driver `packageName` is not installed: what to install, the loader's error as its cause. */
export function missingPeer(packageName: string, purpose: string, cause: unknown): Error {
  return new Error(`${purpose} needs the ${packageName} package, which bill-checkout does not install by itself: npm install ${packageName}`, { cause });
}
