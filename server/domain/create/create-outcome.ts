// What a create call to the service came to, beyond a bill to store: an answer that is not the
// bill asked for (withdrawn, DESIGN rule 8), a failure whose outcome is known (the stored create
// fails, the caller hears why) or unknown (settled by merchantReference before anything is retried,
// rule 3), and a callback that came before the answer (asked again at once, rule 11).
import type { Logger } from '../../log.js';
import type { Store, StoredBill } from '../../store/types.js';
import {
  BillApiRejectedError, BillApiResponseError, BillApiThrottledError, type BillApiError,
} from '../../upstream/errors.js';
import type { BillApi } from '../../upstream/types.js';
import type { Alerts } from '../alerts.js';
import { CheckoutError, serviceBusy } from '../errors.js';
import type { FollowUps } from '../status/follow-ups.js';
import type { Refreshed } from '../status/refresher.js';
import { unavailable } from './create-result.js';

export interface CreateOutcomeDeps {
  upstream: Pick<BillApi, 'cancelBill' | 'findByMerchantReference'>;
  store: Pick<Store, 'failCreate'>;
  alerts: Alerts;
  now: () => number;
  log: Logger;
}

/** The service answered a bill other than the one asked for: withdraw it (`withdraw`), and tell the caller plainly. */
export async function refuseAnswer(
  ref: string, billId: string, withdraw: boolean, fields: Record<string, unknown>, deps: CreateOutcomeDeps,
): Promise<never> {
  const { upstream, store, alerts, now, log } = deps;
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

/**
 * A create call that failed. When the service surely made no usable bill, the stored create is
 * failed, logged, and the caller's error thrown (a bill the service named in an unusable answer is
 * withdrawn first). Returns only when the outcome is unknown: the caller settles it.
 */
export async function failedCreate(error: BillApiError, ref: string, deps: CreateOutcomeDeps): Promise<void> {
  const { upstream, store, now, log } = deps;
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
    throw unavailable();
  }
}

/**
 * A create whose outcome is unknown: whatever the service made under our reference is withdrawn
 * (a list record has no billUrl or expiredOn, so it cannot be shown), then the create is failed.
 */
export async function settleByReference(bill: Pick<StoredBill, 'merchantReference'>, deps: CreateOutcomeDeps): Promise<void> {
  const { upstream, store, now, log } = deps;
  const found = await upstream.findByMerchantReference(bill.merchantReference);
  for (const orphan of found) {
    await upstream.cancelBill(orphan.billId).catch((error: unknown) => {
      log.warn('cancelling an orphan bill failed', { billId: orphan.billId, error });
    });
  }
  await store.failCreate(bill.merchantReference, now());
  log.info('settled a create of unknown outcome', { merchantReference: bill.merchantReference, orphans: found.length });
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
