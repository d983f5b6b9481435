// The server's modules for the benches: the compiled server (dist/server, made by `npm run build`),
// which is what `npm start` runs, when it is there and newer than every source it is made from; else
// the TypeScript sources through tsx. tsx keeps every function's name (esbuild's keepNames), which
// costs each open stream about 1 KiB of heap that the compiled server does not have (bench/HISTORY.md).
// BENCH_SOURCES=1 asks for the sources, and so does BENCH_APP (an app file swapped in).
import { existsSync, readdirSync, statSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = new URL('../../', import.meta.url);
/** What dist/server is made from: the folders tsconfig.server.json compiles, and the widget whose card it renders. */
const SOURCES = ['server', 'sandbox', 'contract', 'widget'];
const COMPILED_PROBE = 'dist/server/server/app.js';

/** The newest modification time of a .ts file under `dir`, ms. */
function newestSource(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Which server the benches load from the repository at `rootUrl` (a file: URL ending in /), with an
 * environment like process.env: `compiled`; `asked` (the sources, as the environment says);
 * `missing` or `stale` (the sources, for want of a build that `npm run build` would make). `why`
 * says it in words.
 */
export function serverBuildState(rootUrl, env) {
  if (env.BENCH_SOURCES) return { state: 'asked', why: 'BENCH_SOURCES is set' };
  if (env.BENCH_APP) return { state: 'asked', why: 'BENCH_APP swaps in an app of its own' };
  let built;
  try {
    built = statSync(fileURLToPath(new URL(COMPILED_PROBE, rootUrl))).mtimeMs;
  } catch {
    return { state: 'missing', why: `${COMPILED_PROBE} is missing (npm run build)` };
  }
  const newest = Math.max(0, ...SOURCES.map((dir) => newestSource(fileURLToPath(new URL(dir, rootUrl)))));
  if (newest > built) return { state: 'stale', why: `a source under ${SOURCES.join('/, ')}/ is newer than ${COMPILED_PROBE} (npm run build)` };
  return { state: 'compiled', why: 'dist/server, as npm start runs it' };
}

/** This process's server, decided once, at its first use (a bench's children each decide after `npm run bench` has built). */
let decided = null;
function thisServer() {
  if (!decided) {
    const { state, why } = serverBuildState(root, process.env);
    const compiled = state === 'compiled';
    decided = { compiled, line: compiled ? `the compiled server (${why})` : `the TypeScript sources through tsx: ${why}` };
  }
  return decided;
}

/** Imports a server module by its source path from the repository root, e.g. `server/app.ts`. */
export function importServer(path) {
  if (thisServer().compiled && path.endsWith('.ts')) return import(new URL(`dist/server/${path.slice(0, -3)}.js`, root).href);
  return tsImport(new URL(path, root).href, import.meta.url);
}

let announced = false;
/** Prints, once per process, which server the bench measures (`# server: …`). */
export function announceServerBuild() {
  if (announced) return;
  announced = true;
  console.log(`# server: ${thisServer().line}`);
}
