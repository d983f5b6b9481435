import type { Alerts } from '../alerts.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { CheckoutError } from '../errors.js';
import type { ResolveOrder } from '../orders/order-lookup.js';
import { ticketAdmits, type TicketPolicy } from '../orders/ticket-policy.js';
import { createMismatch } from '../status/answer-check.js';
import type { ServiceTime } from '../status/expiry.js';
import type { FollowUps } from '../status/follow-ups.js';
import type { Refreshed } from '../status/refresher.js';
import { StoreConflictError, StoreUnavailableError } from '../../store/errors.js';
import type { BillStore, StoredBill } from '../../store/types.js';
import { BillApiError } from '../../upstream/errors.js';
import type { BillApi, CreateBillInput, CreatedBill } from '../../upstream/types.js';
import { decideCurrent, untilCreated, type CurrentBillDeps } from './current-bill.js';
import { askAgain, failedCreate, refuseAnswer, settleByReference, withdrawOrphan, type CreateOutcomeDeps } from './create-outcome.js';
import { created, joined, keyReused, orderBusy, paid, ticketInvalid, tryAgainShortly, type CreateResult } from './create-result.js';
import { createPhase, settleLimitMs } from './create-states.js';
import { sameAsRunning, sameRequest } from './idempotency.js';
import { orderSourceName, resolveAmount, type AmountSources, type Resolved } from './order-amount.js';
import { newMerchantReference, randomToken } from './random.js';
import type { CreateRequest } from './request.js';
import { createSerialQueues } from './serial-queues.js';
import { hookUrls } from './hook-urls.js';

export type { CreateResult } from './create-result.js';

export interface BillCreatorOptions {
  config: Pick<Config, 'publicUrl' | 'clientAmount' | 'currency' | 'statuses'>;
  /** Who may start an order's checkout (ticket-policy.ts), decided once. */
  tickets: TicketPolicy;
  upstream: BillApi;
  store: BillStore;
  /** The merchant's amount for an order (hook or ORDER_LOOKUP_URL); null when none is configured. */
  resolveOrder: ResolveOrder | null;
  /** The order's amount comes from the merchant's own hook, which may authorize from the request. */
  hookResolvesOrders: boolean;
  /** Asks the service about a bill now (the refresher's news, reason `create`); null when there is no such bill. */
  refresh: (billId: string) => Promise<Refreshed | null>;
  /** Follows up a bill whose callback came before its create answer, and every new bill's expiry. */
  followUps: Pick<FollowUps, 'afterNews' | 'watchExpiry'>;
  alerts: Alerts;
  /** Our clock and the service's as estimated (expiry.ts judges bills with both). */
  time: ServiceTime;
  log: Logger;
  /** How often a create waits for another process's create of the same order to end, 100 ms apart (default 120). */
  creatingPolls?: number;
  /** Which service this process creates bills at (serviceIdentity): kept with each bill. */
  serviceId?: string | null;
  /** A create still `creating` this long after it was asked has an unknown outcome (default 60 s). */
  unknownAfterMs?: number;
  /** The grace past a bill's expiry before it is withdrawn (BILL_EXPIRY_GRACE_MS): part of the settling bound. */
  expiryGraceMs?: number;
  /** The longest bill lifetime assumed before one is seen, ms (default one day): the settling bound until then. */
  lifetimeFallbackMs?: number;
  /**
   * The service deduplicates a create by its request id (BILL_API_IDEMPOTENT_CREATE): a create of
   * unknown outcome is sent once more as it was, and the service's answer settles it. Default false.
   */
  resendUnknown?: boolean;
}

export interface BillCreator {
  create(request: CreateRequest): Promise<CreateResult>;
  /**
   * Settles a create left in `creating` (its outcome unknown): keeps and withdraws any orphan the
   * service made, then fails it. Rejects while the service cannot be asked; past the settling bound
   * (the longest lifetime seen plus the grace) the create is released instead, with an alert.
   */
  settle(bill: StoredBill): Promise<void>;
  /** A bill's lifetime as seen (ms): the settling bound follows the longest. */
  observeLifetime(ms: number): void;
}

export function createBillCreator(options: BillCreatorOptions): BillCreator {
  const { config, upstream, store, resolveOrder, refresh, followUps, alerts, time, log } = options;
  const now = time.now;
  const serviceId = options.serviceId ?? null;
  const creatingPolls = options.creatingPolls ?? 120;
  const unknownAfterMs = options.unknownAfterMs ?? 60_000;
  let longestLifetimeMs: number | null = null;
  const observeLifetime = (ms: number) => {
    if (Number.isFinite(ms) && ms > 0) longestLifetimeMs = Math.max(longestLifetimeMs ?? 0, ms);
  };
  const amounts: AmountSources = { config, resolveOrder, orderSource: orderSourceName(options.hookResolvesOrders), log };
  const outcomes: CreateOutcomeDeps = { upstream, store, alerts, now, log };
  const { processing } = config.statuses;
  const current: CurrentBillDeps = { upstream, store, refresh, followUps, time, log, serviceId, processing };
  const waitForCreate = { store, polls: creatingPolls, pauseMs: 100, sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)) };
  /** Creates running in this process, by idempotency key: a concurrent repeat waits for the first. */
  const byKey = new Map<string, { request: CreateRequest; run: Promise<CreateResult> }>();
  /** merchantReferences whose create call is running here: the reconciler leaves them alone. */
  const calling = new Set<string>();
  /** Creates per orderId run one after another, so that the second finds the first one's bill. */
  const perOrder = createSerialQueues<CreateResult>();

  /**
   * A page may start an order's checkout only with a ticket the merchant's server minted. Checked
   * before anything else, so that a caller without one learns nothing about the order.
   */
  async function authorize(request: CreateRequest): Promise<void> {
    if (request.orderId === null) return;
    if (!(await ticketAdmits(options.tickets, request.orderId, request.orderTicket, now()))) throw ticketInvalid();
  }

  /** `joinRunning`: false when the caller is the create running under this key (it must not wait for itself). */
  async function replay(held: StoredBill, request: CreateRequest, joinRunning = true): Promise<CreateResult> {
    if (!sameRequest(held, request)) throw keyReused();
    const running = request.idempotencyKey === null || !joinRunning ? undefined : byKey.get(request.idempotencyKey);
    if (running) return joined(running.run);
    switch (createPhase(held, now(), unknownAfterMs)) {
      case 'made': return created(held, processing);
      // Asked here or by another process, or unknown and being settled: the key's holder waits.
      case 'asked':
      case 'unknown':
        throw new CheckoutError('conflict', 'create_in_progress', 'This bill is still being created; try again shortly.', 2);
      // A key kept by a create that ended without a bill (stored before keys were released).
      case 'orphaned':
      case 'not_made':
        throw new CheckoutError('upstream', 'create_failed', 'This bill could not be created; use a new Idempotency-Key to try again.');
    }
  }

  /** An unknown create met by a customer's create for its order: settled now, or the customer tries again shortly. */
  async function settleNow(bill: StoredBill): Promise<void> {
    try {
      await settle(bill, 'customer');
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      log.warn('settling an unknown create for its order failed; the customer tries again shortly', { merchantReference: bill.merchantReference, error });
      throw tryAgainShortly();
    }
    const after = await store.getByReference(bill.merchantReference);
    if (after?.createState === 'creating') throw tryAgainShortly();
  }

  /** A create whose outcome is unknown: find what the service made under our reference before anything else. */
  async function settle(bill: StoredBill, priority: 'background' | 'customer' = 'background'): Promise<void> {
    if (calling.has(bill.merchantReference)) return;
    try {
      await settleByReference(bill, outcomes, { priority });
    } catch (error) {
      const limit = settleLimitMs(longestLifetimeMs, options.expiryGraceMs ?? 0, options.lifetimeFallbackMs ?? 86_400_000);
      if (now() - bill.createdAt < limit) throw error;
      // Any bill the service made under it has expired there by now: the order may have another.
      await store.failCreate(bill.merchantReference, now());
      alerts.raise('create_settle_abandoned', 'a create of unknown outcome could not be settled within the bound; its order is released', {
        merchantReference: bill.merchantReference, orderId: bill.orderId, askedAt: bill.createdAt, limitMs: limit, error,
      });
    }
  }

  async function attempt(bill: StoredBill, request: CreateRequest, resolved: Resolved, mayRetry: boolean): Promise<CreateResult> {
    const ref = bill.merchantReference;
    const { amount } = resolved;
    calling.add(ref);
    // The same input, so the same request id (derived from the reference) if it is sent again.
    const input = { amount, merchantReference: ref, ...(await hookUrls(config.publicUrl, ref, bill.hookToken)) };
    /** The service's answer to this create, taken: checked, stored, followed up. */
    const made = async (answer: CreatedBill): Promise<CreateResult> => {
      const mismatch = createMismatch(answer, { merchantReference: ref, amount, currency: resolved.currency });
      if (mismatch) return await refuseAnswer(ref, answer.billId, true, { ...mismatch }, outcomes);
      if (answer.clockDisagreed) {
        alerts.raise('service_clock_disagrees', "a create answer's expiredOn is at or before the service's time by its Date headers; the bill's lifetime is used instead", {
          billId: answer.billId, expiredOn: answer.expiredOn, headerOffsetMs: upstream.clock?.headerOffsetMs() ?? null,
        });
      }
      let stored: StoredBill;
      try {
        stored = await store.completeCreate(ref, answer, now());
      } catch (error) {
        // The id belongs to another of our bills: never withdraw it, that bill may be a customer's.
        if (error instanceof StoreConflictError) return await refuseAnswer(ref, answer.billId, false, { error }, outcomes);
        throw error;
      }
      followUps.watchExpiry(stored);
      if (stored.expiresLocalAt !== null) observeLifetime(stored.expiresLocalAt - now());
      // The service called back before this answer (the callback was recorded, and answered 200).
      if (stored.earlyNewsAt !== null) void askAgain(stored.billId!, { refresh, followUps, log });
      return created(stored, processing, true);
    };
    try {
      return await made(await upstream.createBill(input));
    } catch (error) {
      if (!(error instanceof BillApiError)) throw error;
      // Throws unless the outcome is unknown.
      await failedCreate(error, ref, outcomes);
      const resent = options.resendUnknown ? await resend(input, ref) : null;
      if (resent) return await made(resent);
      log.warn('create outcome unknown; settling by merchantReference', { merchantReference: ref, error });
      calling.delete(ref);
      let settled: { unconfirmed: number };
      try {
        settled = await settleByReference(bill, outcomes);
      } catch (settleError) {
        // The create keeps its key (a retry hears create_in_progress) until the reconciler settles it.
        log.warn('settling failed; the reconciler will retry', { merchantReference: ref, error: settleError });
        // The store out of reach is not the service's failure: the caller is told so (503, Retry-After).
        if (settleError instanceof StoreUnavailableError) throw settleError;
        throw tryAgainShortly();
      }
      // An orphan the service still calls payable: no second bill for the order until it is withdrawn.
      if (settled.unconfirmed > 0) throw request.orderId === null ? tryAgainShortly() : orderBusy();
      // Settled: the key is free again. One more attempt now; after that, the caller's retry makes the next.
      if (!mayRetry) throw tryAgainShortly();
      const again = await insert(request, resolved, request.idempotencyKey);
      // Another process made the order's bill meanwhile: the customer's retry finds it.
      if (!again.inserted && again.conflict === 'order') throw orderBusy();
      if (!again.inserted) return replay(again.bill, request);
      return attempt(again.bill, request, resolved, false);
    } finally {
      calling.delete(ref);
    }
  }

  /**
   * A create of unknown outcome sent once more, to a service that deduplicates by the request id:
   * its answer is the bill (made then or now). Anything else proves nothing either way (a refusal
   * may be of the duplicate): null, and the create is settled by list.
   */
  async function resend(input: CreateBillInput, ref: string): Promise<CreatedBill | null> {
    try {
      const answer = await upstream.createBill(input);
      log.info('a create of unknown outcome was settled by sending it again', { merchantReference: ref, billId: answer.billId });
      return answer;
    } catch (error) {
      if (!(error instanceof BillApiError)) throw error;
      log.warn('sending a create of unknown outcome again did not settle it', { merchantReference: ref, error });
      return null;
    }
  }

  function insert(request: CreateRequest, resolved: Resolved, idempotencyKey: string | null) {
    return store.insertBill({
      merchantReference: newMerchantReference(),
      orderId: request.orderId,
      idempotencyKey,
      amount: resolved.amount,
      orderAmount: resolved.order?.amount ?? null,
      orderCurrency: resolved.order?.currency ?? null,
      token: randomToken(),
      hookToken: randomToken(),
      serviceId,
      createdAt: now(),
    });
  }

  /** A bill without an order (a browser's amount). */
  async function createFresh(request: CreateRequest, resolved: Resolved): Promise<CreateResult> {
    const first = await insert(request, resolved, request.idempotencyKey);
    // Lost to another process's insert of the same key (several instances on one database).
    if (!first.inserted) return replay(first.bill, request, false);
    return attempt(first.bill, request, resolved, true);
  }

  /**
   * The order's bills the BFF withdrew (orphans, superseded bills) whose withdrawal the service has
   * not confirmed: asked to cancel once more; while one is still payable there, no new bill is made.
   */
  async function withdrawnFirst(orderId: string): Promise<void> {
    const open = (await store.findBillsByOrder(orderId, 'equal', 50)).filter((b): b is StoredBill & { billId: string } =>
      b.billId !== null && b.createState === 'created' && !b.isFinal && b.supersededAt !== null && b.withdrawConfirmedAt === null && b.lostAt === null);
    for (const bill of open) {
      if (await withdrawOrphan(bill.billId, outcomes)) continue;
      // Refused as not pending there, or the service out of reach: its word decides.
      const after = await refresh(bill.billId).catch(() => null);
      if (!after?.bill.isFinal) throw orderBusy();
    }
  }

  /**
   * One order, one payment: its paid bill if there is one; else its current bill, asked about
   * first (current-bill.ts): paid, it answers; payable and for the same amount, it is reused;
   * otherwise it is withdrawn at the service, and only then is another made. The store holds one
   * current bill per order for every process (insertBill), so two instances never make two.
   */
  async function createForOrder(request: CreateRequest & { orderId: string }): Promise<CreateResult> {
    const paidBill = await store.findPaidByOrderId(request.orderId);
    if (paidBill) return paid(paidBill);
    const resolved = await resolveAmount(request, amounts);
    // Each turn ends the order's current bill or answers; a few turns cover races with other processes.
    for (let turn = 0; turn < 4; turn++) {
      const bill = await store.findCurrentByOrderId(request.orderId);
      if (!bill) {
        await withdrawnFirst(request.orderId);
        const inserted = await insert(request, resolved, request.idempotencyKey);
        if (inserted.inserted) return attempt(inserted.bill, request, resolved, true);
        if (inserted.conflict === 'idempotency_key') return replay(inserted.bill, request, false);
        continue;
      }
      if (bill.createState === 'creating') {
        // Asked moments ago (here or by another process): its answer is near. Unknown: settle it now
        // rather than wait; while the service cannot say, the customer hears to try again shortly.
        if (createPhase(bill, now(), unknownAfterMs) === 'asked') await untilCreated(bill, waitForCreate);
        else await settleNow(bill);
        continue;
      }
      const answer = await decideCurrent(bill as StoredBill & { billId: string }, resolved, current);
      if (answer) return answer;
    }
    throw orderBusy();
  }

  return {
    async create(request) {
      await authorize(request);
      const key = request.idempotencyKey;
      if (key !== null) {
        const held = await store.getByIdempotencyKey(key);
        if (held) return replay(held, request);
        const running = byKey.get(key);
        if (running) {
          if (!sameAsRunning(running.request, request)) throw keyReused();
          return joined(running.run);
        }
      }
      const orderId = request.orderId;
      const run = orderId === null
        ? resolveAmount(request, amounts).then((resolved) => createFresh(request, resolved))
        : perOrder.run(orderId, () => createForOrder({ ...request, orderId }));
      if (key === null) return run;
      byKey.set(key, { request, run });
      try {
        return await run;
      } finally {
        byKey.delete(key);
      }
    },
    settle,
    observeLifetime,
  };
}
