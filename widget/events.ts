import type { BillView } from '../contract/bill-view.js';

/** The base of the element's events: bubbling, composed, with a typed `detail`. */
export class BillEvent<T> extends Event {
  constructor(type: string, readonly detail: T) {
    super(type, { bubbles: true, composed: true });
  }
}

/** `bill-created`: the BFF created a bill for this element. */
export class BillCreatedEvent extends BillEvent<BillView> {
  constructor(view: BillView) {
    super('bill-created', view);
  }
}

/** `bill-status`: the bill's status, outcome or finality changed (the first view included). */
export class BillStatusEvent extends BillEvent<BillView> {
  constructor(view: BillView) {
    super('bill-status', view);
  }
}

/** `bill-final`: the bill reached a final status; exactly once per bill. */
export class BillFinalEvent extends BillEvent<BillView> {
  constructor(view: BillView) {
    super('bill-final', view);
  }
}

/** `bill-error`: something failed; the element shows it and retries where it can. */
export class BillErrorEvent extends BillEvent<Error> {
  constructor(error: Error) {
    super('bill-error', error);
  }
}

/**
 * `bill-ticket-expired`: the BFF refused the order ticket (403 `order_ticket_invalid`: expired, or
 * not this order's). Set a new `orderTicket` on the element and it starts again with it.
 */
export class BillTicketExpiredEvent extends BillEvent<{ orderId: string }> {
  constructor(orderId: string) {
    super('bill-ticket-expired', { orderId });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'bill-created': BillCreatedEvent;
    'bill-status': BillStatusEvent;
    'bill-final': BillFinalEvent;
    'bill-error': BillErrorEvent;
    'bill-ticket-expired': BillTicketExpiredEvent;
  }
}
