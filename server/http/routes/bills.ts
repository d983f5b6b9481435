import { Hono } from 'hono';
import type { Context } from 'hono';
import { z } from 'zod';
import { parseCreateRequest } from '../../domain/create/request.js';
import { cancelBill } from '../../domain/status/cancel-bill.js';
import { SERVICE_TIME_HEADER, stampBillServiceTime } from '../middleware/server-time.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { countRefusals } from '../middleware/count-refusals.js';
import type { StampTarget } from '../middleware/api-headers.js';
import type { CachedBill } from '../../domain/status/bill-cache.js';
import { amountDisplay, readJson } from '../amount-display.js';
import { billForToken, jsonBody, servableForToken } from '../bill-access.js';
import type { Services } from '../services.js';
import { billWatch } from '../sse/watch-bill.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };

// The inputs these routes read besides a bill's path and token (bill-access.ts), the create's
// body (createBillBody) and the event stream's (sse/watch-bill.ts), as the OpenAPI description publishes them.

/**
 * The create's optional header. parseCreateRequest checks it (invalid_idempotency_key);
 * test/server/http/routes/openapi.test.ts checks that this schema takes the keys it takes, and no other.
 */
export const createHeaders = z.object({
  'Idempotency-Key': z.string().min(1).max(255).regex(/^[!-~]+$/).optional().describe('The same key and body answer the same bill'),
});
const IDEMPOTENCY_KEY = 'Idempotency-Key' satisfies keyof z.infer<typeof createHeaders>;

/**
 * A stand-in for the context that the status read's header stamps (browserHeaders,
 * stampBillServiceTime, the started mark, its Cache-Control) write to: what they set lands in
 * `headers`, a plain object, by lower-case name, the last value of a name winning as with
 * Headers.set (appended with `append`). It reads the request as the context does, and answers
 * nothing: the route builds the Response.
 */
function plainStamp(c: Context): { stamp: StampTarget; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  const stamp: StampTarget = {
    req: c.req,
    header(name: string, value: string | undefined, options?: { append?: boolean }) {
      const key = name.toLowerCase();
      if (value === undefined) Reflect.deleteProperty(headers, key);
      else headers[key] = options?.append && headers[key] !== undefined ? `${headers[key]}, ${value}` : value;
    },
  };
  return { stamp, headers };
}

export function billRoutes(s: Services): Hono {
  const app = new Hono();
  // X-Service-Time of an answer about one bill: its own (stampBillServiceTime), the estimate without one.
  const serviceNow = s.upstream.clock ? () => s.upstream.clock!.now() : undefined;

  const limit = rateLimit({ limit: s.config.createRateLimitPerMinute, windowMs: 60_000, key: s.clientKey, now: s.now });

  app.post(
    '/',
    countRefusals((code) => s.metrics.createRefused(code)),
    limit,
    async (c) => {
      const request = parseCreateRequest(await jsonBody(c), c.req.header(IDEMPOTENCY_KEY), c.req.raw);
      const result = await s.creator.create(request);
      const { status, bill } = result;
      s.metrics.createAnswered(result.fresh);
      // Stamped again now that the service has answered, with the bill's own time (its lifetime as
      // judged at create): the widget counts down from this one.
      // Read from the store, not cached: a create leaves the cache to the reads that follow.
      const own = await s.store.getByBillId(bill.billId).catch(() => null);
      if (own) stampBillServiceTime(c, own, s.now, serviceNow);
      else if (serviceNow) c.header(SERVICE_TIME_HEADER, String(serviceNow()));
      // The answer carries the bill's token: no cache may keep it.
      c.header('Cache-Control', 'no-store');
      s.started.mark(c, bill);
      const display = amountDisplay(bill, c.req.header('Accept-Language'));
      return c.json(display ? { ...bill, display } : bill, status);
    },
  );

  // What is known now, at once; a requery runs behind it when the status is older than the window.
  const stampKnown = (c: StampTarget, found: CachedBill) => {
    stampBillServiceTime(c, found.bill, s.now, serviceNow);
    // The browser shown the bill is one that started it, whoever made it (a merchant's server, say).
    s.started.mark(c, found.bill);
    s.refresher.refreshBehind(found.bill, 'poll');
    s.followUps.watchExpiry(found.bill);
    c.header('Cache-Control', 'no-store');
  };
  const known = (c: Context, found: CachedBill) => {
    stampKnown(c, found);
    return c.body(readJson(found, c.req.header('Accept-Language')), 200, JSON_TYPE);
  };

  // Served from memory without an await when the bill is cached: the common poll. It stamps
  // its own headers because no middleware may match its path (see app.ts), and on a cached bill
  // into a plain object, answered as the Response's own (plainStamp): c.header() keeps them in a
  // web Headers, whose every set validates and whose conversion for node:http sorts them, a
  // quarter of the read's CPU time in the status-reads bench. Any other answer (a miss, an error)
  // gets them on the context, as before.
  app.get('/:billId', (c) => {
    let hit: CachedBill | undefined;
    try {
      hit = servableForToken(c, s);
    } catch (error) {
      s.browserHeaders(c);
      throw error;
    }
    if (hit) {
      const { stamp, headers } = plainStamp(c);
      s.browserHeaders(stamp);
      stampKnown(stamp, hit);
      headers['content-type'] = JSON_TYPE['Content-Type'];
      return new Response(readJson(hit, c.req.header('Accept-Language')), { status: 200, headers });
    }
    s.browserHeaders(c);
    return (async () => known(c, await billForToken(c, s)))();
  });

  const watch = billWatch(s);
  app.get('/:billId/events', async (c) => watch(c, await billForToken(c, s)));

  app.post('/:billId/cancel', async (c) => c.json(await cancelBill((await billForToken(c, s)).bill, s)));

  return app;
}
