// `bill-checkout` where there is no DOM (package.json's `node` condition: Node, Bun, Deno, a
// framework's server render): it defines nothing and throws nothing, so that a component holding
// <bill-checkout> renders on the server as a tag with its attributes (or with the markup of
// `renderCheckout` inside), and the browser's bundle (the `browser` condition) defines the element.
// The same names as widget/index.ts; `BillCheckout`, which needs HTMLElement, is undefined here.
import type { BillCheckout as Element } from './bill-checkout.js';

export const BillCheckout: typeof Element | undefined = undefined;
export type { BillCheckoutJsxProps } from './define.js';
export { BillCreatedEvent, BillErrorEvent, BillFinalEvent, BillStatusEvent, BillTicketExpiredEvent } from './events.js';
export { BffError } from './bff-client.js';
export { safeUrl } from './safe-url.js';
export { en as englishStrings, stringsFor, type Strings } from './strings.js';
export type { BillView, CreatedBillView, ErrorBody, Outcome } from '../contract/bill-view.js';
