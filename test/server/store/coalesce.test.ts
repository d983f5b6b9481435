// Group commit (server/store/coalesce.ts): what a burst of writes costs and what each caller is told.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coalesce } from '../../../server/store/coalesce.js';

/** A write the test finishes by hand: each call's items, and a way to answer or fail it. */
function heldWrites() {
  const calls: { items: number[]; answer: () => void; fail: (e: Error) => void }[] = [];
  const write = (items: number[]) => new Promise<string[]>((resolve, reject) => {
    calls.push({ items, answer: () => resolve(items.map((i) => `done ${i}`)), fail: reject });
  });
  return { calls, write };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('one item alone is written at once; items submitted during a write go together in the next', async () => {
  const { calls, write } = heldWrites();
  const submit = coalesce(write);
  const first = submit(1);
  await settle();
  assert.deepEqual(calls.map((c) => c.items), [[1]]);
  const rest = [2, 3, 4].map(submit);
  await settle();
  assert.equal(calls.length, 1, 'nothing more while the first write is in flight');
  calls[0]!.answer();
  assert.equal(await first, 'done 1');
  await settle();
  assert.deepEqual(calls.map((c) => c.items), [[1], [2, 3, 4]]);
  calls[1]!.answer();
  assert.deepEqual(await Promise.all(rest), ['done 2', 'done 3', 'done 4']);
});

test('a failed write fails its own items only; the next batch still goes', async () => {
  const { calls, write } = heldWrites();
  const submit = coalesce(write, 2);
  const a = submit(1);
  await settle();
  const [b, c, d] = [2, 3, 4].map(submit);
  calls[0]!.fail(new Error('disk full'));
  await assert.rejects(a, /disk full/);
  await settle();
  assert.deepEqual(calls[1]!.items, [2, 3], 'at most maxBatch items a write');
  calls[1]!.fail(new Error('lost connection'));
  await assert.rejects(b!, /lost connection/);
  await assert.rejects(c!, /lost connection/);
  await settle();
  calls[2]!.answer();
  assert.equal(await d, 'done 4');
});

test('a write that answers the wrong number of results fails its items instead of mixing them up', async () => {
  const submit = coalesce(async (items: number[]) => items.slice(1));
  await assert.rejects(submit(1), /answered 0 results for 1 items/);
});

test('deferred to setImmediate, a batch gathers what the rest of the turn submits; by default it goes after the microtasks', async () => {
  const twoTicks = async (submit: (item: number) => Promise<string>) => {
    const first = submit(1);
    // The next item comes a few promise settlements later, as a second query's answer would.
    await Promise.resolve();
    await Promise.resolve();
    await new Promise<void>((resolve) => process.nextTick(resolve));
    const second = submit(2);
    return [first, second];
  };
  const gathering = heldWrites();
  const gathered = await twoTicks(coalesce(gathering.write, 100, setImmediate));
  await settle();
  assert.deepEqual(gathering.calls.map((c) => c.items), [[1, 2]], 'one write for the turn');
  gathering.calls[0]!.answer();
  assert.deepEqual(await Promise.all(gathered), ['done 1', 'done 2']);

  const prompt = heldWrites();
  await twoTicks(coalesce(prompt.write));
  await settle();
  assert.deepEqual(prompt.calls.map((c) => c.items), [[1]], 'the first item went alone, at once');
});

test('two lanes: one waits only while both lanes write, then goes with the others that waited', async () => {
  const calls: string[][] = [];
  const finish: (() => void)[] = [];
  const submit = coalesce((items: string[]) => {
    calls.push(items);
    return new Promise<string[]>((resolve) => finish.push(() => resolve(items.map((i) => i.toUpperCase()))));
  }, 10, setImmediate, 2);
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const a = submit('a');
  await turn();
  const b = submit('b');
  await turn();
  assert.deepEqual(calls, [['a'], ['b']], 'the second lane takes b while a is written');
  const rest = [submit('c'), submit('d')];
  await turn();
  assert.equal(calls.length, 2, 'both lanes writing: c and d wait');
  finish[0]!();
  await turn();
  await turn();
  assert.deepEqual(calls[2], ['c', 'd'], 'then go together');
  finish[1]!();
  finish[2]!();
  assert.deepEqual(await Promise.all([a, b, ...rest]), ['A', 'B', 'C', 'D']);
});
