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
import type { StoredBill, Store } from '../../store/types.js';
import { BillApiError } from '../../upstream/errors.js';
import type { BillApi } from '../../upstream/types.js';
import { decideCurrent, untilCreated, type CurrentBillDeps } from './current-bill.js';
import { askAgain, failedCreate, refuseAnswer, settleByReference, type CreateOutcomeDeps } from './create-outcome.js';
import { created, joined, keyReused, orderBusy, paid, ticketInvalid, unavailable, type CreateResult } from './create-result.js';
import { retryKey, sameAsRunning, sameRequest } from './idempotency.js';
import { orderSourceName, resolveAmount, type AmountSources, type Resolved } from './order-amount.js';
import { newMerchantReference, randomToken } from './random.js';
import type { CreateRequest } from './request.js';
import { createSerialQueues } from './serial-queues.js';
import { hookUrls } from './hook-urls.js';

export type { CreateResult } from './create-result.js';

export interface BillCreatorOptions {
  config: Pick<Config, 'publicUrl' | 'clientAmount' | 'currency'>;
  /** Who may start an order's checkout (ticket-policy.ts), decided once. */
  tickets: TicketPolicy;
  upstream: BillApi;
  store: Store;
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
}

export interface BillCreator {
  create(request: CreateRequest): Promise<CreateResult>;
  /** Settles a bill left in `creating`: cancels any orphan the service made, then marks it failed. */
  settle(bill: StoredBill): Promise<void>;
}

export function createBillCreator(options: BillCreatorOptions): BillCreator {
  const { config, upstream, store, resolveOrder, refresh, followUps, alerts, time, log } = options;
  const now = time.now;
  const creatingPolls = options.creatingPolls ?? 120;
  const amounts: AmountSources = { config, resolveOrder, orderSource: orderSourceName(options.hookResolvesOrders), log };
  const outcomes: CreateOutcomeDeps = { upstream, store, alerts, now, log };
  const current: CurrentBillDeps = { upstream, store, refresh, followUps, time, log };
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
    if (held.createState === 'created') return created(held);
    if (held.createState === 'creating') {
      throw new CheckoutError('conflict', 'create_in_progress', 'This bill is still being created; try again shortly.', 2);
    }
    const successor = request.idempotencyKey === null ? null : await store.getByIdempotencyKey(retryKey(request.idempotencyKey));
    if (successor?.createState === 'created') return created(successor);
    throw new CheckoutError('upstream', 'create_failed', 'This bill could not be created; use a new Idempotency-Key to try again.');
  }

  /** A create whose outcome is unknown: find what the service made under our reference before anything else. */
  async function settle(bill: StoredBill): Promise<void> {
    if (calling.has(bill.merchantReference)) return;
    await settleByReference(bill, outcomes);
  }

  async function attempt(bill: StoredBill, request: CreateRequest, resolved: Resolved, mayRetry: boolean): Promise<CreateResult> {
    const ref = bill.merchantReference;
    const { amount } = resolved;
    calling.add(ref);
    try {
      const answer = await upstream.createBill({
        amount,
        merchantReference: ref,
        ...(await hookUrls(config.publicUrl, ref, bill.hookToken)),
      });
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
      // The service called back before this answer (the callback was recorded, and answered 200).
      if (stored.earlyNewsAt !== null) void askAgain(stored.billId!, { refresh, followUps, log });
      return created(stored, true);
    } catch (error) {
      if (!(error instanceof BillApiError)) throw error;
      // Throws unless the outcome is unknown.
      await failedCreate(error, ref, outcomes);
      log.warn('create outcome unknown; settling by merchantReference', { merchantReference: ref, error });
      calling.delete(ref);
      try {
        await settle(bill);
      } catch (settleError) {
        log.warn('settling failed; the reconciler will retry', { merchantReference: ref, error: settleError });
        // The store out of reach is not the service's failure: the caller is told so (503, Retry-After).
        if (settleError instanceof StoreUnavailableError) throw settleError;
        throw unavailable();
      }
      if (!mayRetry) throw unavailable();
      const key = request.idempotencyKey === null ? null : retryKey(request.idempotencyKey);
      const again = await insert(request, resolved, key);
      // Another process made the order's bill meanwhile: the customer's retry finds it.
      if (!again.inserted && again.conflict === 'order') throw orderBusy();
      if (!again.inserted) return replay(again.bill, { ...request, idempotencyKey: key });
      return attempt(again.bill, request, resolved, false);
    } finally {
      calling.delete(ref);
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
        const inserted = await insert(request, resolved, request.idempotencyKey);
        if (inserted.inserted) return attempt(inserted.bill, request, resolved, true);
        if (inserted.conflict === 'idempotency_key') return replay(inserted.bill, request, false);
        continue;
      }
      if (bill.createState === 'creating') {
        await untilCreated(bill, waitForCreate);
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
  };
}
