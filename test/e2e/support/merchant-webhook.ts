// The merchant's own backend as the BFF's webhook sees it (MERCHANT_WEBHOOK_URL): a node:http server
// on 127.0.0.1 that records every notice and answers the status the test sets (200 by default).
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

export interface ReceivedNotice {
  /** The Standard Webhooks `webhook-id`: the same on every retry and replay of a notice. */
  id: string;
  status: number;
  body: { type: string; data: { billId: string; outcome: string; orderId: string | null } };
}

export interface MerchantWebhook {
  url: string;
  /** `whsec_` + base64 of 32 random bytes, for MERCHANT_WEBHOOK_SECRET. */
  secret: string;
  /** The env that points a BFF here. */
  env: Record<string, string>;
  received: ReceivedNotice[];
  /** What the next notices are answered. */
  answer(status: number): void;
  /** The first notice (already received or still to come) that `match` accepts. */
  notice(match: (n: ReceivedNotice) => boolean): Promise<ReceivedNotice>;
  close(): Promise<void>;
}

export async function startMerchantWebhook(): Promise<MerchantWebhook> {
  const received: ReceivedNotice[] = [];
  const waiting = new Set<{ match: (n: ReceivedNotice) => boolean; found: (n: ReceivedNotice) => void }>();
  let status = 200;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answered = status;
      res.writeHead(answered, { 'content-type': 'text/plain' });
      res.end(answered === 200 ? 'ok: recorded by the test merchant' : `refused with ${answered}`);
      let body: ReceivedNotice['body'];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedNotice['body'];
      } catch {
        return;
      }
      const notice = { id: String(req.headers['webhook-id'] ?? ''), status: answered, body };
      received.push(notice);
      for (const w of waiting) {
        if (w.match(notice)) {
          waiting.delete(w);
          w.found(notice);
        }
      }
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}/hooks/bills`;
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  return {
    url,
    secret,
    env: { MERCHANT_WEBHOOK_URL: url, MERCHANT_WEBHOOK_SECRET: secret },
    received,
    answer(next) {
      status = next;
    },
    notice(match) {
      const found = received.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiting.add({ match, found: resolve }));
    },
    close: () => new Promise((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    }),
  };
}
