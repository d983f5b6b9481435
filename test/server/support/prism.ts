// Stoplight Prism's validating proxy (`prism proxy`) as a child process in front of a BFF: every
// answer that passes through it is checked against the OpenAPI description, and its violations
// come back in the `sl-violations` header. The test's after hook stops it, whatever happened.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

const PRISM = fileURLToPath(new URL('../../../node_modules/@stoplight/prism-cli/dist/index.js', import.meta.url));
/** How long Prism may take to read the document and listen (it usually takes a second or two). */
const START_TIMEOUT_MS = 60_000;

export interface Violation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

export interface PrismProxy {
  /** Where Prism listens, e.g. http://127.0.0.1:41234. */
  url: string;
  /** Everything it printed so far. */
  output(): string;
}

/**
 * Starts `prism proxy <document> <upstream> --errors` on a loopback port the system picks. Request
 * validation is off (`--validate-request=false`): the tests send invalid requests on purpose, to
 * see the BFF's own answers, and with `--errors` Prism would answer those itself. Presence of the
 * security the description declares is still checked by Prism (a missing token answers its own
 * 401), so requests carry a token, a wrong one where the test wants the BFF to refuse it.
 */
export async function startPrism(t: TestContext, document: unknown, upstream: string): Promise<PrismProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'prism-'));
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(document));
  const child = spawn(process.execPath, [
    PRISM, 'proxy', file, upstream, '--errors', '--validate-request=false', '--host', '127.0.0.1', '--port', '0',
  ], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  let text = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not listen within ${START_TIMEOUT_MS} ms:\n${text}`)), START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const listening = /Prism is listening on (http:\/\/[\d.]+:\d+)/.exec(text);
      if (listening) {
        clearTimeout(timer);
        resolve(listening[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(([code, signal]) => {
      clearTimeout(timer);
      reject(new Error(`prism exited (${code ?? signal}) before listening:\n${text}`));
    });
  });
  return { url, output: () => text };
}

/** The violations Prism found in one exchange (`sl-violations`), request and response. */
export function violationsOf(res: Response): Violation[] {
  const header = res.headers.get('sl-violations');
  if (header === null) return [];
  if (header.startsWith('Too many violations!')) {
    return [{ location: ['response'], severity: 'Error', message: header.slice(0, 500) }];
  }
  return JSON.parse(header) as Violation[];
}
