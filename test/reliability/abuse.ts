// Abuse: the create rate limit holds per client address, whatever X-Forwarded-For says with no
// proxy trusted; a flood of SSE connections is capped (MAX_SSE_CONNECTIONS) and leaves health
// checks and status reads fast. (MAX_SSE_PER_CLIENT is in bff-status.test.ts.)
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { TestContext } from 'node:test';
import type { CreatedBillView } from '../../contract/bill-view.js';
import { startChildWorld } from './support/child-world.js';
import { percentile } from './support/watchers.js';

export interface AbuseFigures {
  rateLimit: { limit: number; clientA: Record<string, number>; clientB: Record<string, number>; retryAfter: string | null };
  sseFlood: { cap: number; attempts: number; streamed: number; refused: number; other: number; healthzP99Ms: number; readP99Ms: number; maxMs: number; afterFloodOpens: boolean };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A POST from a chosen loopback source address: the BFF keys its rate limit by address. */
function postFrom(localAddress: string, url: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: u.hostname, port: u.port, path: u.pathname, method: 'POST', localAddress, agent: false,
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers },
    }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function runAbuse(t: TestContext, o: { limit: number; sseCap: number; sseAttempts: number }): Promise<AbuseFigures> {
  const w = await startChildWorld(t, {
    CREATE_RATE_LIMIT_PER_MINUTE: String(o.limit),
    MAX_SSE_CONNECTIONS: String(o.sseCap),
    // The flood comes from one address and is meant for the total cap.
    MAX_SSE_PER_CLIENT: String(o.sseAttempts),
    // The creates measure our own limit per client, which refills as time passes: the service's
    // budget (whose slow start toward an unknown limit would space them out) is not in question.
    BILL_API_MAX_RPS: '1000',
  });

  const tally = (answers: Answer[]) => answers.reduce<Record<string, number>>((m, a) => ({ ...m, [a.status]: (m[a.status] ?? 0) + 1 }), {});
  const a: Answer[] = [];
  // Client A claims to be somebody new each time: with no proxy trusted, the header is not believed.
  for (let i = 0; i < o.limit + 5; i++) {
    a.push(await postFrom('127.0.0.1', `${w.base}/api/bills`, '{"amount":"3.00"}', { 'X-Forwarded-For': `10.9.${i}.1` }));
  }
  const b: Answer[] = [];
  for (let i = 0; i < o.limit; i++) b.push(await postFrom('127.0.0.2', `${w.base}/api/bills`, '{"amount":"4.00"}'));
  const refused = a.find((x) => x.status === 429);
  if (refused) assert.deepEqual(Object.keys((JSON.parse(refused.body) as { error: object }).error).sort(), ['code', 'message']);

  const bill = JSON.parse(a[0]!.body) as CreatedBillView;
  const events = `${w.base}/api/bills/${bill.billId}/events?token=${encodeURIComponent(bill.token)}`;
  const read = `${w.base}/api/bills/${bill.billId}?token=${encodeURIComponent(bill.token)}`;
  const controllers: AbortController[] = [];
  // Held streams stay referenced: undici cancels the body of a Response that is garbage collected
  // unread, which closes its socket and frees its place while the flood is still arriving.
  const held: Response[] = [];
  const statuses: number[] = [];
  const flood = Array.from({ length: o.sseAttempts }, async () => {
    const ac = new AbortController();
    controllers.push(ac);
    try {
      const res = await fetch(events, { signal: ac.signal });
      statuses.push(res.status);
      if (res.status === 200) held.push(res);
      else await res.text();
    } catch {
      statuses.push(0);
    }
  });
  // Health checks and status reads while the flood arrives and while the capped streams are held.
  const healthz: number[] = [];
  const reads: number[] = [];
  const probe = async (url: string, into: number[]) => {
    const started = performance.now();
    const res = await fetch(url);
    await res.text();
    into.push(performance.now() - started);
    assert.equal(res.status, 200);
  };
  while (statuses.length < o.sseAttempts) {
    await Promise.all([probe(`${w.base}/healthz`, healthz), probe(read, reads)]);
  }
  await Promise.all(flood);
  for (let i = 0; i < 20; i++) await Promise.all([probe(`${w.base}/healthz`, healthz), probe(read, reads)]);
  const streamed = statuses.filter((s) => s === 200).length;
  const refusedStreams = statuses.filter((s) => s === 503).length;
  for (const ac of controllers) ac.abort();

  // Once the streams are gone, their places are free again: wait for the server to see them close.
  let afterFloodOpens = false;
  for (let i = 0; i < 200 && !afterFloodOpens; i++) {
    const ac = new AbortController();
    const res = await fetch(events, { signal: ac.signal });
    afterFloodOpens = res.status === 200;
    ac.abort();
  }
  return {
    rateLimit: { limit: o.limit, clientA: tally(a), clientB: tally(b), retryAfter: refused?.headers['retry-after']?.toString() ?? null },
    sseFlood: {
      cap: o.sseCap, attempts: o.sseAttempts, streamed, refused: refusedStreams,
      other: statuses.length - streamed - refusedStreams,
      healthzP99Ms: Math.round(percentile(healthz, 99)), readP99Ms: Math.round(percentile(reads, 99)),
      maxMs: Math.round(Math.max(...healthz, ...reads)), afterFloodOpens,
    },
  };
}
