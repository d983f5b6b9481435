/** How a bill ended, or `pending` while it has not. Derived by the BFF from requeried status codes. */
export type Outcome = 'pending' | 'paid' | 'failed' | 'cancelled' | 'expired';

/** What the BFF tells a browser about one bill. Amounts are exact decimal text. */
export interface BillView {
  billId: string;
  merchantReference: string;
  billUrl: string;
  billAmount: string;
  currency: string;
  requireGCAmount: string | null;
  /** Expiry, unix milliseconds (service clock). */
  expiredOn: number;
  /** The service's status code, `null` until the first requery. */
  status: number | null;
  statusName: string;
  isFinal: boolean;
  outcome: Outcome;
  /**
   * True while the status is one of BILL_PROCESSING_STATUSES: the customer has paid and the service
   * is confirming. Never final (`outcome` stays `pending`); the BFF always sends it.
   */
  processing?: boolean;
  /** Time of the last status update, unix milliseconds (service clock), `null` until known. */
  dateTime: number | null;
  /**
   * On the answer to a create or a read whose request named a language (Accept-Language): the
   * amounts as text for it, formatted by the BFF.
   */
  display?: AmountDisplay;
}

/**
 * A bill's amounts formatted for one language by the BFF, as `formatAmount` does in a browser: a
 * phone's first `Intl.NumberFormat` costs its main thread 50–120 ms, and the element then needs none.
 */
export interface AmountDisplay {
  /** The canonical BCP 47 tag they are formatted for: the first of the request's Accept-Language. */
  locale: string;
  billAmount: string;
  requireGCAmount: string | null;
}

/** The create response: a BillView and the capability token that reads and cancels it. */
export interface CreatedBillView extends BillView {
  token: string;
}

/** The error body of every failed BFF response. */
export interface ErrorBody {
  error: { code: string; message: string };
}
