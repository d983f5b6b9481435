// Kept-alive connections (issue 17): the BFF keeps an idle connection longer than the client that
// pools it (a load balancer, a reverse proxy, a widget's browser), so that the client closes first
// and never sends a poll on a connection the BFF is closing at that moment. A balancer answers such
// a poll 502; Node's own 5 s default is below AWS ALB's and nginx's 60 s.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ConfigError } from '../../../../server/config.js';
import type { CreatedBillView } from '../../../../contract/bill-view.js';
import { temporaryFolder } from '../../support/cleanup.js';
import { serveCheckoutIn } from '../../support/servers.js';

async function serve(t: TestContext, env: Record<string, string> = {}) {
  return serveCheckoutIn(t, await temporaryFolder(t, 'bill-checkout-keep-alive-'), env);
}

interface Answer {
  status: number;
  /** Header names in lower case. */
  headers: Map<string, string>;
  body: string;
}

/**
 * One connection as a load balancer pools it: requests one after another on one socket, and no
 * `Keep-Alive` hint read (ALB, nginx and Chrome keep their own idle timeout, whatever it says).
 */
async function pooledConnection(t: TestContext, base: string) {
  const { hostname, port } = new URL(base);
  const socket = net.connect(Number(port), hostname);
  t.after(() => socket.destroy());
  await once(socket, 'connect');
  let pending = Buffer.alloc(0);
  let waiting: (() => void) | null = null;
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    waiting?.();
  });
  let closed = false;
  const whenClosed = once(socket, 'close').then(() => (closed = true));
  /** The whole answer at the head of `pending`, taken off it; null until it has all arrived. */
  const take = (): Answer | null => {
    const end = pending.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const [statusLine, ...lines] = pending.toString('latin1', 0, end).split('\r\n');
    const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const length = Number(headers.get('content-length'));
    if (pending.length < end + 4 + length) return null;
    const body = pending.toString('utf8', end + 4, end + 4 + length);
    pending = pending.subarray(end + 4 + length);
    return { status: Number(statusLine!.split(' ')[1]), headers, body };
  };
  return {
    get closed() {
      return closed;
    },
    whenClosed,
    get(path: string): Promise<Answer> {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
      return new Promise((resolve, reject) => {
        const check = () => {
          const answer = take();
          if (answer) {
            waiting = null;
            resolve(answer);
          } else if (closed) {
            reject(new Error('the connection closed before the answer'));
          }
        };
        waiting = check;
        void whenClosed.then(check);
        check();
      });
    },
  };
}

/** A bill of the embedded sandbox and the path its widget polls. */
async function pollPath(base: string): Promise<string> {
  const created = await fetch(`${base}/api/bills`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"orderId":"demo-tee-1"}' });
  assert.equal(created.status, 201);
  const bill = (await created.json()) as CreatedBillView;
  return `/api/bills/${bill.billId}?token=${bill.token}`;
}

test('by default an idle connection is kept 65 s, above a load balancer\'s 60 s, and every answer says so', async (t) => {
  const running = await serve(t);
  const path = await pollPath(running.url);
  const poll = await (await pooledConnection(t, running.url)).get(path);
  assert.equal(poll.status, 200);
  assert.equal(poll.headers.get('connection'), 'keep-alive');
  // What a client that reads the hint (Node's agent, undici, Firefox) schedules its own close by.
  assert.equal(poll.headers.get('keep-alive'), 'timeout=65');
});

test('a poll on a connection idle just under KEEP_ALIVE_TIMEOUT_MS is answered on it; the BFF closes the connection only after that time', async (t) => {
  // The smallest value allowed, 1 s: the idle time has to pass for real (the socket's timer is
  // Node's own, no mocked clock reaches it), so the test waits as little as it can.
  const running = await serve(t, { KEEP_ALIVE_TIMEOUT_MS: '1000' });
  const path = await pollPath(running.url);
  const connection = await pooledConnection(t, running.url);
  const first = await connection.get(path);
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('keep-alive'), 'timeout=1');

  // The balancer reuses its connection at the end of its own idle timeout, just under the BFF's.
  await delay(800);
  assert.equal(connection.closed, false, 'the BFF kept the idle connection');
  const second = await connection.get(path);
  assert.equal(second.status, 200);
  assert.equal(JSON.parse(second.body).billId, JSON.parse(first.body).billId);

  // Then the BFF closes the connection once it has been idle for its timeout: the setting is in
  // force (Node's default would close it after 5 s).
  const answeredAt = performance.now();
  await connection.whenClosed;
  const idleMs = performance.now() - answeredAt;
  assert.ok(idleMs >= 1000 - 5, `closed after ${idleMs.toFixed(0)} ms idle, not before its timeout`);
  assert.ok(idleMs < 5000, `closed after ${idleMs.toFixed(0)} ms idle: by KEEP_ALIVE_TIMEOUT_MS, not Node's default`);
});

test('KEEP_ALIVE_TIMEOUT_MS below 1 s is refused before listening', async (t) => {
  await assert.rejects(serve(t, { KEEP_ALIVE_TIMEOUT_MS: '500' }), (error: unknown) =>
    error instanceof ConfigError && /KEEP_ALIVE_TIMEOUT_MS must be a whole number of at least 1000/.test(error.message));
});
