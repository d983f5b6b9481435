// The requests waiting for their turn in the budget (budget.ts), kept so that a grant costs the
// same with ten waiting as with twenty thousand (a flash sale's streams each asking once): a
// first-come queue per priority and endpoint, of which a grant reads only the heads; a waiter whose
// priority rises moves to its new priority's queue in its arrival place; deadlines in a heap.
// Leaving is marked on the ticket, and a queue drops what left when it comes to its head.
import { PRIORITIES, rankOf, type Priority } from './priority.js';

export interface Ticket<T, E extends string = string> {
  readonly item: T;
  /** What a paused operation or an operation's own limit holds back (the service's endpoint). */
  readonly endpoint: E;
  /** Arrival order: first come among equals. */
  readonly seq: number;
  /** When it stops waiting (ms; Infinity: never). */
  readonly deadline: number;
  /** The queue it is in now. */
  priority: Priority;
  /** Granted, expired or withdrawn. */
  gone: boolean;
}

/** One priority's waiters of one endpoint, in arrival order; a ticket moved up or gone is skipped. */
class Fifo<T, E extends string> {
  items: Ticket<T, E>[] = [];
  start = 0;

  constructor(readonly priority: Priority) {}

  head(): Ticket<T, E> | undefined {
    const { items } = this;
    while (this.start < items.length) {
      const ticket = items[this.start]!;
      if (!ticket.gone && ticket.priority === this.priority) return ticket;
      this.start++;
    }
    if (this.start > 0) {
      this.items = [];
      this.start = 0;
    }
    return undefined;
  }

  /** In arrival order: at the end, unless it arrived before some already here (a rise). */
  insert(ticket: Ticket<T, E>): void {
    const { items } = this;
    if (this.start > 1024 && this.start * 2 >= items.length) {
      items.splice(0, this.start);
      this.start = 0;
    }
    let lo = this.start;
    let hi = items.length;
    if (hi === lo || items[hi - 1]!.seq < ticket.seq) {
      items.push(ticket);
      return;
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (items[mid]!.seq < ticket.seq) lo = mid + 1;
      else hi = mid;
    }
    items.splice(lo, 0, ticket);
  }
}

export interface WaitQueue<T, E extends string = string> {
  /** Waiters now. */
  readonly size: number;
  /** Waiters now at `priority`. */
  waiting(priority: Priority): number;
  /**
   * Adds a waiter. `reread`: its priority is a function read again at every `next` (a published
   * client's caller); an Urgency calls `raise` itself.
   */
  add(item: T, endpoint: E, priority: Priority, deadline: number, reread?: () => Priority): Ticket<T, E>;
  /** Moves a waiter to `priority` if that is more urgent. */
  raise(ticket: Ticket<T, E>, priority: Priority): void;
  /** Takes a waiter out (granted, given up, aborted). */
  remove(ticket: Ticket<T, E>): void;
  /**
   * The waiter to grant now: the most urgent whose endpoint may go at `at` (`readyAt(endpoint)` ≤
   * `at`), then the first come; null when none may, with the earliest time a held-back one may go.
   */
  next(at: number, readyAt: (endpoint: E) => number): { ticket: Ticket<T, E> | null; wakeAt: number };
  /** Takes out and returns the waiters whose deadline is `at` or past. */
  expired(at: number): Ticket<T, E>[];
  /** The earliest deadline of those waiting (Infinity: none). */
  nextDeadline(): number;
}

export function createWaitQueue<T, E extends string = string>(): WaitQueue<T, E> {
  // By rank, then endpoint.
  const queues: Map<E, Fifo<T, E>>[] = PRIORITIES.map(() => new Map());
  const counts = PRIORITIES.map(() => 0);
  const rereads = new Map<Ticket<T, E>, () => Priority>();
  // A binary min-heap on deadline, of the waiters that have one.
  const deadlines: Ticket<T, E>[] = [];
  let size = 0;
  let seq = 0;

  function fifo(priority: Priority, endpoint: E): Fifo<T, E> {
    const byEndpoint = queues[rankOf(priority)]!;
    let queue = byEndpoint.get(endpoint);
    if (!queue) byEndpoint.set(endpoint, (queue = new Fifo<T, E>(priority)));
    return queue;
  }

  function heapPush(ticket: Ticket<T, E>): void {
    let i = deadlines.push(ticket) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (deadlines[parent]!.deadline <= ticket.deadline) break;
      deadlines[i] = deadlines[parent]!;
      i = parent;
    }
    deadlines[i] = ticket;
  }

  function heapPop(): void {
    const last = deadlines.pop()!;
    if (deadlines.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= deadlines.length) break;
      const right = left + 1;
      const child = right < deadlines.length && deadlines[right]!.deadline < deadlines[left]!.deadline ? right : left;
      if (deadlines[child]!.deadline >= last.deadline) break;
      deadlines[i] = deadlines[child]!;
      i = child;
    }
    deadlines[i] = last;
  }

  /** The heap's earliest waiter still waiting. */
  function heapTop(): Ticket<T, E> | undefined {
    while (deadlines.length > 0 && deadlines[0]!.gone) heapPop();
    return deadlines[0];
  }

  const queue: WaitQueue<T, E> = {
    get size() {
      return size;
    },
    waiting: (priority) => counts[rankOf(priority)]!,

    add(item, endpoint, priority, deadline, reread) {
      const ticket: Ticket<T, E> = { item, endpoint, seq: seq++, deadline, priority, gone: false };
      fifo(priority, endpoint).insert(ticket);
      counts[rankOf(priority)]!++;
      size++;
      if (Number.isFinite(deadline)) heapPush(ticket);
      if (reread) rereads.set(ticket, reread);
      return ticket;
    },

    raise(ticket, priority) {
      if (ticket.gone || rankOf(priority) >= rankOf(ticket.priority)) return;
      counts[rankOf(ticket.priority)]!--;
      counts[rankOf(priority)]!++;
      // The old queue skips it from now on: its priority is no longer that queue's.
      ticket.priority = priority;
      fifo(priority, ticket.endpoint).insert(ticket);
    },

    remove(ticket) {
      if (ticket.gone) return;
      ticket.gone = true;
      counts[rankOf(ticket.priority)]!--;
      size--;
      rereads.delete(ticket);
    },

    next(at, readyAt) {
      for (const [ticket, reread] of rereads) queue.raise(ticket, reread());
      let wakeAt = Infinity;
      for (const byEndpoint of queues) {
        let best: Ticket<T, E> | null = null;
        for (const [endpoint, fifo] of byEndpoint) {
          const head = fifo.head();
          if (!head) continue;
          const until = readyAt(endpoint);
          if (until > at) {
            wakeAt = Math.min(wakeAt, until);
            continue;
          }
          if (!best || head.seq < best.seq) best = head;
        }
        // Less urgent queues wait: the caller asks again after this grant.
        if (best) return { ticket: best, wakeAt };
      }
      return { ticket: null, wakeAt };
    },

    expired(at) {
      const out: Ticket<T, E>[] = [];
      for (let top = heapTop(); top && top.deadline <= at; top = heapTop()) {
        heapPop();
        queue.remove(top);
        out.push(top);
      }
      return out;
    },

    nextDeadline: () => heapTop()?.deadline ?? Infinity,
  };
  return queue;
}
