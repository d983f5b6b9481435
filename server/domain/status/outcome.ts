import type { StatusCodes } from '../../config.js';
import type { Outcome } from '../../../contract/bill-view.js';
import type { StatusRecord } from '../../upstream/types.js';

/** The outcome of a requeried status, from the configured status codes (BILL_*_STATUSES). */
export function outcomeOf(record: Pick<StatusRecord, 'status' | 'isFinal'>, statuses: StatusCodes): Outcome {
  if (!record.isFinal) return 'pending';
  if (statuses.paid.includes(record.status)) return 'paid';
  if (statuses.cancelled.includes(record.status)) return 'cancelled';
  if (statuses.expired.includes(record.status)) return 'expired';
  return 'failed';
}

/**
 * An in-between status (BILL_PROCESSING_STATUSES): not final, the customer has paid and the service
 * is confirming. Never withdrawn at expiry, and its order gets no other bill meanwhile.
 */
export function isProcessing(bill: { status: number | null; isFinal: boolean }, processing: readonly number[]): boolean {
  return !bill.isFinal && bill.status !== null && processing.includes(bill.status);
}
