// The customer's cancel of a pending bill: asked of the service, then the bill requeried so that
// the answer (and every watcher, through the hub) shows what the service now says.
import type { BillView } from '../../../contract/bill-view.js';
import type { StatusCodes } from '../../config.js';
import type { Logger } from '../../log.js';
import type { StoredBill } from '../../store/types.js';
import { BillApiRejectedError, BillApiThrottledError } from '../../upstream/errors.js';
import type { BillApi } from '../../upstream/types.js';
import { toBillView } from '../bill-view.js';
import { CheckoutError, serviceBusy } from '../errors.js';
import { isProcessing } from './outcome.js';
import type { Refresher } from './refresher.js';

export interface CancelDeps {
  upstream: Pick<BillApi, 'cancelBill'>;
  refresher: Pick<Refresher, 'news'>;
  config: { statuses: Pick<StatusCodes, 'processing'> };
  log: Logger;
}

const notCancellable = (message: string) => new CheckoutError('conflict', 'not_cancellable', message);

/**
 * Cancels `bill` at the service and answers its view as requeried after. Refused (conflict,
 * not_cancellable) unless it is pending and not being paid; the service's refusal is one too, its
 * throttling is `busy`, any other failure `upstream`.
 */
export async function cancelBill(bill: StoredBill & { billId: string }, deps: CancelDeps): Promise<BillView> {
  const processing = deps.config.statuses.processing;
  if (bill.outcome !== 'pending') throw notCancellable('Only a pending bill can be cancelled.');
  if (isProcessing(bill, processing)) {
    throw notCancellable('This bill is paid and its payment is being confirmed; it can no longer be cancelled.');
  }
  try {
    await deps.upstream.cancelBill(bill.billId);
  } catch (error) {
    // Refused as such (not for load: a 429 is no answer about the bill).
    if (error instanceof BillApiRejectedError && !error.retryable) {
      await deps.refresher.news(bill.billId, { reason: 'cancel' });
      throw notCancellable('The payment service says this bill can no longer be cancelled.');
    }
    if (error instanceof BillApiThrottledError) throw serviceBusy(error.retryAfterSeconds);
    deps.log.warn('cancel failed', { billId: bill.billId, error });
    throw new CheckoutError('upstream', 'upstream_unavailable', 'The payment service is unavailable; try again shortly.');
  }
  const after = await deps.refresher.news(bill.billId, { reason: 'cancel' });
  return toBillView(after?.bill ?? bill, processing);
}
