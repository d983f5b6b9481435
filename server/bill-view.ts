import type { BillView } from '../widget/bill-view.js';
import type { StoredBill } from './store/types.js';

/** What a browser may see of a stored bill: no tokens, nothing of ours beyond the contract. */
export function toBillView(bill: StoredBill): BillView {
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
    dateTime: bill.dateTime,
  };
}
