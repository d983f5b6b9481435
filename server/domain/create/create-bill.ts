import type { Alerts } from '../alerts.js';
import type { Config } from '../../config.js';
import { z } from 'zod';
import { compareDecimal, toDecimal } from '../../../contract/decimal.js';
import { issueMessage } from '../issue-message.js';
import type { Logger } from '../../log.js';
import { toBillView } from '../bill-view.js';
import { CheckoutError, serviceBusy } from '../errors.js';
import type { OrderAmount, ResolveOrder } from '../orders/order-lookup.js';
import { ticketAdmits, type TicketPolicy } from '../orders/ticket-policy.js';
import { createMismatch } from '../status/answer-check.js';
import { payableFor, type ServiceTime } from '../status/expiry.js';
import type { FollowUps } from '../status/follow-ups.js';
import type { Refreshed } from '../status/refresher.js';
import { StoreConflictError, StoreUnavailableError } from '../../store/errors.js';
import type { StoredBill, Store } from '../../store/types.js';
import { BillApiError, BillApiRejectedError, BillApiResponseError, BillApiThrottledError } from '../../upstream/errors.js';
import type { BillApi } from '../../upstream/types.js';
import type { CreatedBillView } from '../../../contract/bill-view.js';
import { newMerchantReference, randomToken } from './random.js';
import type { CreateRequest } from './request.js';
import { hookUrls } from './hook-urls.js';

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

/** A create's answer: 201 with a new (or the order's open) bill, 200 with the order's paid bill. */
export interface CreateResult {
  status: 200 | 201;
  bill: CreatedBillView;
  /** The service made this bill for this call; false: an existing bill answered (the key's, the order's open or paid one). */
  fresh: boolean;
}

export interface BillCreator {
  create(request: CreateRequest): Promise<CreateResult>;
  /** Settles a bill left in `creating`: cancels any orphan the service made, then marks it failed. */
  settle(bill: StoredBill): Promise<void>;
}

const PLAIN_AMOUNT = /^\d{1,18}(\.\d{1,18})?$/;
/** A bill handed to a customer again has at least this long to go (or a tenth of its lifetime, if shorter). */
const REUSE_MARGIN_MS = 30_000;
const unavailable = () => new CheckoutError('upstream', 'upstream_unavailable', 'The payment service is unavailable; try again shortly.');
const ticketInvalid = () =>
  new CheckoutError('forbidden', 'order_ticket_invalid', "This order needs a valid, unexpired order ticket from the merchant's server (orderTicket).");

/** Decimal text as a JSON number writes it (no leading zero): kept exactly as given, trailing zeros too. */
const AS_GIVEN = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;

/**
 * Positive decimal text, or null. Strings must be plain digits (no exponent to blow up), and are
 * kept as the merchant wrote them ("12.50" stays "12.50": merchants reconcile by the text); a
 * JSON number becomes its shortest text.
 */
function positiveAmount(value: string | number): string | null {
  const text = typeof value === 'string' ? value.trim() : null;
  if (text === null ? !Number.isFinite(value) : !PLAIN_AMOUNT.test(text)) return null;
  let amount: string;
  try {
    amount = text !== null && AS_GIVEN.test(text) ? text : toDecimal(value);
  } catch {
    // A JSON number like 5e-324 has more decimal places than a decimal amount may.
    return null;
  }
  return compareDecimal(amount, '0') > 0 ? amount : null;
}

/** What a resolveOrder hook (or ORDER_LOOKUP_URL) must answer for an order it knows. */
const orderAnswer = z.object({
  amount: z.union([z.string(), z.number()]),
  currency: z.string().regex(/^[A-Za-z0-9]{1,16}$/, 'a currency code of 1 to 16 letters or digits').optional(),
});

/** The holder of `Idempotency-Key: K` whose create outcome was unknown hands on to the bill under this key. */
const retryKey = (key: string) => `${key} retry`;

interface Resolved {
  amount: string;
  /** The currency the bill must be in, when the order or BILL_CURRENCY says one. */
  currency: string | null;
  /** The order's amount and currency as the merchant gave them; null without an order. */
  order: { amount: string; currency: string | null } | null;
}

export function createBillCreator(options: BillCreatorOptions): BillCreator {
  const { config, upstream, store, resolveOrder, refresh, followUps, alerts, time, log } = options;
  const now = time.now;
  const creatingPolls = options.creatingPolls ?? 120;
  /** Who answers for orders, as the merchant configured it: named in what the log says of its answers. */
  const orderSource = options.hookResolvesOrders ? 'the resolveOrder hook' : 'ORDER_LOOKUP_URL';
  /** Creates running in this process, by idempotency key: a concurrent repeat waits for the first. */
  const byKey = new Map<string, { request: CreateRequest; run: Promise<CreateResult> }>();
  /** merchantReferences whose create call is running here: the reconciler leaves them alone. */
  const calling = new Set<string>();
  /** Creates per orderId run one after another, so that the second finds the first one's bill. */
  const orderQueues = new Map<string, Promise<unknown>>();

  const withToken = (bill: StoredBill): CreatedBillView => ({ ...toBillView(bill), token: bill.token });
  const created = (bill: StoredBill, fresh = false): CreateResult => ({ status: 201, bill: withToken(bill), fresh });
  /** Another caller's create, joined: its bill is not new to this caller. */
  const joined = async (run: Promise<CreateResult>): Promise<CreateResult> => ({ ...(await run), fresh: false });

  /**
   * A page may start an order's checkout only with a ticket the merchant's server minted. Checked
   * before anything else, so that a caller without one learns nothing about the order.
   */
  async function authorize(request: CreateRequest): Promise<void> {
    if (request.orderId === null) return;
    if (!(await ticketAdmits(options.tickets, request.orderId, request.orderTicket, now()))) throw ticketInvalid();
  }

  async function lookUp(request: CreateRequest & { orderId: string }): Promise<OrderAmount | null> {
    let answer: unknown;
    try {
      answer = await resolveOrder!(request.orderId, { request: request.request });
    } catch (error) {
      if (error instanceof CheckoutError) throw error;
      log.error('resolveOrder failed', { orderId: request.orderId, error });
      throw new CheckoutError('upstream', 'order_lookup_failed', 'The order could not be looked up.');
    }
    if (answer === null) return null;
    const parsed = orderAnswer.safeParse(answer);
    if (!parsed.success) {
      // The merchant's own code answered something else: said plainly in the log, for the merchant to fix.
      log.error(`${orderSource} answered ${answer === undefined ? 'undefined' : 'an object that is no order'} for order ${JSON.stringify(request.orderId)}: ` +
        `return {amount: decimal text such as "12.50", currency?} for an order, or null when there is no such order (${issueMessage(parsed.error)})`, { orderId: request.orderId });
      throw new CheckoutError('upstream', 'order_lookup_invalid', "The merchant's order lookup did not answer an order; the merchant has been told.");
    }
    return parsed.data;
  }

  async function resolveAmount(request: CreateRequest): Promise<Resolved> {
    if (request.orderId !== null && resolveOrder) {
      const order = await lookUp({ ...request, orderId: request.orderId });
      if (!order) throw new CheckoutError('not_found', 'order_not_found', 'No such order.');
      const amount = positiveAmount(order.amount);
      if (amount === null) {
        log.error(`${orderSource} answered an amount that is not a positive decimal for order ${JSON.stringify(request.orderId)}: return {amount: decimal text such as "12.50", currency?}`, { orderId: request.orderId });
        throw new CheckoutError('upstream', 'order_lookup_invalid', "The merchant's order lookup did not answer an order; the merchant has been told.");
      }
      const currency = order.currency ?? null;
      return { amount, currency: currency ?? config.currency, order: { amount, currency } };
    }
    if (config.clientAmount) {
      if (request.amount === null) throw new CheckoutError('invalid', 'amount_required', 'amount is required.');
      const amount = positiveAmount(request.amount);
      if (amount === null) throw new CheckoutError('invalid', 'invalid_amount', 'amount must be a positive decimal number.');
      const { min, max } = config.clientAmount;
      if (compareDecimal(amount, min) < 0 || compareDecimal(amount, max) > 0) {
        throw new CheckoutError('invalid', 'amount_out_of_range', `amount must be between ${min} and ${max}.`);
      }
      return { amount, currency: config.currency, order: null };
    }
    if (resolveOrder) throw new CheckoutError('invalid', 'order_id_required', 'orderId is required.');
    throw new CheckoutError('invalid', 'amount_not_allowed', 'This checkout takes amounts only from the merchant\'s orders.');
  }

  function sameRequest(bill: StoredBill, request: CreateRequest): boolean {
    if (bill.orderId !== request.orderId) return false;
    if (request.amount === null) return true;
    const amount = positiveAmount(request.amount);
    return amount !== null && compareDecimal(amount, bill.amount) === 0;
  }

  /** `joinRunning`: false when the caller is the create running under this key (it must not wait for itself). */
  async function replay(held: StoredBill, request: CreateRequest, joinRunning = true): Promise<CreateResult> {
    if (!sameRequest(held, request)) {
      throw new CheckoutError('unprocessable', 'idempotency_key_reused', 'This Idempotency-Key was used for a different request.');
    }
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
    const found = await upstream.findByMerchantReference(bill.merchantReference);
    for (const orphan of found) {
      // The list record has no billUrl or expiredOn, so the orphan cannot be shown: withdraw it.
      await upstream.cancelBill(orphan.billId).catch((error: unknown) => {
        log.warn('cancelling an orphan bill failed', { billId: orphan.billId, error });
      });
    }
    await store.failCreate(bill.merchantReference, now());
    log.info('settled a create of unknown outcome', { merchantReference: bill.merchantReference, orphans: found.length });
  }

  /** The service answered a bill other than the one asked for: withdraw it, and tell the caller plainly. */
  async function refuseAnswer(ref: string, billId: string, withdraw: boolean, fields: Record<string, unknown>): Promise<never> {
    alerts.raise('create_answer_mismatch', 'a create answer does not match the request; the bill is not used', {
      merchantReference: ref, billId, ...fields,
    });
    if (withdraw) {
      await upstream.cancelBill(billId).catch((error: unknown) => {
        log.warn('cancelling a mismatched bill failed', { billId, error });
      });
    }
    await store.failCreate(ref, now());
    throw new CheckoutError('upstream', 'upstream_mismatch', 'The payment service answered a bill that does not match the request; it was not used. Try again later.');
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
      if (mismatch) return await refuseAnswer(ref, answer.billId, true, { ...mismatch });
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
        if (error instanceof StoreConflictError) return await refuseAnswer(ref, answer.billId, false, { error });
        throw error;
      }
      followUps.watchExpiry(stored);
      // The service called back before this answer (the callback was recorded, and answered 200).
      if (stored.earlyNewsAt !== null) void askAgain(stored.billId!);
      return created(stored, true);
    } catch (error) {
      if (!(error instanceof BillApiError)) throw error;
      if (error instanceof BillApiResponseError && error.madeBillId !== null) {
        // An answer with an expiry no bill can have: the bill exists at the service, and is withdrawn.
        await upstream.cancelBill(error.madeBillId).catch((cancelError: unknown) => {
          log.warn('cancelling a bill whose create answer was unusable failed', { billId: error.madeBillId, error: cancelError });
        });
        await store.failCreate(ref, now());
        log.warn('create answer unusable; its bill was withdrawn', { merchantReference: ref, billId: error.madeBillId, error });
        throw new CheckoutError('upstream', 'upstream_invalid_answer',
          'The payment service answered a bill with an expiry that cannot be right; it was withdrawn. Try again later.');
      }
      // A refusal with a 5xx may come after the bill was made (outcomeUnknown): settled below, never taken at its word.
      if (error instanceof BillApiRejectedError && !error.outcomeUnknown) {
        await store.failCreate(ref, now());
        log.warn('create refused by the service', { merchantReference: ref, code: error.code, error });
        throw new CheckoutError('upstream', 'upstream_rejected', `The payment service refused the bill (code ${error.code}).`);
      }
      if (error instanceof BillApiThrottledError) {
        // Nothing was made: the service refused for load, or the budget toward it had no turn in time.
        await store.failCreate(ref, now());
        log.warn('create refused for load; the customer is asked to try again', { merchantReference: ref, error });
        throw serviceBusy(error.retryAfterSeconds);
      }
      if (!error.outcomeUnknown) {
        await store.failCreate(ref, now());
        log.error('create failed; the service did not make the bill', { merchantReference: ref, error });
        throw unavailable();
      }
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

  /** News for a bill (its callback beat its create answer): asked now, and followed up until final. */
  async function askAgain(billId: string): Promise<void> {
    const result = await refresh(billId).catch((error: unknown) => {
      log.warn('requerying a bill whose callback came first failed; following it up', { billId, error });
      return null;
    });
    if (!result?.bill.isFinal) followUps.afterNews(billId);
  }

  /** Waits while another process creates the order's bill; resolves once it has left `creating`, or rejects as busy. */
  async function untilCreated(bill: StoredBill): Promise<void> {
    for (let poll = 0; poll < creatingPolls; poll++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const now = await store.getByReference(bill.merchantReference);
      if (now?.createState !== 'creating') return;
    }
    throw orderBusy();
  }

  const orderBusy = () =>
    new CheckoutError('busy', 'order_bill_pending', "The order's bill is being settled with the payment service; try again in a moment.", 2);

  /**
   * The order's current bill, asked about first, whatever any clock says of it. Resolves to what
   * answers the create (its paid bill, or the bill to reuse), or null once it is no longer the
   * order's: final, or withdrawn at the service by a cancel the service accepted.
   */
  async function decide(current: StoredBill & { billId: string }, resolved: Resolved): Promise<CreateResult | null> {
    const asked = await refresh(current.billId).catch(() => null);
    const bill = { ...(asked?.bill ?? current), billId: current.billId };
    if (bill.outcome === 'paid') return { status: 200, bill: withToken(bill), fresh: false };
    if (bill.isFinal) return null;
    const sameAmount = compareDecimal(bill.orderAmount ?? bill.amount, resolved.amount) === 0;
    const sameCurrency = (bill.orderCurrency ?? null) === (resolved.order?.currency ?? null);
    const lifetime = bill.expiresLocalAt !== null ? bill.expiresLocalAt - bill.createdAt : Infinity;
    const payable = payableFor(bill, time, Math.min(REUSE_MARGIN_MS, lifetime / 10));
    if (sameAmount && sameCurrency && payable) return created(bill);
    // The service could not be asked: without its word no second bill is made for the order.
    if (!asked?.confirmed) throw unavailable();
    return withdraw(bill);
  }

  /**
   * Withdraws the order's bill at the service (expired on its clock, or for another amount) before
   * another is made: null once the cancel is accepted (or the service calls it final), its paid
   * bill if the payment came first.
   */
  async function withdraw(bill: StoredBill & { billId: string }): Promise<CreateResult | null> {
    let accepted = true;
    try {
      await upstream.cancelBill(bill.billId);
    } catch (error) {
      // Refused as such: no longer pending there; the requery below says what it is. Failing: not now.
      if (!(error instanceof BillApiRejectedError) || error.retryable) {
        log.warn("withdrawing an order's bill failed; no new bill is made", { billId: bill.billId, error });
        throw error instanceof BillApiThrottledError ? serviceBusy(error.retryAfterSeconds) : unavailable();
      }
      accepted = false;
    }
    if (accepted) await store.supersede(bill.merchantReference, now());
    const after = await refresh(bill.billId).catch(() => null);
    if (after?.bill.outcome === 'paid') return { status: 200, bill: withToken(after.bill), fresh: false };
    if (accepted || after?.bill.isFinal) {
      // A cancel the service accepted but has not carried out yet leaves it pending there: if it is
      // paid after all, its notice says duplicatePayment and the merchant refunds one of the two.
      log.info("the order's bill was withdrawn at the service; a new one is made", { billId: bill.billId, orderId: bill.orderId });
      if (!after?.bill.isFinal) followUps.afterNews(bill.billId);
      return null;
    }
    // The service refused the cancel as not pending, but its requery still says pending (a replica behind).
    followUps.afterNews(bill.billId);
    throw orderBusy();
  }

  /**
   * One order, one payment: its paid bill if there is one; else its current bill, asked about
   * first: paid, it answers; payable and for the same amount, it is reused; otherwise it is
   * withdrawn at the service, and only then is another made. The store holds one current bill per
   * order for every process (insertBill), so two instances never make two.
   */
  async function createForOrder(request: CreateRequest & { orderId: string }): Promise<CreateResult> {
    const paid = await store.findPaidByOrderId(request.orderId);
    if (paid) return { status: 200, bill: withToken(paid), fresh: false };
    const resolved = await resolveAmount(request);
    // Each turn ends the order's current bill or answers; a few turns cover races with other processes.
    for (let turn = 0; turn < 4; turn++) {
      const current = await store.findCurrentByOrderId(request.orderId);
      if (!current) {
        const inserted = await insert(request, resolved, request.idempotencyKey);
        if (inserted.inserted) return attempt(inserted.bill, request, resolved, true);
        if (inserted.conflict === 'idempotency_key') return replay(inserted.bill, request, false);
        continue;
      }
      if (current.createState === 'creating') {
        await untilCreated(current);
        continue;
      }
      const answer = await decide(current as StoredBill & { billId: string }, resolved);
      if (answer) return answer;
    }
    throw orderBusy();
  }

  function serialPerOrder(orderId: string, work: () => Promise<CreateResult>): Promise<CreateResult> {
    const previous = orderQueues.get(orderId) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => undefined);
    orderQueues.set(orderId, tail);
    void tail.then(() => {
      if (orderQueues.get(orderId) === tail) orderQueues.delete(orderId);
    });
    return run;
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
          if (running.request.orderId !== request.orderId || String(running.request.amount) !== String(request.amount)) {
            throw new CheckoutError('unprocessable', 'idempotency_key_reused', 'This Idempotency-Key was used for a different request.');
          }
          return joined(running.run);
        }
      }
      const orderId = request.orderId;
      const run = orderId === null
        ? resolveAmount(request).then((resolved) => createFresh(request, resolved))
        : serialPerOrder(orderId, () => createForOrder({ ...request, orderId }));
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
