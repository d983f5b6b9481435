// The requests waiting for their turn in the budget (server/upstream/wait-queue.ts): news before a
// customer before a watcher before background work, first come among equals; a waiter whose
// endpoint may not go yet steps aside and says when it may; a rise moves a waiter up in its
// arrival place; deadlines come out in order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWaitQueue } from '../../../server/upstream/wait-queue.js';
import type { Priority } from '../../../server/upstream/priority.js';

function queueOf(waiters: [name: string, priority: Priority, endpoint?: string][]) {
  const queue = createWaitQueue<string>();
  const tickets = new Map(waiters.map(([name, priority, endpoint]) => [name, queue.add(name, endpoint ?? 'requery', priority, Infinity)]));
  return { queue, tickets };
}

/** The names in the order they would be granted, all endpoints ready; each granted is taken out. */
function drain(queue: ReturnType<typeof createWaitQueue<string>>, readyAt: (endpoint: string) => number = () => 0, at = 100) {
  const order: string[] = [];
  for (let next = queue.next(at, readyAt); next.ticket; next = queue.next(at, readyAt)) {
    order.push(next.ticket.item);
    queue.remove(next.ticket);
  }
  return order;
}

test('the most urgent goes first, then the first come, whatever the endpoint', () => {
  const { queue } = queueOf([['poll', 'watch'], ['reconcile', 'background'], ['create 1', 'customer', 'create'], ['callback', 'news'], ['create 2', 'customer', 'create'], ['cancel', 'customer', 'cancel']]);
  assert.deepEqual(drain(queue), ['callback', 'create 1', 'create 2', 'cancel', 'poll', 'reconcile']);
  assert.equal(queue.size, 0);
});

test('a waiter of a held-back endpoint steps aside; the next goes, and the earliest wake-up is reported', () => {
  const { queue } = queueOf([['callback', 'news', 'requery'], ['cancel', 'customer', 'cancel'], ['list', 'watch', 'list']]);
  const readyAt = (endpoint: string) => ({ requery: 300, cancel: 200 })[endpoint] ?? 0;
  const next = queue.next(100, readyAt);
  assert.equal(next.ticket?.item, 'list');
  assert.equal(next.wakeAt, 200);
  queue.remove(next.ticket!);
  assert.deepEqual(queue.next(100, readyAt), { ticket: null, wakeAt: 200 });
  assert.deepEqual(drain(queue, readyAt, 300), ['callback', 'cancel']);
  assert.deepEqual(createWaitQueue().next(0, () => 0), { ticket: null, wakeAt: Infinity });
});

test('a rise moves a waiter ahead of the less urgent, and behind those of its new priority that came before it', () => {
  const { queue, tickets } = queueOf([['news 1', 'news'], ['poll', 'watch'], ['create', 'customer'], ['news 2', 'news']]);
  queue.raise(tickets.get('poll')!, 'news');
  assert.equal(queue.waiting('news'), 3);
  assert.equal(queue.waiting('watch'), 0);
  // Never down: a lower priority is no change.
  queue.raise(tickets.get('news 1')!, 'background');
  assert.deepEqual(drain(queue), ['news 1', 'poll', 'news 2', 'create']);
});

test('a priority given as a function is read again at every pick', () => {
  const queue = createWaitQueue<string>();
  let urgent: Priority = 'watch';
  queue.add('create', 'create', 'customer', Infinity);
  queue.add('poll', 'requery', urgent, Infinity, () => urgent);
  assert.equal(queue.next(0, () => 0).ticket?.item, 'create');
  urgent = 'news';
  assert.equal(queue.next(0, () => 0).ticket?.item, 'poll');
});

test('waiters past their deadline come out, earliest first; those taken out before do not', () => {
  const queue = createWaitQueue<string>();
  queue.add('late', 'requery', 'watch', 500);
  const granted = queue.add('granted', 'requery', 'watch', 100);
  queue.add('early', 'requery', 'watch', 200);
  queue.add('never', 'requery', 'watch', Infinity);
  queue.remove(granted);
  assert.equal(queue.nextDeadline(), 200);
  assert.deepEqual(queue.expired(199).map((t) => t.item), []);
  assert.deepEqual(queue.expired(600).map((t) => t.item), ['early', 'late']);
  assert.equal(queue.nextDeadline(), Infinity);
  assert.equal(queue.size, 1);
  assert.deepEqual(drain(queue), ['never']);
});
