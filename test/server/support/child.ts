// server/main.ts as a child process (through tsx), for restart and environment tests.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface Child {
  process: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Resolves once it logs that it listens; rejects if it exits first. */
  ready: Promise<void>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

const SECRET_VARIABLES = ['BILL_API_KEY', 'BILL_API_SECRET', 'MERCHANT_WEBHOOK_SECRET', 'ADMIN_TOKEN', 'ORDER_TICKET_SECRET', 'METRICS_TOKEN'];

export function startMain(env: Record<string, string>): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('listening on')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`main.ts exited (${code}) before listening:\n${text}`)));
  });
  ready.catch(() => undefined);
  return {
    process: child,
    output: () => text,
    ready,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill(signal);
        await exited;
      }
      // Nothing it printed may carry a secret of its environment or a URL's userinfo.
      const secrets = SECRET_VARIABLES.map((name) => env[name]).filter((value): value is string => (value ?? '').length >= 4);
      const leaked = secrets.find((secret) => text.includes(secret));
      if (leaked !== undefined) throw new Error(`main.ts printed a secret of its environment (${leaked.slice(0, 4)}…)`);
      const userinfo = /[a-z][a-z0-9+.-]*:\/\/[^\s/@"]+@[^\s]*/i.exec(text);
      if (userinfo) throw new Error(`main.ts printed a URL's userinfo: ${userinfo[0].slice(0, 80)}`);
    },
  };
}
