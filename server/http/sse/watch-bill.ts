// GET /api/bills/:billId/events: one bill's status as Server-Sent Events, for a client that has its
// token (the route checks it). A stream holds a place under the caps (streams.ts) until it ends.
import type { Context } from 'hono';
import { z } from 'zod';
import type { BillView } from '../../../contract/bill-view.js';
import { CheckoutError } from '../../domain/errors.js';
import type { CachedBill } from '../../domain/status/bill-cache.js';
import type { VersionedView } from '../../domain/status/hub.js';
import { stampBillServiceTime } from '../middleware/server-time.js';
import type { Services } from '../services.js';
import { statusStream } from './streams.js';
import type { StatusStream } from './streams.js';

/** Any text is taken: only the final status's id is answered 204. The header wins over the query. */
export const watchHeaders = z.object({
  'Last-Event-ID': z.string().optional().describe('The `id:` of the last status frame received (an EventSource sends it when it reconnects)'),
});
export const watchQuery = z.object({
  lastEventId: z.string().optional().describe('The same as Last-Event-ID, for EventSource polyfills that cannot set headers; the header wins'),
});
const LAST_EVENT_ID = 'Last-Event-ID' satisfies keyof z.infer<typeof watchHeaders>;
const LAST_EVENT_ID_QUERY = 'lastEventId' satisfies keyof z.infer<typeof watchQuery>;

const SSE_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' };
/** Retry-After of a stream refused at a cap, seconds: the client polls meanwhile. */
const STREAM_RETRY_AFTER_SECONDS = 5;

export type WatchServices = Pick<
  Services, 'upstream' | 'refresher' | 'followUps' | 'hub' | 'streams' | 'clientKey' | 'sse' | 'sseHeartbeatMs' | 'sseRetryMs' | 'now'
>;

/** The event stream of a bill found for the request's token. */
export type BillWatch = (c: Context, found: CachedBill) => Promise<Response>;

export function billWatch(s: WatchServices): BillWatch {
  const clock = s.upstream.clock;
  const serviceNow = clock ? () => clock.now() : undefined;

  return async function watchBill(c, found) {
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
      throw new CheckoutError('busy', 'too_many_streams', 'Too many live streams; poll instead.', STREAM_RETRY_AFTER_SECONDS);
    }
    if (release === 'client-busy') {
      throw new CheckoutError('too_many', 'too_many_streams_for_client', 'This client has too many live streams; poll instead.', STREAM_RETRY_AFTER_SECONDS);
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
  };
}
