// The server's TypeScript sources, loaded through tsx from plain node.
import { tsImport } from 'tsx/esm/api';

const root = new URL('../../', import.meta.url);

/** Imports a .ts file by its path from the repository root, e.g. `server/app.ts`. */
export const importTs = (path) => tsImport(new URL(path, root).href, import.meta.url);
