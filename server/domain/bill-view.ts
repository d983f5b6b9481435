import type { BillView } from '../../contract/bill-view.js';
import type { StoredBill } from '../store/types.js';
import { isProcessing } from './status/outcome.js';

/**
 * What a browser may see of a stored bill: no tokens, nothing of ours beyond the contract.
 * `processing`: the in-between status codes (Config.statuses.processing).
 */
export function toBillView(bill: StoredBill, processing: readonly number[]): BillView {
  return {
    billId: bill.billId ?? '',
    merchantReference: bill.merchantReference,
    billUrl: bill.billUrl ?? '',
    billAmount: bill.amount,
    currency: bill.currency ?? '',
    requireGCAmount: bill.requireGCAmount,
    expiredOn: bill.expiredOn ?? 0,
    status: bill.status,
    statusName: bill.statusName,
    isFinal: bill.isFinal,
    outcome: bill.outcome,
    processing: isProcessing(bill, processing),
    dateTime: bill.dateTime,
  };
}

/** What the merchant is told of a final bill (the `onFinal` hook's bill, the webhook's `data`). */
export interface BillNotice extends BillView {
  /** The merchant's order, or null for a bill made from an amount. */
  orderId: string | null;
  /** The order's amount as the merchant resolved it (decimal text), or null without an order. */
  orderAmount: string | null;
  /** False when the bill was made on the embedded sandbox: no real money moved. */
  livemode: boolean;
  /** Paid while another bill of the same order was already paid: refund one of them. */
  duplicatePayment: boolean;
}

export function toBillNotice(bill: StoredBill, livemode: boolean): BillNotice {
  return {
    // A notice is of a final bill: never in-between, whatever the codes.
    ...toBillView(bill, []),
    orderId: bill.orderId,
    orderAmount: bill.orderAmount,
    livemode,
    duplicatePayment: bill.duplicatePayment,
  };
}
