// One order, one payment (DESIGN rules 3 and 10): what a create does with the order's current bill.
// Asked about first, whatever any clock says of it: paid, it answers; paid and being confirmed (an
// in-between status), it answers too, whatever its expiry or amount; payable and for the same
// amount, it is reused; otherwise it is withdrawn at the service, and only then is another made.
import type { Logger } from '../../log.js';
import type { BillStore, StoredBill } from '../../store/types.js';
import { BillApiRejectedError, BillApiThrottledError } from '../../upstream/errors.js';
import type { BillApi } from '../../upstream/types.js';
import { compareDecimal } from '../../../contract/decimal.js';
import { serviceBusy } from '../errors.js';
import { payableFor, type ServiceTime } from '../status/expiry.js';
import { isProcessing } from '../status/outcome.js';
import type { FollowUps } from '../status/follow-ups.js';
import type { Refreshed } from '../status/refresher.js';
import { created, orderBusy, paid, unavailable, type CreateResult } from './create-result.js';
import type { Resolved } from './order-amount.js';

/** A bill handed to a customer again has at least this long to go (or a tenth of its lifetime, if shorter). */
export const REUSE_MARGIN_MS = 30_000;

/**
 * What the order's current bill means for a create: `paid` answers it; `processing` (paid, being
 * confirmed) answers it as the order's open bill, never withdrawn nor replaced; `ended` (final
 * otherwise) lets a new bill be made; `reuse` hands it out again; `unconfirmed`: it cannot be reused
 * and the service could not be asked, so no second bill is made; `withdraw` it at the service first.
 */
export type CurrentVerdict = 'paid' | 'processing' | 'ended' | 'reuse' | 'unconfirmed' | 'withdraw';

/**
 * `confirmed`: the service was just asked about `bill` (Refreshed.confirmed). `processing`: the
 * in-between status codes (Config.statuses.processing).
 */
export function judgeCurrent(
  bill: StoredBill, resolved: Resolved, time: ServiceTime, confirmed: boolean, processing: readonly number[] = [],
): CurrentVerdict {
  if (bill.outcome === 'paid') return 'paid';
  if (isProcessing(bill, processing)) return 'processing';
  if (bill.isFinal) return 'ended';
  const sameAmount = compareDecimal(bill.orderAmount ?? bill.amount, resolved.amount) === 0;
  const sameCurrency = (bill.orderCurrency ?? null) === (resolved.order?.currency ?? null);
  const lifetime = bill.expiresLocalAt !== null ? bill.expiresLocalAt - bill.createdAt : Infinity;
  const payable = payableFor(bill, time, Math.min(REUSE_MARGIN_MS, lifetime / 10));
  if (sameAmount && sameCurrency && payable) return 'reuse';
  return confirmed ? 'withdraw' : 'unconfirmed';
}

export interface CurrentBillDeps {
  upstream: Pick<BillApi, 'cancelBill'>;
  store: Pick<BillStore, 'supersede' | 'markLost'>;
  /** The service this process talks to (serviceIdentity); absent: bills are not told apart by service. */
  serviceId?: string | null;
  /** Asks the service about a bill now (the refresher's news, reason `create`). */
  refresh: (billId: string) => Promise<Refreshed | null>;
  followUps: Pick<FollowUps, 'afterNews'>;
  time: ServiceTime;
  log: Logger;
  /** The in-between status codes (Config.statuses.processing). */
  processing: readonly number[];
}

/**
 * The order's current bill, asked about first. Resolves to what answers the create (its paid bill,
 * or the bill to reuse), or null once it is no longer the order's: final, or withdrawn at the
 * service by a cancel the service accepted.
 */
export async function decideCurrent(current: StoredBill & { billId: string }, resolved: Resolved, deps: CurrentBillDeps): Promise<CreateResult | null> {
  if (deps.serviceId && current.serviceId !== null && current.serviceId !== deps.serviceId) {
    // Made at another service (the database was moved): never asked about or handed out here.
    deps.log.warn("the order's bill was made at another service; a new one is made", { billId: current.billId, orderId: current.orderId });
    await deps.store.markLost(current.billId, deps.time.now());
    return null;
  }
  const asked = await deps.refresh(current.billId).catch(() => null);
  const bill = { ...(asked?.bill ?? current), billId: current.billId };
  // The service no longer knows it: never handed out again, the order gets a new bill.
  if (bill.lostAt !== null) return null;
  switch (judgeCurrent(bill, resolved, deps.time, asked?.confirmed ?? false, deps.processing)) {
    case 'paid': return paid(bill);
    case 'ended': return null;
    case 'processing':
    case 'reuse': return created(bill, deps.processing);
    // The service could not be asked: without its word no second bill is made for the order.
    case 'unconfirmed': throw unavailable();
    case 'withdraw': return withdrawCurrent(bill, deps);
  }
}

/**
 * Withdraws the order's bill at the service (expired on its clock, or for another amount) before
 * another is made: null once the cancel is accepted (or the service calls it final), its paid
 * bill if the payment came first.
 */
export async function withdrawCurrent(bill: StoredBill & { billId: string }, deps: CurrentBillDeps): Promise<CreateResult | null> {
  const { upstream, store, refresh, followUps, time, log } = deps;
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
  if (accepted) await store.supersede(bill.merchantReference, time.now());
  const after = await refresh(bill.billId).catch(() => null);
  if (after?.bill.outcome === 'paid') return paid(after.bill);
  // Paid meanwhile and being confirmed: the order's bill still, the cancel refused or not carried out.
  if (after && isProcessing(after.bill, deps.processing)) return created(after.bill, deps.processing);
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

export interface UntilCreatedDeps {
  store: Pick<BillStore, 'getByReference'>;
  /** How often to look, `pauseMs` apart. */
  polls: number;
  pauseMs: number;
  sleep: (ms: number) => Promise<void>;
}

/** Waits while another process creates the order's bill; resolves once it has left `creating`, or rejects as busy. */
export async function untilCreated(bill: Pick<StoredBill, 'merchantReference'>, deps: UntilCreatedDeps): Promise<void> {
  for (let poll = 0; poll < deps.polls; poll++) {
    await deps.sleep(deps.pauseMs);
    const now = await deps.store.getByReference(bill.merchantReference);
    if (now?.createState !== 'creating') return;
  }
  throw orderBusy();
}
