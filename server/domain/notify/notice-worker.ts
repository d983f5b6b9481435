// Delivers the merchant notices of the store's outbox: the in-process `onFinal` hook and the
// signed Standard Webhooks POST. A notice is queued in the same transaction that makes a bill
// final, leased while it is being delivered, and retried on a schedule of about three days, so it
// survives restarts; the webhook id (the notice id) is the same on every retry and replay, which
// lets the merchant drop a duplicate. Every attempt is kept in the notice's delivery log.

import { toBillNotice } from '../bill-view.js';
import type { BillNotice } from '../bill-view.js';
import type { WebhookConfig } from '../../config.js';
import { silentLogger } from '../../log.js';
import type { Logger } from '../../log.js';
import type { ClaimedNotice, NoticeAttempt, NoticeChannel, NoticeStore } from '../../store/types.js';
import type { HttpClient } from '../../upstream/types.js';
import { callHook } from './call-hook.js';
import { deliveryOutcome, describe, logDelivery } from './delivery-outcome.js';
import { fetchExcerpts, postWebhook, WebhookRefused, type Posted } from './webhook-post.js';

export { RESPONSE_EXCERPT_BYTES, type WebhookPayload } from './webhook-post.js';

export interface NoticeWorkerOptions {
  store: NoticeStore;
  /** In-process hook, channel 'hook'. */
  onFinal?: (bill: BillNotice, context: { signal: AbortSignal }) => void | Promise<void>;
  /** False on the embedded sandbox: every notice then says `livemode: false` (default true). */
  livemode?: boolean;
  /** Channel 'webhook'. */
  webhook: WebhookConfig | null;
  /** POSTs the webhook (default: `fetch`, of which only an excerpt of each answer is read); main.ts passes nodeHttpClient. */
  http?: HttpClient;
  /** The default `http` goes through this fetch (default: the global one). */
  fetch?: typeof fetch;
  now?: () => number;
  random?: () => number;
  log?: Logger;
  /** How long a claimed notice is withheld from other workers, ms (default 60_000). */
  leaseMs?: number;
  /** Between passes, ms (default 1_000). */
  pollIntervalMs?: number;
  /** Delay before the next try after `attempt` failed tries (1, 2, …), ms; null: give up (default RETRY_SCHEDULE_MS, jittered). */
  backoff?: (attempt: number) => number | null;
  /** Per webhook POST or onFinal call, ms (default 10_000): a hook still running then counts as failed. */
  timeoutMs?: number;
  /** After every attempt (metrics): `gone` is a 410 that disabled the endpoint. */
  onAttempt?: (channel: NoticeChannel, result: 'delivered' | 'failed' | 'gone', replay: boolean) => void;
}

export interface NoticeWorker {
  /** Polls every `pollIntervalMs`, and at once. */
  start(): void;
  /** Stops polling; resolves once a pass in flight has finished. */
  stop(): Promise<void>;
  /** Runs a pass soon (after a bill became final); also before start(), never after stop(). */
  kick(): void;
  /** One pass over every enabled channel, the endpoint's state read afresh; resolves to the number of notices attempted. */
  runOnce(): Promise<number>;
}

/**
 * After the first try, a failed notice is tried again after each of these delays (each jittered by
 * up to ±20 %): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 24 h, 24 h. Ten tries over about 3 days
 * and 4 hours; then the notice is `failed` and only a replay sends it again. Standard Webhooks'
 * own schedule, with two days more for a merchant's weekend outage.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000, 24 * 3_600_000, 24 * 3_600_000,
];

const BATCH = 50;

export function noticeChannels(options: { onFinal?: unknown; webhook: WebhookConfig | null }): NoticeChannel[] {
  const channels: NoticeChannel[] = [];
  if (options.onFinal) channels.push('hook');
  if (options.webhook) channels.push('webhook');
  return channels;
}

/** RETRY_SCHEDULE_MS[attempt − 1] scaled by a random factor in [0.8, 1.2); null past its end. */
export function defaultBackoff(random: () => number): (attempt: number) => number | null {
  return (attempt) => {
    const delay = RETRY_SCHEDULE_MS[Math.max(0, attempt - 1)];
    return delay === undefined ? null : Math.round(delay * (0.8 + random() * 0.4));
  };
}

export function createNoticeWorker(options: NoticeWorkerOptions): NoticeWorker {
  const { store, onFinal, webhook } = options;
  const post = options.http ?? fetchExcerpts(options.fetch ?? fetch);
  const now = options.now ?? Date.now;
  const log = (options.log ?? silentLogger).child({ component: 'notice-worker' });
  const leaseMs = options.leaseMs ?? 60_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const backoff = options.backoff ?? defaultBackoff(options.random ?? Math.random);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const channels = noticeChannels(options);

  async function deliver(notice: ClaimedNotice): Promise<void> {
    const fields = { noticeId: notice.id, billId: notice.billId, channel: notice.channel, attempt: notice.attempts, replay: notice.replay };
    const at = now();
    const started = performance.now();
    let posted: Posted | null = null;
    let failure: unknown = null;
    try {
      const bill = notice.bill;
      if (!bill) throw new Error('bill not found');
      const view = toBillNotice(bill, options.livemode ?? true);
      if (notice.channel === 'hook') {
        if (!onFinal) throw new Error('no onFinal hook');
        await callHook(onFinal, view, { timeoutMs });
      } else {
        if (!webhook) throw new Error('no webhook configured');
        posted = await postWebhook(webhook, notice, view, bill.finalAt ?? bill.updatedAt, { post, now, timeoutMs });
      }
    } catch (err) {
      failure = err;
      if (err instanceof WebhookRefused) posted = err.posted;
    }
    const durationMs = performance.now() - started;
    const outcome = deliveryOutcome(notice, failure, posted, backoff, now());
    let attempt: NoticeAttempt;
    try {
      attempt = await store.finishNoticeAttempt(notice, {
        attempt: {
          at, durationMs, ok: failure === null, replay: notice.replay,
          httpStatus: posted?.httpStatus ?? null, response: posted?.response ?? null, error: outcome.error,
        },
        nextAttemptAt: outcome.nextAttemptAt,
      });
    } catch (storeError) {
      // Not recorded: the lease runs out and the notice is tried again (the merchant drops the duplicate by webhook-id).
      log.error('recording a notice attempt failed', { ...fields, error: describe(storeError) });
      return;
    }
    if (outcome.gone && webhook) {
      // 410 Gone: the merchant retired this endpoint (Standard Webhooks): stop until re-enabled in the admin.
      endpoint = { open: false, readAt: performance.now() };
      await store.disableWebhookEndpoint(webhook.url, now(), `HTTP 410 Gone answered notice ${notice.id}`)
        .catch((storeError: unknown) => log.error('disabling the webhook endpoint failed', { error: describe(storeError) }));
      log.warn('merchant webhook answered 410 Gone: endpoint disabled until re-enabled in the admin', fields);
    }
    options.onAttempt?.(notice.channel, outcome.result, notice.replay);
    logDelivery(log, fields, notice, outcome, attempt.number);
  }

  /**
   * Webhook notices wait while the endpoint is disabled (a 410). Its state is read again when it is
   * older than a poll interval, or for a pass asked for (runOnce): every instance sees a re-enable
   * within a second, and the passes that follow each other under load do not each read it.
   */
  let endpoint: { open: boolean; readAt: number } | null = null;
  async function channelOpen(channel: NoticeChannel, reread: boolean): Promise<boolean> {
    if (channel !== 'webhook' || !webhook) return true;
    if (reread || !endpoint || performance.now() - endpoint.readAt >= pollIntervalMs) {
      const readAt = performance.now();
      endpoint = { open: (await store.webhookEndpoint(webhook.url)).disabledAt === null, readAt };
    }
    return endpoint.open;
  }

  let stopped = false;
  /** A pass is queued by tick() and has not started yet. */
  let waiting = false;
  /** The last pass filled a batch: run another soon. */
  let more = false;
  let interval: ReturnType<typeof setInterval> | null = null;
  let soon: ReturnType<typeof setTimeout> | null = null;

  async function pass(reread: boolean): Promise<number> {
    waiting = false;
    let attempted = 0;
    for (const channel of channels) {
      if (!(await channelOpen(channel, reread))) continue;
      const notices = await store.claimNotices(channel, now(), leaseMs, BATCH);
      if (notices.length === BATCH) more = true;
      await Promise.all(notices.map(deliver));
      attempted += notices.length;
    }
    return attempted;
  }

  // Passes run one after another, never two at once in one worker.
  let chain: Promise<unknown> = Promise.resolve();
  function runOnce(reread = true): Promise<number> {
    const run = chain.then(() => pass(reread));
    chain = run.catch(() => undefined);
    return run;
  }

  function tick() {
    if (stopped || waiting) return;
    waiting = true;
    more = false;
    runOnce(false)
      .then(() => {
        if (more) kick();
      })
      .catch((err: unknown) => log.error('notice pass failed', { error: describe(err) }));
  }

  function kick() {
    if (stopped || soon) return;
    soon = setTimeout(() => {
      soon = null;
      tick();
    }, 0);
  }

  return {
    start() {
      if (interval || channels.length === 0) return;
      stopped = false;
      interval = setInterval(tick, pollIntervalMs);
      tick();
    },
    async stop() {
      stopped = true;
      if (interval) clearInterval(interval);
      if (soon) clearTimeout(soon);
      interval = soon = null;
      await chain;
    },
    kick,
    runOnce: () => runOnce(true),
  };
}
