// The BFF's Prometheus metrics: a registry of its own per app (several apps may share a process,
// as the tests do), typed recording methods, and gauges read from the store at scrape time.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { REQUERY_REASONS } from '../../contract/admin.js';
import { ALERT_KINDS, type AlertKind } from '../domain/alerts.js';
import type { ReconcileLag } from '../domain/status/reconciler.js';
import type { RequeryResult } from '../domain/status/refresher.js';
import type { NoticeChannel, NoticeCount, NoticeState, RequeryReason, Store } from '../store/types.js';
import { PRIORITIES, type Budget } from '../upstream/budget.js';
import type { BillOperation } from '../upstream/errors.js';
import type { ServiceClock } from '../upstream/service-clock.js';

/** Why a call to the service failed, from the upstream client's error classes. */
export type UpstreamErrorClass = 'network' | 'timeout' | 'http' | 'rejected' | 'auth' | 'response' | 'signer' | 'aborted' | 'throttled' | 'other';

/**
 * What a callback came to: acknowledged (200); acknowledged before the create answer arrived,
 * kept as news (200, `early`); refused before any requery (unknown reference or wrong hook token,
 * 404); its body named another bill (400); the requery or the store failed (503, the service retries).
 */
export type CallbackResult = 'accepted' | 'early' | 'refused_forged' | 'refused_mismatch' | 'not_confirmed' | 'store_unavailable';

/** One attempt to deliver a merchant notice: delivered, failed (retried by schedule), or the endpoint is gone (410). */
export type NoticeAttemptResult = 'delivered' | 'failed' | 'gone';

/** What the gauges read at every scrape. */
export interface MetricsSources {
  store: Pick<Store, 'countNotices' | 'countPending'>;
  /** Open SSE streams of this process. */
  sseConnections(): number;
  /** The app's clock, ms (the age of the oldest pending notice). */
  now(): number;
  /** The budget toward the service and its clock, when the client has them. */
  budget?: Budget;
  clock?: ServiceClock;
  /** How far behind the reconciler is, as its last pass left it. */
  reconcileLag?: () => ReconcileLag;
  /** With BILL_API_SHARED_MAX_RPS: the instances alive at the last count (null before one). */
  liveInstances?: () => number | null;
}

export interface Scrape {
  contentType: string;
  text: string;
}

export interface Metrics {
  /** This app's registry: add collectors to it (the platform adds the process's default metrics). */
  readonly registry: Registry;
  /** The text exposition, the store's gauges read first. */
  scrape(): Promise<Scrape>;
  requery(reason: RequeryReason, result: RequeryResult): void;
  /** One call to the service, retries included; `errorClass` null when it succeeded. */
  upstreamCall(operation: BillOperation, seconds: number, errorClass: UpstreamErrorClass | null): void;
  callback(result: CallbackResult): void;
  /** POST /api/bills answered a bill: one the service just made (`fresh`), or one that existed. */
  createAnswered(fresh: boolean): void;
  /** POST /api/bills was refused with this error code. */
  createRefused(code: string): void;
  answerMismatch(kind: AlertKind): void;
  noticeAttempt(channel: NoticeChannel, result: NoticeAttemptResult, replay: boolean): void;
  /** One write of the store, until it resolved (durable). */
  storeCommit(operation: string, seconds: number): void;
}

const PREFIX = 'bill_checkout_';
const CHANNELS: NoticeChannel[] = ['hook', 'webhook'];
const NOTICE_STATES: NoticeState[] = ['pending', 'delivered', 'failed'];
const REASONS: readonly RequeryReason[] = REQUERY_REASONS;
const REQUERY_RESULTS: RequeryResult[] = ['changed', 'unchanged', 'failed', 'mismatch'];
const CALLBACK_RESULTS: CallbackResult[] = ['accepted', 'early', 'refused_forged', 'refused_mismatch', 'not_confirmed', 'store_unavailable'];
const NOTICE_RESULTS: NoticeAttemptResult[] = ['delivered', 'failed', 'gone'];
/** The service's latency: from a fast answer to the 10 s default timeout, retries beyond it. */
const OPERATIONS: BillOperation[] = ['create', 'list', 'findByMerchantReference', 'requery', 'cancel', 'bind'];
/** A turn in the budget: none at all when it is not short, up to a Retry-After's pause. */
const WAIT_BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const UPSTREAM_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** A commit synced to disk: sub-millisecond on SQLite with a fast disk, more on PostgreSQL. */
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
/** Error codes are the code's own constants (and a resolveOrder hook's): anything else is `other`. */
const ERROR_CODE = /^[a-z][a-z0-9_]{0,47}$/;

export function createMetrics(sources: MetricsSources): Metrics {
  const registry = new Registry();
  const registers = [registry];

  const requeries = new Counter({
    name: `${PREFIX}requeries_total`,
    help: 'Requeries of a bill this process made, by why it was asked (reason) and what came of it (result).',
    labelNames: ['reason', 'result'] as const,
    registers,
  });
  const upstreamDuration = new Histogram({
    name: `${PREFIX}upstream_request_duration_seconds`,
    help: 'Calls to the payment service, retries included, by operation: how long until an answer or an error.',
    labelNames: ['operation'] as const,
    buckets: UPSTREAM_BUCKETS,
    registers,
  });
  const upstreamErrors = new Counter({
    name: `${PREFIX}upstream_errors_total`,
    help: 'Calls to the payment service that failed, by operation and error class.',
    labelNames: ['operation', 'class'] as const,
    registers,
  });
  const callbacks = new Counter({
    name: `${PREFIX}callbacks_total`,
    help: "The service's callbacks, by what came of them.",
    labelNames: ['result'] as const,
    registers,
  });
  const creates = new Counter({
    name: `${PREFIX}creates_total`,
    help: 'POST /api/bills: created (the service made a bill), existing (an existing bill answered), or the error code of a refusal.',
    labelNames: ['result'] as const,
    registers,
  });
  const mismatches = new Counter({
    name: `${PREFIX}answer_mismatches_total`,
    help: "Answers of the service that contradicted the request or the stored bill and were not applied, and create answers whose expiry contradicted its Date header (service_clock_disagrees), by kind.",
    labelNames: ['kind'] as const,
    registers,
  });
  const noticeAttempts = new Counter({
    name: `${PREFIX}notice_attempts_total`,
    help: 'Attempts to deliver a merchant notice, by channel, result and whether it was a replay.',
    labelNames: ['channel', 'result', 'replay'] as const,
    registers,
  });
  const storeCommits = new Histogram({
    name: `${PREFIX}store_commit_duration_seconds`,
    help: 'Writes of the store, until durable, by operation.',
    labelNames: ['operation'] as const,
    buckets: STORE_BUCKETS,
    registers,
  });

  const turns = new Counter({
    name: `${PREFIX}upstream_requests_total`,
    help: 'Requests sent to the payment service (each attempt, retries too), by operation and priority (news, customer, watch, background).',
    labelNames: ['operation', 'priority'] as const,
    registers,
  });
  const budgetWaits = new Histogram({
    name: `${PREFIX}upstream_budget_wait_seconds`,
    help: 'How long a request waited for its turn in the budget toward the service, by priority.',
    labelNames: ['priority'] as const,
    buckets: WAIT_BUCKETS,
    registers,
  });
  const throttled = new Counter({
    name: `${PREFIX}upstream_throttled_total`,
    help: 'Answers of the service refusing for load (429, or 503 with Retry-After), by operation.',
    labelNames: ['operation'] as const,
    registers,
  });
  const { budget, clock } = sources;
  if (budget) {
    new Gauge({
      name: `${PREFIX}upstream_budget_rps`,
      help: 'Requests per second the budget toward the service grants now (without BILL_API_MAX_RPS: learned, from a slow start).',
      registers,
      collect() {
        this.set(budget.state().rps);
      },
    });
    new Gauge({
      name: `${PREFIX}upstream_budget_waiting`,
      help: 'Requests waiting for their turn in the budget toward the service, by priority.',
      labelNames: ['priority'] as const,
      registers,
      collect() {
        const { waiting } = budget.state();
        for (const priority of PRIORITIES) this.set({ priority }, waiting[priority]);
      },
    });
    new Gauge({
      name: `${PREFIX}upstream_paused_seconds`,
      help: "How long each operation stays paused by the service's Retry-After (0: not paused).",
      labelNames: ['operation'] as const,
      registers,
      collect() {
        const { paused } = budget.state();
        const now = sources.now();
        for (const operation of OPERATIONS) this.set({ operation }, Math.max(0, (paused[operation] ?? now) - now) / 1000);
      },
    });
    budget.observe({
      granted: (operation, priority, waitedMs) => {
        turns.inc({ operation, priority });
        budgetWaits.observe({ priority }, waitedMs / 1000);
      },
      throttled: (operation) => throttled.inc({ operation }),
    });
  }
  const { liveInstances } = sources;
  if (liveInstances) {
    new Gauge({
      name: `${PREFIX}upstream_instances`,
      help: 'Instances alive on the database at the last count, this one included (BILL_API_SHARED_MAX_RPS is divided by it).',
      registers,
      collect() {
        const live = liveInstances();
        if (live !== null) this.set(live);
      },
    });
  }
  if (clock) {
    new Gauge({
      name: `${PREFIX}service_clock_offset_seconds`,
      help: "The service's clock minus this process's, estimated from the Date headers of its answers.",
      registers,
      collect() {
        this.set(clock.offsetMs() / 1000);
      },
    });
  }

  const { reconcileLag } = sources;
  if (reconcileLag) {
    new Gauge({
      name: `${PREFIX}reconcile_backlog_bills`,
      help: 'Pending bills due for a requery that the last reconcile pass could not reach within RECONCILE_INTERVAL_MS (0: it covers every due bill).',
      registers,
      collect() {
        this.set(reconcileLag().backlogBills);
      },
    });
    new Gauge({
      name: `${PREFIX}reconcile_lag_seconds`,
      help: 'How much longer than RECONCILE_INTERVAL_MS the oldest of those bills has gone without a requery (0: the reconciler keeps up).',
      registers,
      collect() {
        this.set(reconcileLag().lagMs / 1000);
      },
    });
  }

  // The gauges of one scrape share one read of the store.
  let reading: Promise<NoticeCount[] | null> | null = null;
  const noticeCounts = () => (reading ??= sources.store.countNotices().catch(() => null).finally(() => {
    reading = null;
  }));
  new Gauge({
    name: `${PREFIX}notices`,
    help: 'Merchant notices in the outbox, by channel and state (none while the store does not answer).',
    labelNames: ['channel', 'state'] as const,
    registers,
    async collect() {
      const counts = await noticeCounts();
      this.reset();
      if (counts === null) return;
      for (const channel of CHANNELS) for (const state of NOTICE_STATES) this.set({ channel, state }, 0);
      for (const row of counts) this.set({ channel: row.channel, state: row.state }, row.count);
    },
  });
  new Gauge({
    name: `${PREFIX}notice_oldest_pending_age_seconds`,
    help: 'Age of the oldest pending merchant notice, by channel (0: none pending).',
    labelNames: ['channel'] as const,
    registers,
    async collect() {
      const counts = await noticeCounts();
      this.reset();
      if (counts === null) return;
      const now = sources.now();
      for (const channel of CHANNELS) {
        const oldestAt = counts.find((row) => row.channel === channel && row.state === 'pending')?.oldestAt ?? null;
        this.set({ channel }, oldestAt === null ? 0 : Math.max(0, now - oldestAt) / 1000);
      }
    },
  });
  new Gauge({
    name: `${PREFIX}bills_pending`,
    help: 'Created bills that are not final yet (NaN while the store does not answer).',
    registers,
    async collect() {
      this.set(await sources.store.countPending().catch(() => NaN));
    },
  });
  new Gauge({
    name: `${PREFIX}sse_connections`,
    help: 'Open SSE streams of this process.',
    registers,
    collect() {
      this.set(sources.sseConnections());
    },
  });

  // Known label sets start at 0, so that rates and alerts see them before the first event.
  for (const reason of REASONS) for (const result of REQUERY_RESULTS) requeries.inc({ reason, result }, 0);
  for (const result of CALLBACK_RESULTS) callbacks.inc({ result }, 0);
  for (const result of ['created', 'existing']) creates.inc({ result }, 0);
  for (const kind of ALERT_KINDS) mismatches.inc({ kind }, 0);
  for (const operation of OPERATIONS) throttled.inc({ operation }, 0);
  for (const priority of PRIORITIES) turns.inc({ operation: 'requery', priority }, 0);
  for (const channel of CHANNELS) {
    for (const result of NOTICE_RESULTS) for (const replay of ['false', 'true']) noticeAttempts.inc({ channel, result, replay }, 0);
  }

  return {
    registry,
    async scrape() {
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
    requery: (reason, result) => requeries.inc({ reason, result }),
    upstreamCall(operation, seconds, errorClass) {
      upstreamDuration.observe({ operation }, seconds);
      if (errorClass !== null) upstreamErrors.inc({ operation, class: errorClass });
    },
    callback: (result) => callbacks.inc({ result }),
    createAnswered: (fresh) => creates.inc({ result: fresh ? 'created' : 'existing' }),
    createRefused: (code) => creates.inc({ result: ERROR_CODE.test(code) && code !== 'created' && code !== 'existing' ? code : 'other' }),
    answerMismatch: (kind) => mismatches.inc({ kind }),
    noticeAttempt: (channel, result, replay) => noticeAttempts.inc({ channel, result, replay: String(replay) }),
    storeCommit: (operation, seconds) => storeCommits.observe({ operation }, seconds),
  };
}
