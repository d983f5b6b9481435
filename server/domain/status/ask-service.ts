// Asking the service about one bill (DESIGN rules 1, 5 and 8): its answer is believed only when it
// is about the stored bill; a bill past its expiry and the grace period that the service still calls
// pending is cancelled there and asked about again, and only the service's word makes it final.
import type { Logger } from '../../log.js';
import type { StoredBill } from '../../store/types.js';
import { BillApiRejectedError } from '../../upstream/errors.js';
import type { Turn } from '../../upstream/budget.js';
import type { PriorityOf } from '../../upstream/priority.js';
import type { BillApi, StatusRecord } from '../../upstream/types.js';
import type { Alerts } from '../alerts.js';
import { requeryMismatch } from './answer-check.js';

/** A stored status served without asking: final, or checked less than `maxAgeMs` ago. */
export const isFresh = (bill: Pick<StoredBill, 'isFinal' | 'checkedAt'>, maxAgeMs: number, now: number): boolean =>
  bill.isFinal || (bill.checkedAt !== null && now - bill.checkedAt < maxAgeMs);

export interface AskDeps {
  upstream: Pick<BillApi, 'requeryBill' | 'cancelBill'>;
  alerts: Alerts;
  log: Logger;
  /** Envelope codes with which the service says it does not know a bill (BILL_NOT_FOUND_CODES). */
  notFoundCodes?: readonly number[];
}

/** The service says it does not know the bill: a refusal with a not-found code, or any envelope with HTTP 404. */
export function isNotFound(error: unknown, notFoundCodes: readonly number[]): boolean {
  return error instanceof BillApiRejectedError && (notFoundCodes.includes(error.code) || error.httpStatus === 404);
}

/**
 * The service's status of the bill, checked against it; why there is none to apply otherwise:
 * `failed` (no answer), `mismatch` (an answer about another bill), `not_found` (the service does not know it).
 */
export async function askService(
  bill: StoredBill & { billId: string }, retry: boolean, priority: PriorityOf, deps: AskDeps, turn?: Turn,
): Promise<StatusRecord | 'failed' | 'mismatch' | 'not_found'> {
  const billId = bill.billId;
  let record: StatusRecord;
  try {
    record = await deps.upstream.requeryBill(billId, { retry, priority, ...(turn ? { turn } : {}) });
  } catch (error) {
    if (isNotFound(error, deps.notFoundCodes ?? [])) {
      deps.log.warn('requery: the service does not know this bill', { billId, error });
      return 'not_found';
    }
    deps.log.warn('requery failed; serving the stored status', { billId, error });
    return 'failed';
  }
  const mismatch = requeryMismatch(record, bill);
  if (mismatch) {
    deps.alerts.raise('requery_answer_mismatch', 'a requery answer does not match the stored bill; not applied', { billId, ...mismatch });
    return 'mismatch';
  }
  return record;
}

/**
 * Past expiredOn and the grace period (on the service's clock and on the bill's lifetime seen at
 * create, expiry.ts) the service still says `pending`: the BFF never calls a bill final by itself,
 * it asks the service to cancel and asks again. Only the service's word makes the bill final, so a
 * payment that landed meanwhile is what gets stored; `pending` stands when either step fails.
 */
export async function cancelOverdue(
  bill: StoredBill & { billId: string }, pending: StatusRecord, priority: PriorityOf, deps: AskDeps,
): Promise<StatusRecord> {
  const billId = bill.billId;
  try {
    await deps.upstream.cancelBill(billId, { priority });
    deps.log.info('bill past expiredOn and grace, still pending: cancelled at the service', { billId });
  } catch (error) {
    // Refused as such: no longer pending there (paid, perhaps); the requery below says what it is.
    if (!(error instanceof BillApiRejectedError) || error.retryable) {
      deps.log.warn('bill past expiredOn and grace, still pending: the cancel failed; asking again later', { billId, error });
      return pending;
    }
  }
  const after = await askService(bill, false, priority, deps);
  return typeof after === 'string' ? pending : after;
}
