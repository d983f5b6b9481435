import { Hono } from 'hono';
import type { Context, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { toBillView } from '../../domain/bill-view.js';
import { CheckoutError, serviceBusy } from '../../domain/errors.js';
import { parseCreateRequest } from '../../domain/create/request.js';
import { isProcessing } from '../../domain/status/outcome.js';
import { ApiError } from '../errors.js';
import { SERVICE_TIME_HEADER, stampBillServiceTime } from '../middleware/server-time.js';
import { StoreUnavailableError } from '../../store/errors.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { BillApiRejectedError, BillApiThrottledError } from '../../upstream/errors.js';
import type { BillView } from '../../../contract/bill-view.js';
import type { CachedBill } from '../../domain/status/bill-cache.js';
import type { VersionedView } from '../../domain/status/hub.js';
import { amountDisplay, readJson } from '../amount-display.js';
import { billForToken, jsonBody, servableForToken } from '../bill-access.js';
import type { Services } from '../services.js';
import { statusStream } from '../sse/streams.js';
import type { StatusStream } from '../sse/streams.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const SSE_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' };

// The inputs these routes read besides a bill's path and token (bill-access.ts) and the create's
// body (createBillBody), as the OpenAPI description publishes them.

/**
 * The create's optional header. parseCreateRequest checks it (invalid_idempotency_key);
 * test/server/http/routes/openapi.test.ts checks that this schema takes the keys it takes, and no other.
 */
export const createHeaders = z.object({
  'Idempotency-Key': z.string().min(1).max(255).regex(/^[!-~]+$/).optional().describe('The same key and body answer the same bill'),
});
/** Any text is taken: only the final status's id is answered 204. The header wins over the query. */
export const watchHeaders = z.object({
  'Last-Event-ID': z.string().optional().describe('The `id:` of the last status frame received (an EventSource sends it when it reconnects)'),
});
export const watchQuery = z.object({
  lastEventId: z.string().optional().describe('The same as Last-Event-ID, for EventSource polyfills that cannot set headers; the header wins'),
});
const LAST_EVENT_ID = 'Last-Event-ID' satisfies keyof z.infer<typeof watchHeaders>;
const LAST_EVENT_ID_QUERY = 'lastEventId' satisfies keyof z.infer<typeof watchQuery>;
const IDEMPOTENCY_KEY = 'Idempotency-Key' satisfies keyof z.infer<typeof createHeaders>;

/**
 * A stand-in for the context that the status read's header stamps (browserHeaders,
 * stampBillServiceTime, the started mark, its Cache-Control) write to: what they set lands in
 * `headers`, a plain object, by lower-case name, the last value of a name winning as with
 * Headers.set (appended with `append`). It reads the request as the context does, and answers
 * nothing: the route builds the Response.
 */
function plainStamp(c: Context): { stamp: Context; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  const stamp = {
    req: c.req,
    header(name: string, value: string | undefined, options?: { append?: boolean }) {
      const key = name.toLowerCase();
      if (value === undefined) Reflect.deleteProperty(headers, key);
      else headers[key] = options?.append && headers[key] !== undefined ? `${headers[key]}, ${value}` : value;
    },
  };
  return { stamp: stamp as unknown as Context, headers };
}

/** The code a create is refused with, for bill_checkout_creates_total. */
function refusalCode(error: unknown): string {
  if (error instanceof StoreUnavailableError) return 'store_unavailable';
  return error instanceof ApiError || error instanceof CheckoutError ? error.code : 'internal_error';
}

export function billRoutes(s: Services): Hono {
  const app = new Hono();
  // X-Service-Time of an answer about one bill: its own (stampBillServiceTime), the estimate without one.
  const serviceNow = s.upstream.clock ? () => s.upstream.clock!.now() : undefined;

  const limit = rateLimit({ limit: s.config.createRateLimitPerMinute, windowMs: 60_000, key: s.clientKey, now: s.now });
  // The handler after it answers its own errors (app.ts guards each): what is thrown here is the limit's.
  const countedLimit: MiddlewareHandler = async (c, next) => {
    try {
      await limit(c, next);
    } catch (error) {
      s.metrics.createRefused(refusalCode(error));
      throw error;
    }
  };

  app.post(
    '/',
    countedLimit,
    async (c) => {
      let result;
      try {
        const request = parseCreateRequest(await jsonBody(c), c.req.header(IDEMPOTENCY_KEY), c.req.raw);
        result = await s.creator.create(request);
      } catch (error) {
        s.metrics.createRefused(refusalCode(error));
        throw error;
      }
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
  const stampKnown = (c: Context, found: CachedBill) => {
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

  app.get('/:billId/events', async (c) => {
    const found = await billForToken(c, s);
    const billId = found.bill.billId;
    stampBillServiceTime(c, found.bill, s.now, serviceNow);
    // A client that has the final status (it names its id) is told not to come back: per the
    // WHATWG spec an EventSource answered 204 stops reconnecting. Some polyfills send the id as a query.
    const lastEventId = c.req.header(LAST_EVENT_ID) ?? c.req.query(LAST_EVENT_ID_QUERY);
    if (found.bill.isFinal && lastEventId?.trim() === String(found.bill.statusVersion)) return c.body(null, 204);
    let stream: StatusStream | null = null;
    let closedEarly = false;
    const release = s.streams.open(s.clientKey(c), () => {
      if (stream) stream.close();
      else closedEarly = true;
    });
    if (release === 'all-busy') {
      throw new ApiError(503, 'too_many_streams', 'Too many live streams; poll instead.', { 'Retry-After': '5' });
    }
    if (release === 'client-busy') {
      throw new ApiError(429, 'too_many_streams_for_client', 'This client has too many live streams; poll instead.', { 'Retry-After': '5' });
    }
    // Subscribed before the read, so that no change between the two is missed.
    const early: VersionedView[] = [];
    let deliver: (view: BillView, version: number) => void = (view, version) => void early.push({ view, version });
    const unsubscribe = s.hub.subscribe(billId, (view, version) => deliver(view, version));
    // The first frame is what is known now (looked up again after subscribing, so that no change
    // between the two is missed); a requery behind it arrives as the next frame.
    let first: CachedBill;
    try {
      const now = await s.refresher.lookup(billId);
      first = now && now.bill.statusVersion > found.bill.statusVersion ? now : found;
    } catch (error) {
      unsubscribe();
      release();
      throw error;
    }
    s.refresher.refreshBehind(first.bill, 'stream');
    // Watched here: its expiry is shown when the service says so, not at the reconciler's next pass.
    s.followUps.watchExpiry(first.bill);
    const { sink, response } = s.sse(c, SSE_HEADERS, () => stream?.cancel());
    const live = statusStream({
      sink,
      first: first.view,
      firstVersion: first.bill.statusVersion,
      firstJson: first.json,
      heartbeatMs: s.sseHeartbeatMs,
      retryMs: s.sseRetryMs,
      onEnd() {
        unsubscribe();
        release();
      },
    });
    stream = live;
    deliver = live.push;
    for (const { view, version } of early) live.push(view, version);
    if (closedEarly) live.close();
    return response;
  });

  app.post('/:billId/cancel', async (c) => {
    const { bill } = await billForToken(c, s);
    if (bill.outcome !== 'pending') throw new ApiError(409, 'not_cancellable', 'Only a pending bill can be cancelled.');
    if (isProcessing(bill, s.config.statuses.processing)) {
      throw new ApiError(409, 'not_cancellable', 'This bill is paid and its payment is being confirmed; it can no longer be cancelled.');
    }
    try {
      await s.upstream.cancelBill(bill.billId);
    } catch (error) {
      // Refused as such (not for load: a 429 is no answer about the bill).
      if (error instanceof BillApiRejectedError && !error.retryable) {
        await s.refresher.news(bill.billId, { reason: 'cancel' });
        throw new ApiError(409, 'not_cancellable', 'The payment service says this bill can no longer be cancelled.');
      }
      if (error instanceof BillApiThrottledError) throw serviceBusy(error.retryAfterSeconds);
      s.log.warn('cancel failed', { billId: bill.billId, error });
      throw new ApiError(502, 'upstream_unavailable', 'The payment service is unavailable; try again shortly.');
    }
    const after = await s.refresher.news(bill.billId, { reason: 'cancel' });
    return c.json(toBillView(after?.bill ?? bill, s.config.statuses.processing));
  });

  return app;
}
