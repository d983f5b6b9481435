import type { Alerts } from '../domain/alerts.js';
import type { Context } from 'hono';
import type { Config } from '../config.js';
import type { BillCreator } from '../domain/create/create-bill.js';
import type { CustomerBinder } from '../domain/customers/bind-once.js';
import type { NoticeWorker } from '../domain/notify/notice-worker.js';
import type { NoticeChannel } from '../store/types.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Redact } from '../redact.js';
import type { HeaderStamp } from './middleware/api-headers.js';
import type { Hub } from '../domain/status/hub.js';
import type { FollowUps } from '../domain/status/follow-ups.js';
import type { Refresher } from '../domain/status/refresher.js';
import type { BillStore, CustomerStore, NoticeStore, StoreLifecycle } from '../store/types.js';
import type { BillApi } from '../upstream/types.js';
import type { SseTransport } from './sse/sse-transport.js';
import type { StartedMarks } from './started-here.js';
import type { StreamRegistry } from './sse/streams.js';

/** What the route groups share; built once by createBillCheckout. */
export interface Services {
  config: Config;
  /** Bills and notices for the routes, customers for the admin's list, ping for the health checks: no claims. */
  store: StoreLifecycle & BillStore & NoticeStore & CustomerStore;
  upstream: BillApi;
  /** Alerts: answers of the service that contradict what we asked or stored, and creates that could not end cleanly. */
  alerts: Alerts;
  refresher: Refresher;
  /** Follows up news the service has not confirmed (callback, return) and bills reaching their expiry. */
  followUps: Pick<FollowUps, 'afterNews' | 'watchExpiry'>;
  hub: Hub;
  creator: BillCreator;
  /** Merchant notices: the admin's replays run a pass at once. */
  noticeWorker: Pick<NoticeWorker, 'runOnce' | 'kick'>;
  /** The notice channels this app delivers on (hook, webhook). */
  channels: NoticeChannel[];
  customers: CustomerBinder;
  streams: StreamRegistry;
  log: Logger;
  metrics: Metrics;
  /** False while the service is taken as unreachable (its last call failed for a network reason, lately): /readyz. */
  upstreamReachable: () => boolean;
  /** Masks the configuration's secrets in text a response repeats (the service's messages). */
  redact: Redact;
  now: () => number;
  /** Headers of the routes a browser calls (nosniff, X-Server-Time, CORS). */
  browserHeaders: HeaderStamp;
  clientKey: (c: Context) => string;
  sseHeartbeatMs: number;
  /** The `retry:` of every event stream: how long a client waits before reconnecting, ms. */
  sseRetryMs: number;
  sse: SseTransport;
  /** Marks the browser that started a bill, for its return (started-here.ts). */
  started: StartedMarks;
}
