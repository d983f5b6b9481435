import type { Config } from '../config.js';
import { compareDecimal, toDecimal } from '../decimal.js';
import type { Logger } from '../log.js';
import { toBillView } from '../bill-view.js';
import { ApiError } from '../middleware/errors.js';
import type { OrderAmount, ResolveOrder } from '../orders/order-lookup.js';
import type { StoredBill, Store } from '../store/types.js';
import { BillApiError, BillApiRejectedError } from '../upstream/errors.js';
import type { BillApi } from '../upstream/types.js';
import type { CreatedBillView } from '../../widget/bill-view.js';
import { newMerchantReference, randomToken } from './random.js';
import type { CreateRequest } from './request.js';
import { hookUrls } from './hook-urls.js';

export interface BillCreatorOptions {
  config: Pick<Config, 'publicUrl' | 'clientAmount'>;
  upstream: BillApi;
  store: Store;
  /** The merchant's amount for an order (hook or ORDER_LOOKUP_URL); null when none is configured. */
  resolveOrder: ResolveOrder | null;
  now: () => number;
  log: Logger;
}

export interface BillCreator {
  create(request: CreateRequest): Promise<CreatedBillView>;
  /** Settles a bill left in `creating`: cancels any orphan the service made, then marks it failed. */
  settle(bill: StoredBill): Promise<void>;
}

const PLAIN_AMOUNT = /^\d{1,18}(\.\d{1,18})?$/;
const unavailable = () => new ApiError(502, 'upstream_unavailable', 'The payment service is unavailable; try again shortly.');

/** Positive decimal text, or null. Strings must be plain digits (no exponent to blow up). */
function positiveAmount(value: string | number): string | null {
  if (typeof value === 'number' ? !Number.isFinite(value) : !PLAIN_AMOUNT.test(value.trim())) return null;
  let amount: string;
  try {
    amount = toDecimal(value);
  } catch {
    // A JSON number like 5e-324 has more decimal places than a decimal amount may.
    return null;
  }
  return compareDecimal(amount, '0') > 0 ? amount : null;
}

/** The holder of `Idempotency-Key: K` whose create outcome was unknown hands on to the bill under this key. */
const retryKey = (key: string) => `${key} retry`;

export function createBillCreator(options: BillCreatorOptions): BillCreator {
  const { config, upstream, store, resolveOrder, now, log } = options;
  /** Creates running in this process, by idempotency key: a concurrent repeat waits for the first. */
  const byKey = new Map<string, { request: CreateRequest; run: Promise<CreatedBillView> }>();
  /** merchantReferences whose create call is running here: the reconciler leaves them alone. */
  const calling = new Set<string>();
  /** Creates per orderId run one after another, so that the second finds the first one's bill. */
  const orderQueues = new Map<string, Promise<unknown>>();

  const withToken = (bill: StoredBill): CreatedBillView => ({ ...toBillView(bill), token: bill.token });

  async function resolveAmount(request: CreateRequest): Promise<{ amount: string; currency: string | null }> {
    if (request.orderId !== null && resolveOrder) {
      const order: OrderAmount | null = await resolveOrder(request.orderId);
      if (!order) throw new ApiError(404, 'order_not_found', 'No such order.');
      const amount = positiveAmount(order.amount);
      if (amount === null) throw new ApiError(502, 'order_lookup_failed', "The order's amount is not a positive decimal.");
      return { amount, currency: order.currency ?? null };
    }
    if (config.clientAmount) {
      if (request.amount === null) throw new ApiError(400, 'amount_required', 'amount is required.');
      const amount = positiveAmount(request.amount);
      if (amount === null) throw new ApiError(400, 'invalid_amount', 'amount must be a positive decimal number.');
      const { min, max } = config.clientAmount;
      if (compareDecimal(amount, min) < 0 || compareDecimal(amount, max) > 0) {
        throw new ApiError(400, 'amount_out_of_range', `amount must be between ${min} and ${max}.`);
      }
      return { amount, currency: null };
    }
    if (resolveOrder) throw new ApiError(400, 'order_id_required', 'orderId is required.');
    throw new ApiError(400, 'amount_not_allowed', 'This checkout takes amounts only from the merchant\'s orders.');
  }

  function sameRequest(bill: StoredBill, request: CreateRequest): boolean {
    if (bill.orderId !== request.orderId) return false;
    if (request.amount === null) return true;
    const amount = positiveAmount(request.amount);
    return amount !== null && compareDecimal(amount, bill.amount) === 0;
  }

  /** `joinRunning`: false when the caller is the create running under this key (it must not wait for itself). */
  async function replay(held: StoredBill, request: CreateRequest, joinRunning = true): Promise<CreatedBillView> {
    if (!sameRequest(held, request)) {
      throw new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was used for a different request.');
    }
    const running = request.idempotencyKey === null || !joinRunning ? undefined : byKey.get(request.idempotencyKey);
    if (running) return running.run;
    if (held.createState === 'created') return withToken(held);
    if (held.createState === 'creating') {
      throw new ApiError(409, 'create_in_progress', 'This bill is still being created; try again shortly.', { 'Retry-After': '2' });
    }
    const successor = request.idempotencyKey === null ? null : await store.getByIdempotencyKey(retryKey(request.idempotencyKey));
    if (successor?.createState === 'created') return withToken(successor);
    throw new ApiError(502, 'create_failed', 'This bill could not be created; use a new Idempotency-Key to try again.');
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

  async function attempt(bill: StoredBill, request: CreateRequest, amount: string, mayRetry: boolean): Promise<CreatedBillView> {
    const ref = bill.merchantReference;
    calling.add(ref);
    try {
      const created = await upstream.createBill({
        amount,
        merchantReference: ref,
        ...(await hookUrls(config.publicUrl, ref, bill.hookToken)),
      });
      if (compareDecimal(created.billAmount, amount) !== 0) {
        log.warn('the service answered another amount', { merchantReference: ref, asked: amount, got: created.billAmount });
      }
      return withToken(await store.completeCreate(ref, created, now()));
    } catch (error) {
      if (!(error instanceof BillApiError)) throw error;
      if (error instanceof BillApiRejectedError) {
        await store.failCreate(ref, now());
        log.warn('create refused by the service', { merchantReference: ref, code: error.code, error });
        throw new ApiError(502, 'upstream_rejected', `The payment service refused the bill (code ${error.code}).`);
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
        throw unavailable();
      }
      if (!mayRetry) throw unavailable();
      const key = request.idempotencyKey === null ? null : retryKey(request.idempotencyKey);
      const again = await insert(request, amount, key);
      if (!again.inserted) return replay(again.bill, { ...request, idempotencyKey: key });
      return attempt(again.bill, request, amount, false);
    } finally {
      calling.delete(ref);
    }
  }

  function insert(request: CreateRequest, amount: string, idempotencyKey: string | null) {
    return store.insertBill({
      merchantReference: newMerchantReference(),
      orderId: request.orderId,
      idempotencyKey,
      amount,
      token: randomToken(),
      hookToken: randomToken(),
      createdAt: now(),
    });
  }

  async function createFresh(request: CreateRequest): Promise<CreatedBillView> {
    if (request.orderId !== null) {
      const open = await store.findOpenByOrderId(request.orderId, now());
      if (open) return withToken(open);
    }
    const { amount, currency } = await resolveAmount(request);
    const first = await insert(request, amount, request.idempotencyKey);
    // Lost to another process's insert of the same key (several instances on one database).
    if (!first.inserted) return replay(first.bill, request, false);
    const view = await attempt(first.bill, request, amount, true);
    if (currency !== null && currency !== view.currency) {
      log.warn('order currency differs from the bill currency', { billId: view.billId, order: currency, bill: view.currency });
    }
    return view;
  }

  function serialPerOrder(orderId: string, work: () => Promise<CreatedBillView>): Promise<CreatedBillView> {
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
      const key = request.idempotencyKey;
      if (key !== null) {
        const held = await store.getByIdempotencyKey(key);
        if (held) return replay(held, request);
        const running = byKey.get(key);
        if (running) {
          if (running.request.orderId !== request.orderId || String(running.request.amount) !== String(request.amount)) {
            throw new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was used for a different request.');
          }
          return running.run;
        }
      }
      const run = request.orderId === null ? createFresh(request) : serialPerOrder(request.orderId, () => createFresh(request));
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
