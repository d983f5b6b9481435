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
  /**
   * Stops the server and keeps its data, as an outage does (`fast`: sessions are ended with 57P01,
   * the default; `immediate`: no clean shutdown, a crash); `resume` starts it again.
   */
  halt(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts a halted server again on the same port with the same settings; resolves once it takes connections. */
  resume(): Promise<void>;
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
  const connectAdmin = async () => {
    const client = new pg.Client(url);
    // Its server may be halted under it (halt): that must not crash the test process.
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };
  let admin = await connectAdmin();
  // pg_ctl as the cluster's owner, the same way as pg-test-cluster.sh runs it.
  const pgCtl = async (args: string) => {
    const { stdout: found } = await run('bash', ['-c', 'ls -1 /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -n 1']);
    const command = `'${found.trim()}' -D '${dir}/data' ${args}`;
    if (process.getuid?.() === 0) await run('su', ['postgres', '-s', '/bin/sh', '-c', command]);
    else await run('sh', ['-c', command]);
  };
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
    async halt(mode = 'fast') {
      await pgCtl(`-m ${mode} -w stop`);
    },
    async resume() {
      // `restart` of a stopped server starts it with the options of its last start (postmaster.opts).
      await pgCtl(`-l '${dir}/log' -w -t 30 restart`);
      await admin.end().catch(() => undefined);
      admin = await connectAdmin();
    },
    async stop() {
      await admin.end().catch(() => undefined);
      await run('bash', [SCRIPT, 'stop', dir]);
    },
  };
}
