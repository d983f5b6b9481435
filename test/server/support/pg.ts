// A throwaway PostgreSQL cluster per test file (scripts/pg-test-cluster.sh). It fails, never
// skips, when PostgreSQL is missing: CI installs it (.ci/run).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';

const SCRIPT = fileURLToPath(new URL('../../../scripts/pg-test-cluster.sh', import.meta.url));
const run = promisify(execFile);

export interface PgCluster {
  /** The cluster's `postgres` database. */
  url: string;
  /** A new, empty database on the cluster; its URL. */
  createDatabase(): Promise<string>;
  /** A new, empty schema in the `postgres` database; its name. */
  createSchema(): Promise<string>;
  stop(): Promise<void>;
}

let names = 0;

export interface PgOptions {
  /** Server settings (`-c name=value`), e.g. `{ shared_preload_libraries: 'pg_stat_statements' }`. */
  settings?: Record<string, string>;
}

export async function startPg(options: PgOptions = {}): Promise<PgCluster> {
  const settings = Object.entries(options.settings ?? {}).map(([name, value]) => `${name}=${value}`);
  const { stdout } = await run('bash', [SCRIPT, 'start', ...settings]);
  const url = /^DATABASE_URL=(.+)$/m.exec(stdout)?.[1];
  const dir = /^PGTEST_DIR=(.+)$/m.exec(stdout)?.[1];
  if (!url || !dir) throw new Error(`pg-test-cluster.sh printed no URL:\n${stdout}`);
  const admin = new pg.Client(url);
  await admin.connect();
  return {
    url,
    async createDatabase() {
      const name = `t${process.pid}_${++names}`;
      await admin.query(`CREATE DATABASE ${name}`);
      return url.replace(/\/postgres$/, `/${name}`);
    },
    async createSchema() {
      const name = `s${process.pid}_${++names}`;
      await admin.query(`CREATE SCHEMA ${name}`);
      return name;
    },
    async stop() {
      await admin.end().catch(() => undefined);
      await run('bash', [SCRIPT, 'stop', dir]);
    },
  };
}
