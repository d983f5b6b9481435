// What a create call to the service came to, beyond a bill to store (the states are in
// create-states.ts): an answer that is not the bill asked for (withdrawn, DESIGN rule 8); a create
// the service surely did not make (the stored create fails and its key is free again); an unknown
// outcome (settled by merchantReference before anything is retried, rule 3), whose orphans are
// kept and withdrawn; and a callback that came before the answer (asked again at once, rule 11).
import type { Logger } from '../../log.js';
import type { BillStore, StoredBill } from '../../store/types.js';
import {
  BillApiHttpError, BillApiRejectedError, BillApiResponseError, BillApiThrottledError, type BillApiError,
} from '../../upstream/errors.js';
import type { BillApi, CallOptions } from '../../upstream/types.js';
import type { Alerts } from '../alerts.js';
import { CheckoutError, serviceBusy } from '../errors.js';
import type { FollowUps } from '../status/follow-ups.js';
import { serviceReference } from '../status/answer-check.js';
import type { Refreshed } from '../status/refresher.js';
import { tryAgainShortly, unavailable } from './create-result.js';

export interface CreateOutcomeDeps {
  upstream: Pick<BillApi, 'cancelBill' | 'findByMerchantReference'>;
  store: Pick<BillStore, 'failCreate' | 'recordOrphan' | 'confirmWithdrawal'>;
  alerts: Alerts;
  now: () => number;
  log: Logger;
}

/**
 * The service answered a bill other than the one asked for: withdraw it (`withdraw`), and tell the
 * caller plainly. A bill under our reference (its amount or currency not as asked) is ours all the
 * same: kept as an orphan, and withdrawn until the service confirms.
 */
export async function refuseAnswer(
  ref: string, billId: string, withdraw: boolean, fields: Record<string, unknown>, deps: CreateOutcomeDeps,
): Promise<never> {
  const { upstream, store, alerts, now, log } = deps;
  alerts.raise('create_answer_mismatch', 'a create answer does not match the request; the bill is not used', {
    merchantReference: ref, billId, ...fields,
  });
  if (withdraw && fields.field !== 'merchantReference') {
    await store.recordOrphan(ref, billId, now());
    await withdrawOrphan(billId, deps);
  } else if (withdraw) {
    await upstream.cancelBill(billId).catch((error: unknown) => {
      log.warn('cancelling a mismatched bill failed', { billId, error });
    });
  }
  await store.failCreate(ref, now());
  throw new CheckoutError('upstream', 'upstream_mismatch', 'The payment service answered a bill that does not match the request; it was not used. Try again later.');
}

/**
 * Withdraws an orphan at the service: confirmed once the cancel is accepted; refused as not pending,
 * its requery says what it is; failing, the reconciler cancels again (Store.listWithdrawing).
 */
export async function withdrawOrphan(billId: string, deps: Pick<CreateOutcomeDeps, 'upstream' | 'store' | 'now' | 'log'>, call?: CallOptions): Promise<boolean> {
  try {
    await deps.upstream.cancelBill(billId, call);
  } catch (error) {
    if (error instanceof BillApiRejectedError && !error.retryable) return false;
    deps.log.warn('withdrawing an orphan bill failed; the reconciler tries again', { billId, error });
    return false;
  }
  await deps.store.confirmWithdrawal(billId, deps.now());
  return true;
}

/**
 * A create call that failed. When the service surely made no usable bill, the stored create is
 * failed (its key free again), logged, and the caller's error thrown; a bill the service named in an
 * unusable answer is kept as an orphan and withdrawn first. Returns only when the outcome is
 * unknown: the caller settles it.
 */
export async function failedCreate(error: BillApiError, ref: string, deps: CreateOutcomeDeps): Promise<void> {
  const { store, now, log } = deps;
  if (error instanceof BillApiResponseError && error.madeBillId !== null) {
    // An answer with an expiry no bill can have: the bill exists at the service, and is withdrawn.
    await store.recordOrphan(ref, error.madeBillId, now());
    await withdrawOrphan(error.madeBillId, deps);
    log.warn('create answer unusable; its bill was withdrawn', { merchantReference: ref, billId: error.madeBillId, error });
    throw new CheckoutError('upstream', 'upstream_invalid_answer',
      'The payment service answered a bill with an expiry that cannot be right; it was withdrawn. Try again later.');
  }
  // A refusal with a 5xx may come after the bill was made (outcomeUnknown): settled, never taken at its word.
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
    // A 4xx of ours (a wrong path, a method not allowed) fails the same way again: no Retry-After.
    // Anything else (the service out of reach, a credential refused for now) may pass: the key asks again.
    throw error instanceof BillApiHttpError && error.httpStatus < 500 ? unavailable() : tryAgainShortly();
  }
}

/**
 * A create whose outcome is unknown: whatever the service made under our reference is kept (an
 * orphan: a list record has no billUrl or expiredOn, so it cannot be shown) and withdrawn, then the
 * create is failed, its key free again. Rejects, leaving the create as it is, when the service
 * cannot be asked: settling is tried again later (the reconciler), for a bounded time.
 */
export async function settleByReference(
  bill: Pick<StoredBill, 'merchantReference'>, deps: CreateOutcomeDeps, call?: CallOptions,
): Promise<{ orphans: number; unconfirmed: number }> {
  const { upstream, store, now, log } = deps;
  const ref = bill.merchantReference;
  const found = await upstream.findByMerchantReference(ref, call);
  let unconfirmed = 0;
  for (const orphan of found) {
    const kept = await store.recordOrphan(ref, orphan.billId, now());
    if (kept.isFinal || kept.withdrawConfirmedAt !== null) continue;
    // A list record says whether it is still pending: one that is not needs no cancel.
    if (orphan.isFinal) continue;
    if (!(await withdrawOrphan(orphan.billId, deps, call))) unconfirmed++;
  }
  await store.failCreate(ref, now());
  log.info('settled a create of unknown outcome', { merchantReference: ref, orphans: found.length, unconfirmed });
  return { orphans: found.length, unconfirmed };
}

export interface EarlyNewsDeps {
  refresh: (billId: string) => Promise<Refreshed | null>;
  followUps: Pick<FollowUps, 'afterNews'>;
  log: Logger;
}

/** News for a bill (its callback beat its create answer): asked now, and followed up until final. */
export async function askAgain(billId: string, deps: EarlyNewsDeps): Promise<void> {
  const result = await deps.refresh(billId).catch((error: unknown) => {
    deps.log.warn('requerying a bill whose callback came first failed; following it up', { billId, error });
    return null;
  });
  if (!result?.bill.isFinal) deps.followUps.afterNews(billId);
}

export interface AdoptDeps {
  upstream: Pick<BillApi, 'requeryBill'>;
  store: Pick<BillStore, 'recordOrphan' | 'getByBillId'>;
  alerts: Alerts;
  now: () => number;
  log: Logger;
}

/**
 * A callback under our reference names a bill we do not hold there: the create's answer never came
 * and settling did not find it (a replica behind), or the service made a second bill for one create.
 * Once the service confirms the bill is ours (its requery names our reference), it is kept as an
 * orphan; null when it is not ours or cannot be confirmed now (the service calls back again).
 */
export async function adoptCalledBack(ref: string, billId: string, deps: AdoptDeps): Promise<StoredBill | null> {
  const held = await deps.store.getByBillId(billId);
  if (held) return serviceReferenceOf(held) === ref ? held : null;
  let record;
  try {
    record = await deps.upstream.requeryBill(billId, { priority: 'news' });
  } catch (error) {
    deps.log.warn('a callback named an unknown bill under our reference; it could not be checked', { merchantReference: ref, billId, error });
    return null;
  }
  if (record.billId !== billId || record.merchantReference !== ref) {
    deps.alerts.raise('requery_answer_mismatch', 'a callback named a bill that is not of this reference; not kept', {
      merchantReference: ref, billId, got: record.merchantReference,
    });
    return null;
  }
  deps.log.warn('a callback named a bill made for a create that had ended; kept as an orphan', { merchantReference: ref, billId });
  return deps.store.recordOrphan(ref, billId, deps.now());
}

const serviceReferenceOf = (bill: Pick<StoredBill, 'merchantReference'>) => serviceReference(bill.merchantReference);
