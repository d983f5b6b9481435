// Delivers the merchant notices of the store's outbox: the in-process `onFinal` hook and the
// signed Standard Webhooks POST. A notice is queued in the same transaction that makes a bill
// final, leased while it is being delivered, and retried with backoff until it succeeds, so it
// survives restarts; the webhook id (the notice id) is the same on every retry, which lets the
// merchant drop a duplicate if a lease ever runs out mid-delivery.

import { toBillNotice } from '../bill-view.js';
import type { BillNotice } from '../bill-view.js';
import type { WebhookConfig } from '../../config.js';
import { silentLogger } from '../../log.js';
import type { Logger } from '../../log.js';
import type { Notice, NoticeChannel, Store } from '../../store/types.js';
import { signWebhook } from './webhook-signature.js';

export interface NoticeWorkerOptions {
  store: Store;
  /** In-process hook, channel 'hook'. */
  onFinal?: (bill: BillNotice, context: { signal: AbortSignal }) => void | Promise<void>;
  /** False on the embedded sandbox: every notice then says `livemode: false` (default true). */
  livemode?: boolean;
  /** Channel 'webhook'. */
  webhook: WebhookConfig | null;
  fetch?: typeof fetch;
  now?: () => number;
  random?: () => number;
  log?: Logger;
  /** How long a claimed notice is withheld from other workers, ms (default 60_000). */
  leaseMs?: number;
  /** Between passes, ms (default 1_000). */
  pollIntervalMs?: number;
  /** Delay before the next try after `attempt` failed tries (1, 2, …), ms. */
  backoff?: (attempt: number) => number;
  /** Per webhook POST or onFinal call, ms (default 10_000): a hook still running then counts as failed. */
  timeoutMs?: number;
}

export interface NoticeWorker {
  /** Polls every `pollIntervalMs`, and at once. */
  start(): void;
  /** Stops polling; resolves once a pass in flight has finished. */
  stop(): Promise<void>;
  /** Runs a pass soon (after a bill became final); also before start(), never after stop(). */
  kick(): void;
  /** One pass over every enabled channel; resolves to the number of notices attempted. */
  runOnce(): Promise<number>;
}

/** The body of the webhook POST. */
export interface WebhookPayload {
  type: 'bill.final';
  /** When the bill became final (ISO 8601): the same on every retry. */
  timestamp: string;
  /** The same as `data.livemode`: false when no real money moved (the embedded sandbox). */
  livemode: boolean;
  data: BillNotice;
}

const BATCH = 50;

export function noticeChannels(options: { onFinal?: unknown; webhook: WebhookConfig | null }): NoticeChannel[] {
  const channels: NoticeChannel[] = [];
  if (options.onFinal) channels.push('hook');
  if (options.webhook) channels.push('webhook');
  return channels;
}

/** min(5 s × 2^(attempt−1), 1 h), scaled by a random factor in [0.5, 1). */
export function defaultBackoff(random: () => number): (attempt: number) => number {
  return (attempt) => {
    const ceiling = Math.min(5_000 * 2 ** Math.max(0, attempt - 1), 3_600_000);
    return Math.round(ceiling * (0.5 + random() / 2));
  };
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return `${err.name}: ${err.message}${cause}`;
  }
  return String(err);
}

export function createNoticeWorker(options: NoticeWorkerOptions): NoticeWorker {
  const { store, onFinal, webhook } = options;
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const log = (options.log ?? silentLogger).child({ component: 'notice-worker' });
  const leaseMs = options.leaseMs ?? 60_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const backoff = options.backoff ?? defaultBackoff(options.random ?? Math.random);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const channels = noticeChannels(options);

  async function postWebhook(config: WebhookConfig, notice: Notice, view: BillNotice, finalAt: number) {
    const payload: WebhookPayload = { type: 'bill.final', timestamp: new Date(finalAt).toISOString(), livemode: view.livemode, data: view };
    const body = JSON.stringify(payload);
    const timestamp = Math.floor(now() / 1000);
    const signature = await signWebhook({ secret: config.secret, id: notice.id, timestamp, body });
    const response = await doFetch(config.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': notice.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature,
      },
      body,
      // A redirect is not a delivery, and the signed notice goes nowhere but the configured URL.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    if (response.status < 200 || response.status > 299) throw new Error(`HTTP ${response.status}`);
  }

  /** A hook that never returns would hold this worker's passes: it gets `timeoutMs`, then its signal aborts. */
  async function callHook(hook: NonNullable<typeof onFinal>, view: BillNotice): Promise<void> {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new Error(`onFinal did not finish within ${timeoutMs} ms`);
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    try {
      await Promise.race([Promise.resolve().then(() => hook(view, { signal: controller.signal })), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function deliver(notice: Notice): Promise<void> {
    const fields = { noticeId: notice.id, billId: notice.billId, channel: notice.channel, attempt: notice.attempts };
    try {
      const bill = await store.getByBillId(notice.billId);
      if (!bill) throw new Error('bill not found');
      const view = toBillNotice(bill, options.livemode ?? true);
      if (notice.channel === 'hook') {
        if (!onFinal) throw new Error('no onFinal hook');
        await callHook(onFinal, view);
      } else {
        if (!webhook) throw new Error('no webhook configured');
        await postWebhook(webhook, notice, view, bill.updatedAt);
      }
    } catch (err) {
      const error = describe(err);
      const next = now() + Math.max(0, backoff(notice.attempts));
      await store.markNoticeFailed(notice.id, notice.channel, next, error);
      log.warn('merchant notice failed', { ...fields, error, nextAttemptAt: new Date(next).toISOString() });
      return;
    }
    await store.markNoticeDelivered(notice.id, notice.channel, now());
    log.info('merchant notice delivered', fields);
  }

  let stopped = false;
  /** A pass is queued by tick() and has not started yet. */
  let waiting = false;
  /** The last pass filled a batch: run another soon. */
  let more = false;
  let interval: ReturnType<typeof setInterval> | null = null;
  let soon: ReturnType<typeof setTimeout> | null = null;

  async function pass(): Promise<number> {
    waiting = false;
    let attempted = 0;
    for (const channel of channels) {
      const notices = await store.claimNotices(channel, now(), leaseMs, BATCH);
      if (notices.length === BATCH) more = true;
      await Promise.all(notices.map(deliver));
      attempted += notices.length;
    }
    return attempted;
  }

  // Passes run one after another, never two at once in one worker.
  let chain: Promise<unknown> = Promise.resolve();
  function runOnce(): Promise<number> {
    const run = chain.then(pass);
    chain = run.catch(() => undefined);
    return run;
  }

  function tick() {
    if (stopped || waiting) return;
    waiting = true;
    more = false;
    runOnce()
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
    runOnce,
  };
}
