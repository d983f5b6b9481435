// The other runtimes the BFF runs on (docs/server.md, "Runtimes"), from the npm registry only: Node 24,
// Bun and Deno, each package carrying its binary. They go into a folder of their own outside the
// project, never into its node_modules/.bin, where a `node` would shadow the machine's in every
// npm script.
//   node scripts/runtimes.mjs install  → installs them when missing; prints RUNTIMES_DIR=…
//   node scripts/runtimes.mjs test     → installs them when missing, then runs on them:
//     Node 24: the server suite's runtime subset (below), on node:sqlite and PostgreSQL
//     Bun:     the SQLite driver suite and the store contract (bun:sqlite, node:sqlite, PostgreSQL), serveBillCheckout on Bun.serve
//     Deno:    the SQLite driver suite and the store contract (node:sqlite)
//     and test/runtimes/: the compiled entry started as docs/server.md says on each, end to end.
// RUNTIMES_DIR chooses the folder (default: ~/.cache/bill-checkout/runtimes).
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RUNTIMES = { node: '24.21.0', bun: '1.4.5', deno: '2.9.6' };

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = process.env.RUNTIMES_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'bill-checkout', 'runtimes');
const bin = (name) => join(dir, 'node_modules', '.bin', name);

/**
 * What Node 24 runs of the server suite: every file that exercises what differs per runtime or
 * per driver (the SQLite driver, both stores, start and close, SSE on node:http, node:http's client,
 * the migrations through the checkpointer worker) and the BFF's paths end to end: create, read,
 * SSE, callback, return, reconcile, webhook, on SQLite and PostgreSQL.
 */
export const NODE24_SUITE = [
  'test/server/store/sqlite/driver.test.ts', 'test/server/store/sqlite/store.test.ts', 'test/server/store/postgres/store.test.ts',
  'test/server/app/db-outage.test.ts', 'test/server/process/serve.test.ts', 'test/server/platform/node/sse-socket.test.ts', 'test/server/http/sse/sse-transport.keep-alive.test.ts',
  'test/server/domain/create/create-bill.test.ts', 'test/server/http/routes/bills.status.test.ts', 'test/server/http/sse/streams.test.ts',
  'test/server/http/routes/callback.test.ts', 'test/server/http/return-page.test.ts', 'test/server/upstream/schemas.test.ts',
  'test/server/domain/notify/notice-worker.test.ts', 'test/server/app/multi-instance.test.ts', 'test/server/upstream/client.wire.test.ts',
  'test/server/app/startup.test.ts',
];

function version(name) {
  const found = spawnSync(bin(name), ['--version'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout : '';
}

function install() {
  const missing = Object.entries(RUNTIMES).filter(([name, wanted]) => !version(name).includes(wanted));
  if (missing.length > 0) {
    mkdirSync(dir, { recursive: true });
    const specs = missing.map(([name, wanted]) => `${name}@${wanted}`);
    console.log(`runtimes: installing ${specs.join(' ')} into ${dir} (npm registry)`);
    run('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', ...specs]);
    for (const [name, wanted] of missing) {
      if (!version(name).includes(wanted)) throw new Error(`runtimes: ${bin(name)} does not say ${wanted} after the install`);
    }
  }
  console.log(`RUNTIMES_DIR=${dir}`);
}

function run(command, args, env = {}) {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (result.status !== 0) {
    console.error(`runtimes: failed after ${seconds} s: ${command} ${args.join(' ')}`);
    process.exit(result.status ?? 1);
  }
  return seconds;
}

function test() {
  install();
  const took = [];
  took.push(['Node 24: server suite subset', run(bin('node'), ['--import', 'tsx', '--test', '--test-concurrency=1', ...NODE24_SUITE])]);
  took.push(['Bun: SQLite drivers, both stores\' contract, serveBillCheckout', run(bin('bun'), ['test', '--timeout', '60000',
    'test/server/store/sqlite/driver.test.ts', 'test/server/store/sqlite/store.test.ts', 'test/server/store/postgres/store.test.ts', 'test/server/process/serve.test.ts'])]);
  // Deno runs the TypeScript sources with their `.js` import specifiers only with sloppy imports.
  const deno = ['test', '-A', '--no-check', '--unstable-sloppy-imports'];
  took.push(['Deno: SQLite driver', run(bin('deno'), [...deno, 'test/server/store/sqlite/driver.test.ts'])]);
  took.push(['Deno: store contract', run(bin('deno'), [...deno, '--filter', 'Store contract', 'test/server/store/sqlite/store.test.ts'])]);
  took.push(['the compiled entry on each runtime', run(process.execPath, ['--import', 'tsx', '--test', 'test/runtimes/runtimes.test.ts'], { RUNTIMES_DIR: dir })]);
  for (const [what, seconds] of took) console.log(`runtimes: ${what}: ${seconds} s`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const command = process.argv[2];
  if (command === 'install') install();
  else if (command === 'test') test();
  else {
    console.error('usage: node scripts/runtimes.mjs install | test');
    process.exit(64);
  }
}
