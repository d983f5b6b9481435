import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { toBillView } from '../bill-view.js';
import { parseCreateRequest } from '../create/request.js';
import { ApiError } from '../middleware/errors.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { BillApiRejectedError } from '../upstream/errors.js';
import type { BillView } from '../../widget/bill-view.js';
import { billForToken, jsonBody } from './bill-access.js';
import type { Services } from './services.js';

const sameStatus = (a: BillView, b: BillView) =>
  a.status === b.status && a.outcome === b.outcome && a.isFinal === b.isFinal &&
  a.dateTime === b.dateTime && a.statusName === b.statusName;

export function billRoutes(s: Services): Hono {
  const app = new Hono();

  app.post(
    '/',
    rateLimit({ limit: s.config.createRateLimitPerMinute, windowMs: 60_000, key: s.clientKey, now: s.now }),
    async (c) => {
      const request = parseCreateRequest(await jsonBody(c), c.req.header('Idempotency-Key'));
      return c.json(await s.creator.create(request), 201);
    },
  );

  app.get('/:billId', async (c) => {
    const bill = await billForToken(c, s);
    const read = await s.refresher.read(bill.billId);
    c.header('Cache-Control', 'no-store');
    return c.json(toBillView(read?.bill ?? bill));
  });

  app.get('/:billId/events', async (c) => {
    const bill = await billForToken(c, s);
    const billId = bill.billId;
    const queue: BillView[] = [];
    let wake: (() => void) | null = null;
    let ended = false;
    const end = () => {
      ended = true;
      wake?.();
    };
    const release = s.streams.open(end);
    if (!release) {
      throw new ApiError(503, 'too_many_streams', 'Too many live streams; poll instead.', { 'Retry-After': '5' });
    }
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      const unsubscribe = s.hub.subscribe(billId, (view) => {
        queue.push(view);
        wake?.();
      });
      stream.onAbort(end);
      const heartbeat = setInterval(() => void stream.write(': keep-alive\n\n'), s.sseHeartbeatMs);
      try {
        const first = await s.refresher.read(billId);
        let last = toBillView(first?.bill ?? bill);
        await stream.writeSSE({ event: 'status', data: JSON.stringify(last) });
        while (!last.isFinal && !ended && !stream.aborted) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            if (ended || queue.length > 0) resolve();
          });
          wake = null;
          while (queue.length > 0 && !last.isFinal) {
            const view = queue.shift()!;
            if (sameStatus(view, last)) continue;
            await stream.writeSSE({ event: 'status', data: JSON.stringify(view) });
            last = view;
          }
        }
      } catch (error) {
        // Caught here: streamSSE would otherwise write the error's message to the browser.
        s.log.warn('status stream failed', { billId, error });
      } finally {
        clearInterval(heartbeat);
        unsubscribe();
        release();
      }
    });
  });

  app.post('/:billId/cancel', async (c) => {
    const bill = await billForToken(c, s);
    if (bill.outcome !== 'pending') throw new ApiError(409, 'not_cancellable', 'Only a pending bill can be cancelled.');
    try {
      await s.upstream.cancelBill(bill.billId);
    } catch (error) {
      if (error instanceof BillApiRejectedError) {
        await s.refresher.news(bill.billId);
        throw new ApiError(409, 'not_cancellable', 'The payment service says this bill can no longer be cancelled.');
      }
      s.log.warn('cancel failed', { billId: bill.billId, error });
      throw new ApiError(502, 'upstream_unavailable', 'The payment service is unavailable; try again shortly.');
    }
    const after = await s.refresher.news(bill.billId);
    return c.json(toBillView(after?.bill ?? bill));
  });

  return app;
}
