// createBillCheckout: the BFF as a Hono app, plus start()/stop() for its background work.
import { Hono } from 'hono';
import type { Context } from 'hono';
import { createAlerts } from './domain/alerts.js';
import type { Alerts } from './domain/alerts.js';
import { toBillView } from './domain/bill-view.js';
import type { BillNotice } from './domain/bill-view.js';
import { configSecrets } from './config.js';
import type { Config } from './config.js';
import { serviceIdentity } from './upstream/service-identity.js';
import { createBillCreator } from './domain/create/create-bill.js';
import { createCustomerBinder } from './domain/customers/bind-once.js';
import { createLogger } from './log.js';
import type { Logger } from './log.js';
import { createMetrics } from './metrics/metrics.js';
import type { Metrics } from './metrics/metrics.js';
import { instrumentStore } from './metrics/instrument-store.js';
import { instrumentUpstream } from './metrics/instrument-upstream.js';
import { apiHeaders, stampedBy, stampNoStore } from './http/middleware/api-headers.js';
import { bodyLimit } from './http/middleware/body-limit.js';
import { crossSiteGuard } from './http/middleware/cross-site.js';
import { jsonErrors, notFound, payloadTooLarge } from './http/json-errors.js';
import { pageSecurityHeaders } from './http/middleware/security-headers.js';
import { SERVER_TIME_HEADER, SERVICE_TIME_HEADER } from './http/middleware/server-time.js';
import { createNoticeWorker, noticeChannels } from './domain/notify/notice-worker.js';
import type { NoticeWorker, NoticeWorkerOptions } from './domain/notify/notice-worker.js';
import { orderLookup } from './domain/orders/order-lookup.js';
import { mintUnder, ticketPolicy } from './domain/orders/ticket-policy.js';
import type { TicketPolicy } from './domain/orders/ticket-policy.js';
import type { ResolveOrder } from './domain/orders/order-lookup.js';
import { createRedactor } from './redact.js';
import { adminRoutes } from './http/routes/admin.js';
import { billRoutes } from './http/routes/bills.js';
import { callbackRoutes } from './http/routes/callback.js';
import { checkoutRoutes } from './http/routes/checkout.js';
import { healthRoutes } from './http/routes/health.js';
import { metricsRoutes } from './http/routes/metrics.js';
import { openApiRoutes } from './http/routes/openapi.js';
import { returnRoutes } from './http/routes/return.js';
import { startedMarks } from './http/started-here.js';
import type { Services } from './http/services.js';
import { webSse } from './http/sse/sse-transport.js';
import type { SseTransport } from './http/sse/sse-transport.js';
import { createStreamRegistry } from './http/sse/streams.js';
import { createHub, createSharedHub } from './domain/status/hub.js';
import type { Hub, VersionedView } from './domain/status/hub.js';
import { createReconciler } from './domain/status/reconciler.js';
import type { ReconcileLag, Reconciler } from './domain/status/reconciler.js';
import { createRefresher, refresherCache } from './domain/status/refresher.js';
import { expiresAtLocal, type ServiceTime } from './domain/status/expiry.js';
import { createFollowUps } from './domain/status/follow-ups.js';
import { createSharedLimit } from './domain/status/shared-limit.js';
import type { SharedLimit } from './domain/status/shared-limit.js';
import type { FollowUps } from './domain/status/follow-ups.js';
import type { Refresher } from './domain/status/refresher.js';
import type { Store } from './store/types.js';
import type { BillApi, HttpClient } from './upstream/types.js';

export { orderTicket } from './domain/orders/order-ticket.js';
export type { BillNotice } from './domain/bill-view.js';
export type { ResolveOrder, ResolveOrderContext } from './domain/orders/order-lookup.js';
export { CheckoutError } from './domain/errors.js';

export interface BillCheckoutHooks {
  /**
   * The merchant's amount for an order; null when there is no such order (404). Wins over
   * ORDER_LOOKUP_URL. It is given the browser's request: without ORDER_TICKET_SECRET, it is what
   * decides whether this caller may pay this order (throw a CheckoutError of kind `forbidden` to refuse).
   */
  resolveOrder?: ResolveOrder;
  /**
   * Called once per final bill (an outbox in the store makes it survive restarts), with the order
   * it paid. A call that throws, or is still running after 10 s (its `signal` then aborts), is
   * retried later: make it idempotent on `bill.billId`.
   */
  onFinal?(bill: BillNotice, context: { signal: AbortSignal }): void | Promise<void>;
}

export interface BillCheckoutOptions {
  config: Config;
  upstream: BillApi;
  store: Store;
  hooks?: BillCheckoutHooks;
  log?: Logger;
  now?: () => number;
  /** Used for ORDER_LOOKUP_URL, and for the merchant webhook unless `webhookHttp` is given. */
  fetch?: typeof fetch;
  /** POSTs the merchant webhook; main.ts passes nodeHttpClient, about half the CPU of fetch per notice. */
  webhookHttp?: HttpClient;
  /** Tells clients apart for the create rate limit and MAX_SSE_PER_CLIENT; main.ts passes the client's address. */
  clientKey?: (c: Context) => string;
  /** Comment lines that keep idle SSE connections open (default 15 s). */
  sseHeartbeatMs?: number;
  /** The reconnect delay an event stream gives its client (`retry:`, default 3 s). */
  sseRetryMs?: number;
  /** How SSE bytes reach the client: a web ReadableStream by default; main.ts passes nodeSse. */
  sse?: SseTransport;
  /** Tuning of the notice worker (lease after a crash, poll interval, backoff). */
  notice?: Pick<NoticeWorkerOptions, 'leaseMs' | 'pollIntervalMs' | 'backoff'>;
  /**
   * With BILL_API_SHARED_MAX_RPS: how often this instance marks itself alive and counts the others, ms;
   * an instance silent for three of them is counted out. Default: every 0.5 s, counted out after 6 s.
   */
  instanceBeatMs?: number;
}

export interface BillCheckoutParts {
  /** Resolves once the hub hears other processes (at once with SQLite); serve after it. */
  ready(): Promise<void>;
  /** Starts the reconciler and the notice worker. */
  start(): void;
  /** Stops them and ends open SSE streams. */
  stop(): Promise<void>;
  /** This app's Prometheus metrics (GET /metrics with METRICS_TOKEN), in a registry of its own. */
  metrics: Metrics;
  /** Who may start an order's checkout, and the tickets this process can mint for its own pages. */
  orderTickets: {
    /** `required` (ORDER_TICKET_SECRET), `demo` (the embedded sandbox's own tickets, optional), `hook` or `refused`. */
    policy: TicketPolicy['kind'];
    /** A ticket for `orderId`, good for `ttlMs` (default 1 h); null when the policy has no secret. */
    mint(orderId: string, ttlMs?: number): Promise<string | null>;
  };
}

export type BillCheckout = Hono & BillCheckoutParts;

/** The parts inside an app, for tests and benches (server/testing.ts): not the package's API. */
export interface BillCheckoutInternals {
  refresher: Refresher;
  /** Follow-ups of news the service has not confirmed, and of bills reaching their expiry. */
  followUps: FollowUps;
  reconciler: Reconciler;
  noticeWorker: NoticeWorker;
  hub: Hub;
  /** Answers of the service that were refused as not matching the bill, counted by kind. */
  alerts: Alerts;
}

const internals = new WeakMap<BillCheckout, BillCheckoutInternals>();

/** The internals of an app made by createBillCheckout; reached through server/testing.ts. */
export function internalsOf(app: BillCheckout): BillCheckoutInternals {
  const parts = internals.get(app);
  if (!parts) throw new Error('internalsOf: not an app made by createBillCheckout');
  return parts;
}

/**
 * With BILL_API_SHARED_MAX_RPS: this instance's share of the service's limit follows the instances
 * alive on the database (domain/status/shared-limit.ts); the client's budget started at half of it.
 */
function instanceShare(options: BillCheckoutOptions, sharedMaxRps: number | null, log: Logger): SharedLimit | null {
  if (sharedMaxRps === null) return null;
  const budget = options.upstream.budget;
  const events = options.store.events;
  if (!budget || !events?.instanceBeat || !events.instanceLeave) {
    log.warn('BILL_API_SHARED_MAX_RPS is set but ' + (budget ? 'the store cannot count the live instances (PostgreSQL can)' : 'the upstream client has no budget') +
      ': the budget keeps the rate it was built with');
    return null;
  }
  const instanceBeat = events.instanceBeat;
  const instanceLeave = events.instanceLeave;
  return createSharedLimit({
    limit: sharedMaxRps,
    ...(options.instanceBeatMs !== undefined ? { intervalMs: options.instanceBeatMs } : {}),
    beat: (withinMs) => instanceBeat.call(events, withinMs),
    leave: () => instanceLeave.call(events),
    setMaxRps: (rps) => budget.setMaxRps(rps),
    onError: (error) => log.warn('could not count the live instances for BILL_API_SHARED_MAX_RPS; the last share is kept', { error }),
  });
}

export function createBillCheckout(options: BillCheckoutOptions): BillCheckout {
  const { config } = options;
  const hooks = options.hooks ?? {};
  const now = options.now ?? Date.now;
  const fetchFn = options.fetch ?? fetch;
  const secrets = configSecrets(config);
  const log = options.log ?? createLogger({ secrets });
  const streams = createStreamRegistry(
    config.maxSseConnections,
    // Without a way to tell clients apart, every stream would count as one client's.
    options.clientKey ? config.maxSsePerClient : Infinity,
  );
  const sharedMaxRps = config.upstream.sharedMaxRps ?? null;
  const sharedLimit = instanceShare(options, sharedMaxRps, log);
  // The reconciler works on the store these metrics instrument: its lag is bound once it exists (below).
  let reconcileLag = (): ReconcileLag => ({ backlogBills: 0, lagMs: 0 });
  const metrics = createMetrics({
    store: options.store, sseConnections: () => streams.size(), now,
    ...(options.upstream.budget ? { budget: options.upstream.budget } : {}),
    ...(options.upstream.clock ? { clock: options.upstream.clock } : {}),
    reconcileLag: () => reconcileLag(),
    ...(sharedMaxRps !== null ? { liveInstances: () => sharedLimit?.live() ?? null } : {}),
  });
  const store = instrumentStore(options.store, metrics);
  const service = instrumentUpstream(options.upstream, { metrics, now });
  const upstream = service.api;
  const serviceClock = options.upstream.clock;
  const alerts = createAlerts(log, (kind) => metrics.answerMismatch(kind));
  // A record dated after the service's time (local time labelled UTC, a database clock ahead) is
  // news for a person, never an input: raised once per bill (the set is bounded, then starts over).
  const recordsAhead = new Set<string>();
  serviceClock?.onContradiction(({ billId, dateTime, aheadMs }) => {
    const key = billId ?? '';
    if (recordsAhead.has(key)) return;
    if (recordsAhead.size >= 10_000) recordsAhead.clear();
    recordsAhead.add(key);
    alerts.raise('service_record_ahead', "a status record is dated after the service's time; it is not used to judge any time", {
      billId: billId ?? null, dateTime, aheadMs,
    });
  });
  const onFinal = hooks.onFinal?.bind(hooks);
  const hookResolvesOrders = hooks.resolveOrder !== undefined;
  const resolveOrder = hooks.resolveOrder?.bind(hooks) ??
    (config.orderLookupUrl ? orderLookup({ url: config.orderLookupUrl, fetch: fetchFn }) : null);
  const channels = noticeChannels({ onFinal, webhook: config.webhook });

  // The bills this process serves from memory: the refresher reads through them, and the hub drops
  // the ones another process changed.
  const cache = refresherCache({ config, now });
  // Several processes on one PostgreSQL share changes through it; otherwise the hub is in-process.
  // After a lost LISTEN connection, the bills watched here are read again from the store.
  const hub = store.events
    ? createSharedHub(store.events, {
      log,
      onRemote: (billId) => cache.forget(billId),
      // Also what the store committed but nobody announced (its instance died between the two).
      sweepMs: config.statusSweepMs,
      reload: async (billIds) => {
        const bills = await Promise.all(billIds.map((billId) => {
          cache.forget(billId);
          return store.getByBillId(billId);
        }));
        return bills.flatMap((bill): VersionedView[] => (bill ? [{ view: toBillView(bill, config.statuses.processing), version: bill.statusVersion }] : []));
      },
    })
    : createHub();
  const noticeWorker = createNoticeWorker({
    ...options.notice, store, onFinal, webhook: config.webhook, fetch: fetchFn, now, log,
    ...(options.webhookHttp ? { http: options.webhookHttp } : {}),
    livemode: !config.embeddedSandbox,
    onAttempt: (channel, result, replay) => metrics.noticeAttempt(channel, result, replay),
  });
  // Which service this process talks to: a bill made at another (a moved database) is never asked about here.
  const serviceId = serviceIdentity(config.upstream.baseUrl, config.upstream.key);
  const refresher = createRefresher({
    store, upstream, config, hub, alerts, now, log, serviceId, channels, cache,
    onBecameFinal: () => noticeWorker.kick(),
    onRequery: (reason, result) => metrics.requery(reason, result),
    ...(serviceClock ? { serviceNow: serviceClock.now } : {}),
    // Short: a process that died mid-requery holds its bill off the others no longer than this.
    leaseMs: config.upstream.timeoutMs,
  });
  const time: ServiceTime = { now, serviceNow: serviceClock?.now ?? now };
  // A follow-up asks unless the bill was checked within this (by any process sharing the store).
  const followUpFreshMs = Math.min(400, config.refreshWindowMs);
  const followUps = createFollowUps({
    now,
    requery: async (billId) => (await refresher.read(billId, followUpFreshMs, undefined, { reason: 'follow_up' }))?.bill ?? null,
    expiresAt: (bill) => expiresAtLocal(bill, time) ?? now(),
  });
  const tickets = ticketPolicy(config, hookResolvesOrders);
  const creator = createBillCreator({
    config, upstream, store, resolveOrder, alerts, time, log, followUps, tickets, hookResolvesOrders,
    refresh: (billId) => refresher.news(billId, { reason: 'create' }),
    serviceId,
    unknownAfterMs: 2 * config.upstream.timeoutMs,
    expiryGraceMs: config.expiryGraceMs,
    lifetimeFallbackMs: config.maxLifetimeMs,
    resendUnknown: config.upstream.idempotentCreate ?? false,
  });
  const reconciler = createReconciler({
    store, refresher, now, log, upstream, serviceId,
    settle: creator.settle,
    observeLifetime: creator.observeLifetime,
    intervalMs: config.reconcileIntervalMs,
    creatingAgeMs: 2 * config.upstream.timeoutMs,
    // Paced within the client's budget: half of a limit set by configuration, or RECONCILE_MAX_RPS.
    ...(options.upstream.budget ? { budget: options.upstream.budget } : {}),
    maxRps: config.reconcileMaxRps,
    requeryMaxRps: config.upstream.maxRpsByOperation.requery ?? null,
    limitKnown: config.upstream.maxRps !== null || sharedMaxRps !== null,
  });
  reconcileLag = () => reconciler.lag();
  const serverHeaders = apiHeaders({ now });
  const browserHeaders = apiHeaders({
    now,
    ...(serviceClock ? { serviceNow: serviceClock.now } : {}),
    cors: {
      origins: config.allowedOrigins,
      allowMethods: ['GET', 'POST', 'OPTIONS'],
      allowHeaders: ['Content-Type', 'Idempotency-Key'],
      exposeHeaders: [SERVER_TIME_HEADER, SERVICE_TIME_HEADER, 'Retry-After'],
      maxAgeSeconds: 600,
      credentials: true,
    },
  });
  const services: Services = {
    config, store, upstream, refresher, followUps, hub, creator, streams, log, now, browserHeaders, metrics, noticeWorker, alerts,
    channels,
    // The bind is not retried (not idempotent at the service): one timeout, plus room.
    customers: createCustomerBinder({ store, upstream, now, log, leaseMs: config.upstream.timeoutMs + 5_000 }),
    upstreamReachable: service.reachable,
    redact: createRedactor(secrets),
    clientKey: options.clientKey ?? (() => 'all'),
    sseHeartbeatMs: options.sseHeartbeatMs ?? 15_000,
    sseRetryMs: options.sseRetryMs ?? 3_000,
    sse: options.sse ?? webSse,
    started: startedMarks(config, now),
  };

  // Every route is registered here first, then copied onto the app with its errors turned into
  // JSON (json-errors.ts): no onError, so the app stays as fast mounted with app.route() as served
  // as the root app. Headers come from middleware on each route's own path, never '*': the status
  // read (GET /api/bills/:billId, the widget's poll) stamps the same headers itself, so that no
  // middleware matches it and Hono answers it without a promise when the bill is cached.
  const registry = new Hono();
  const browser = stampedBy(browserHeaders);
  const server = stampedBy(serverHeaders);
  registry.use('/api/bills', browser);
  registry.on('OPTIONS', '/api/bills/:billId', browser);
  registry.use('/api/bills/:billId/:action', browser);
  registry.use('/api/hooks/*', server);
  registry.use('/api/admin/*', server);
  registry.use('/api/openapi.json', server);
  registry.use('/metrics', server);
  registry.use('/healthz', pageSecurityHeaders());
  registry.use('/readyz', pageSecurityHeaders());
  // What another site could make its visitors' browsers send: JSON only, from allowed origins.
  // Not the service's callback, which takes whatever the service sends.
  registry.on('POST', ['/api/bills', '/api/bills/:billId/cancel', '/api/admin/*'], crossSiteGuard({ origins: config.allowedOrigins }));
  // Only requests with a body: reading a GET's body would cost a full Request per read.
  registry.on(['POST', 'PUT', 'PATCH', 'DELETE'], '/api/*', bodyLimit({
    maxBytes: config.bodyLimitBytes,
    onError: (c) => {
      stampNoStore(c);
      throw payloadTooLarge(config.bodyLimitBytes);
    },
  }));
  registry.route('/api/bills', billRoutes(services));
  registry.route('/api/bills', checkoutRoutes(services));
  registry.route('/api/hooks/callback', callbackRoutes(services));
  registry.route('/api/hooks/return', returnRoutes(services));
  registry.route('/api/admin', adminRoutes(services));
  registry.route('/api', openApiRoutes());
  registry.route('/', healthRoutes(services));
  registry.route('/', metricsRoutes(services));
  const checkout = new Hono();
  checkout.notFound(notFound());
  const guarded = jsonErrors(log);
  for (const route of registry.routes) checkout.on(route.method, route.path, guarded(route.handler));

  const parts: BillCheckoutParts = {
    // With a shared limit, the first count of the live instances too: served at its share.
    ready: async () => {
      await Promise.all([hub.ready(), sharedLimit?.first()]);
    },
    start() {
      reconciler.start();
      noticeWorker.start();
      sharedLimit?.start();
    },
    async stop() {
      followUps.stop();
      streams.closeAll();
      await Promise.all([reconciler.stop(), noticeWorker.stop(), sharedLimit?.stop()]);
      await hub.close();
    },
    metrics,
    orderTickets: { policy: tickets.kind, mint: (orderId, ttlMs = 3_600_000) => mintUnder(tickets, orderId, ttlMs, now()) },
  };
  const app = Object.assign(checkout, parts);
  internals.set(app, { refresher, followUps, reconciler, noticeWorker, hub, alerts });
  return app;
}
