// The BFF's log lines reach stdout one write per turn of the event loop (log-lines.ts), in order,
// and none is lost when the process exits right after logging.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { batchedLines } from '../../../../server/platform/node/log-lines.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('the lines of one turn go out in one write, in order, each with its newline', async () => {
  const writes: string[] = [];
  const lines = batchedLines({ write: (chunk: string) => (writes.push(chunk), true) });
  lines.write('{"msg":"one"}');
  lines.write('{"msg":"two"}');
  assert.deepEqual(writes, [], 'nothing is written before the turn ends');
  await nextTurn();
  lines.write('{"msg":"three"}');
  await nextTurn();
  await nextTurn();
  assert.deepEqual(writes, ['{"msg":"one"}\n{"msg":"two"}\n', '{"msg":"three"}\n']);
});

test('flush writes what is queued at once, and an empty queue writes nothing', async () => {
  const writes: string[] = [];
  const lines = batchedLines({ write: (chunk: string) => (writes.push(chunk), true) });
  lines.flush();
  lines.write('a');
  lines.flush();
  assert.deepEqual(writes, ['a\n']);
  await nextTurn();
  assert.deepEqual(writes, ['a\n'], 'the scheduled write finds the queue empty');
});

test('a line logged just before process.exit reaches stdout', async () => {
  const script = `
    import { batchedLines } from './server/platform/node/log-lines.ts';
    const lines = batchedLines(process.stdout);
    process.on('exit', lines.flush);
    lines.write('first');
    lines.write('last before exit');
    process.exit(3);
  `;
  const run = promisify(execFile);
  const failed = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd() })
    .then(() => null, (error: { code: number; stdout: string }) => error);
  assert.equal(failed?.code, 3);
  assert.equal(failed?.stdout, 'first\nlast before exit\n');
});
