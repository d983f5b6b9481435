// `pg`, the PostgreSQL store's driver: an optional peer dependency, imported when a PostgreSQL store
// is opened (optional-peer.ts says why at run time). Its types are pg's own declarations.
import { importPeer, isMissingPackage, missingPeer } from '../optional-peer.js';

export type Pg = typeof import('pg');

/** pg's module (CommonJS: its exports are the default export), or an error that says to install it. */
export async function loadPg(): Promise<Pg> {
  try {
    return (await importPeer<{ default: Pg }>('pg')).default;
  } catch (error) {
    throw isMissingPackage(error, 'pg') ? missingPeer('pg', 'PostgreSQL', error) : error;
  }
}
