// Which waiting request the budget grants next (server/upstream/next-grant.ts): news before a
// customer before a watcher before background work, first come among equals; a waiter whose
// operation may not go yet steps aside and says when it may.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextGrant } from '../../../server/upstream/next-grant.js';
import type { Priority } from '../../../server/upstream/priority.js';

const waiter = (name: string, priority: Priority, readyAt = 0) => ({ name, priority: () => priority, readyAt });
const pick = (waiters: ReturnType<typeof waiter>[], at = 100) => {
  const { index, wakeAt } = nextGrant(waiters, at, (w) => w.readyAt);
  return { name: waiters[index]?.name ?? null, wakeAt };
};

test('the most urgent goes first, then the first come', () => {
  assert.equal(pick([waiter('poll', 'watch'), waiter('reconcile', 'background'), waiter('callback', 'news')]).name, 'callback');
  assert.equal(pick([waiter('create 1', 'customer'), waiter('poll', 'watch'), waiter('create 2', 'customer')]).name, 'create 1');
});

test('a waiter of a paused operation steps aside; the next goes, and the earliest wake-up is reported', () => {
  const result = pick([waiter('callback', 'news', 300), waiter('cancel', 'customer', 200), waiter('poll', 'watch')]);
  assert.deepEqual(result, { name: 'poll', wakeAt: 200 });
});

test('none may go now: no index, and when to look again; nobody waiting: nothing at all', () => {
  assert.deepEqual(pick([waiter('a', 'news', 500), waiter('b', 'news', 400)]), { name: null, wakeAt: 400 });
  assert.deepEqual(nextGrant([], 0, () => 0), { index: -1, wakeAt: Infinity });
});

test('a priority is read at each pick: a waiter made more urgent goes first', () => {
  let urgent: Priority = 'watch';
  const poll = { name: 'poll', priority: () => urgent, readyAt: 0 };
  const waiters = [waiter('create', 'customer'), poll];
  assert.equal(pick(waiters).name, 'create');
  urgent = 'news';
  assert.equal(pick(waiters).name, 'poll');
});
