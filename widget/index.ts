import './define.js';

export { BillCheckout } from './bill-checkout.js';
export type { BillCheckoutJsxProps } from './define.js';
export { BillCreatedEvent, BillErrorEvent, BillFinalEvent, BillStatusEvent, BillTicketExpiredEvent } from './events.js';
export { BffError } from './bff-client.js';
export { safeUrl } from './safe-url.js';
export { en as englishStrings, stringsFor, type Strings } from './strings.js';
export type { BillView, CreatedBillView, ErrorBody, Outcome } from '../contract/bill-view.js';
