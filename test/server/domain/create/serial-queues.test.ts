// Creates of one order run one after another; other orders' alongside (server/domain/create/serial-queues.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSerialQueues } from '../../../../server/domain/create/serial-queues.js';

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

test('work of one key waits for the work before it; another key does not wait', async () => {
  const queues = createSerialQueues<string>();
  const first = gate();
  const log: string[] = [];
  const a = queues.run('o1', async () => { log.push('a start'); await first.opened; log.push('a end'); return 'a'; });
  const b = queues.run('o1', async () => { log.push('b start'); return 'b'; });
  const c = queues.run('o2', async () => { log.push('c start'); return 'c'; });
  assert.equal(await c, 'c');
  assert.deepEqual(log, ['a start', 'c start']);
  first.open();
  assert.deepEqual([await a, await b], ['a', 'b']);
  assert.deepEqual(log, ['a start', 'c start', 'a end', 'b start']);
});

test('a failure reaches its own caller only; the next work runs', async () => {
  const queues = createSerialQueues<string>();
  const failing = queues.run('o1', async () => { throw new Error('boom'); });
  const next = queues.run('o1', async () => 'next');
  await assert.rejects(failing, /boom/);
  assert.equal(await next, 'next');
});

test('a key whose work has all ended is forgotten', async () => {
  const queues = createSerialQueues<number>();
  await Promise.all([queues.run('o1', async () => 1), queues.run('o2', async () => 2)]);
  for (let i = 0; i < 3; i++) await Promise.resolve();
  assert.equal(queues.size(), 0);
});
