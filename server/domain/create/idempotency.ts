// The same Idempotency-Key returns the same bill, to the same request only (DESIGN rule 3): what
// counts as the same request.
import { compareDecimal } from '../../../contract/decimal.js';
import type { StoredBill } from '../../store/types.js';
import { positiveAmount } from './order-amount.js';
import type { CreateRequest } from './request.js';

/** Whether `request` repeats the one that made `bill`: the same order, and the same amount when it names one. */
export function sameRequest(bill: Pick<StoredBill, 'orderId' | 'amount'>, request: Pick<CreateRequest, 'orderId' | 'amount'>): boolean {
  if (bill.orderId !== request.orderId) return false;
  if (request.amount === null) return true;
  const amount = positiveAmount(request.amount);
  return amount !== null && compareDecimal(amount, bill.amount) === 0;
}

/** Whether `request` repeats a create still running under its key (nothing stored to compare with yet): as sent. */
export const sameAsRunning = (running: Pick<CreateRequest, 'orderId' | 'amount'>, request: Pick<CreateRequest, 'orderId' | 'amount'>): boolean =>
  running.orderId === request.orderId && String(running.amount) === String(request.amount);
