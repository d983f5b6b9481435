// What a create answers, and the refusals it shares between its steps.
import type { CreatedBillView } from '../../../contract/bill-view.js';
import type { StoredBill } from '../../store/types.js';
import { toBillView } from '../bill-view.js';
import { CheckoutError } from '../errors.js';

/** A create's answer: 201 with a new (or the order's open) bill, 200 with the order's paid bill. */
export interface CreateResult {
  status: 200 | 201;
  bill: CreatedBillView;
  /** The service made this bill for this call; false: an existing bill answered (the key's, the order's open or paid one). */
  fresh: boolean;
}

/** The bill as its holder sees it: the view plus the token that reads and cancels it. `processing`: Config.statuses.processing. */
export const withToken = (bill: StoredBill, processing: readonly number[]): CreatedBillView => ({ ...toBillView(bill, processing), token: bill.token });

/** 201: a bill to pay, or being confirmed (`fresh` when the service made it for this call). */
export const created = (bill: StoredBill, processing: readonly number[], fresh = false): CreateResult =>
  ({ status: 201, bill: withToken(bill, processing), fresh });

/** 200: the order's paid bill answers, never a new one. Final, so never in-between. */
export const paid = (bill: StoredBill): CreateResult => ({ status: 200, bill: withToken(bill, []), fresh: false });

/** Another caller's create, joined: its bill is not new to this caller. */
export const joined = async (run: Promise<CreateResult>): Promise<CreateResult> => ({ ...(await run), fresh: false });

export const unavailable = () => new CheckoutError('upstream', 'upstream_unavailable', 'The payment service is unavailable; try again shortly.');

/** Seconds a customer waits before asking again for a create that did not happen (or is being settled). */
export const CREATE_RETRY_AFTER_SECONDS = 2;

/** No bill was made for this call, and the same Idempotency-Key may ask again after a short pause (503). */
export const tryAgainShortly = () =>
  new CheckoutError('busy', 'upstream_unavailable', 'The payment service is unavailable; try again shortly.', CREATE_RETRY_AFTER_SECONDS);

export const ticketInvalid = () =>
  new CheckoutError('forbidden', 'order_ticket_invalid', "This order needs a valid, unexpired order ticket from the merchant's server (orderTicket).");

export const orderBusy = () =>
  new CheckoutError('busy', 'order_bill_pending', "The order's bill is being settled with the payment service; try again in a moment.", 2);

export const keyReused = () =>
  new CheckoutError('unprocessable', 'idempotency_key_reused', 'This Idempotency-Key was used for a different request.');
