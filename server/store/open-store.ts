// DATABASE_URL → a migrated Store. `file:PATH` is SQLite at PATH (relative to the working
// directory; its folder is created), on the runtime's own SQLite where it has one
// (sqlite/driver.ts); `postgres://…` (or `postgresql://…`) is PostgreSQL, which several BFF
// instances can share. Each store's driver is an optional peer dependency, loaded only when
// DATABASE_URL asks for it.

import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PostgresStoreOptions } from './postgres/store.js';
import { createSqliteStore } from './sqlite/store.js';
import type { Store } from './types.js';

function sqlitePath(databaseUrl: string): string {
  if (databaseUrl.startsWith('file://')) return fileURLToPath(databaseUrl);
  const path = databaseUrl.slice('file:'.length);
  if (path === '') throw new Error('DATABASE_URL "file:" needs a path, e.g. file:data/bill-checkout.sqlite');
  return path === ':memory:' ? path : resolve(path);
}

/**
 * The PostgreSQL store's module, which loads `pg`: an optional peer dependency, installed by the
 * merchants who use it. Without it this rejects with what to install (postgres/driver.ts).
 */
export function postgresModule(): Promise<typeof import('./postgres/store.js')> {
  return import('./postgres/store.js');
}

async function migrated(store: Store): Promise<Store> {
  try {
    await store.migrate();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

export async function openStore(databaseUrl: string, pgOptions: PostgresStoreOptions = {}): Promise<Store> {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) return migrated((await postgresModule()).createPostgresStore(databaseUrl, pgOptions));
  if (!databaseUrl.startsWith('file:')) {
    // Only the scheme is echoed: the rest of a URL may hold a password.
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(databaseUrl)?.[0] ?? '(none)';
    throw new Error(`DATABASE_URL must be file:PATH or postgres://…; scheme ${scheme} is not supported`);
  }
  const path = sqlitePath(databaseUrl);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  return migrated(createSqliteStore(path));
}
