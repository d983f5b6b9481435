import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import { BillCheckout } from './bill-checkout.js';
import type { BillCreatedEvent, BillErrorEvent, BillFinalEvent, BillStatusEvent, BillTicketExpiredEvent } from './events.js';
import { nextTask } from './next-task.js';
import type { Strings } from './strings.js';

// Defined (and the elements already in the page upgraded) in a task after the one that evaluated
// the script: on a phone's CPU the two together are a long task.
await nextTask();
if (!customElements.get('bill-checkout')) customElements.define('bill-checkout', BillCheckout);

/**
 * `<bill-checkout>` in React 19 JSX: its attributes, and its events as the `onbill-*` listeners
 * React 19 adds for custom elements. Server rendering writes the attributes, so they come first;
 * `strings` is a property only.
 */
export interface BillCheckoutJsxProps extends DetailedHTMLProps<HTMLAttributes<BillCheckout>, BillCheckout> {
  endpoint?: string;
  'order-id'?: string;
  'order-ticket'?: string;
  amount?: string;
  'bill-id'?: string;
  token?: string;
  mode?: BillCheckout['mode'];
  locale?: string;
  cancellable?: boolean;
  'allowed-schemes'?: string;
  'native-bridge'?: boolean;
  'parent-origin'?: string;
  'gold-unit'?: string;
  strings?: Partial<Strings>;
  'onbill-created'?: (event: BillCreatedEvent) => void;
  'onbill-status'?: (event: BillStatusEvent) => void;
  'onbill-final'?: (event: BillFinalEvent) => void;
  'onbill-error'?: (event: BillErrorEvent) => void;
  'onbill-ticket-expired'?: (event: BillTicketExpiredEvent) => void;
}

declare global {
  interface HTMLElementTagNameMap {
    'bill-checkout': BillCheckout;
  }
}

declare module 'react' {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- React 19 reads custom elements' props from React.JSX.
  namespace JSX {
    interface IntrinsicElements {
      'bill-checkout': BillCheckoutJsxProps;
    }
  }
}
