// Who may start an order's checkout, decided once when the checkout is made (not per request from
// several settings): a page needs a ticket from the merchant's server (ORDER_TICKET_SECRET); or,
// on the embedded sandbox without one, the demo's tickets of this process are checked when given;
// or the merchant's resolveOrder hook decides from the browser's request; or nobody may.
import type { Config } from '../../config.js';
import { randomToken } from '../create/random.js';
import { orderTicket, verifyOrderTicket } from './order-ticket.js';

export type TicketPolicy =
  /** ORDER_TICKET_SECRET: every order create needs a valid, unexpired ticket. */
  | { kind: 'required'; secret: string }
  /** The embedded sandbox without a secret: tickets minted with one of this process's own are checked when given; none is needed. */
  | { kind: 'demo'; secret: string }
  /** A resolveOrder hook authorizes each create from its request (a session cookie, say). */
  | { kind: 'hook' }
  /** Against a real service, without a secret or a hook: order creates are refused. */
  | { kind: 'refused' };

export function ticketPolicy(config: Pick<Config, 'orderTicketSecret' | 'embeddedSandbox'>, hookResolvesOrders: boolean): TicketPolicy {
  if (config.orderTicketSecret !== null) return { kind: 'required', secret: config.orderTicketSecret };
  if (config.embeddedSandbox) return { kind: 'demo', secret: randomToken(32) };
  return hookResolvesOrders ? { kind: 'hook' } : { kind: 'refused' };
}

/** Whether a create of `orderId` with `ticket` (null: none given) may go on, at `now`. */
export async function ticketAdmits(policy: TicketPolicy, orderId: string, ticket: string | null, now: number): Promise<boolean> {
  switch (policy.kind) {
    case 'required':
      return ticket !== null && verifyOrderTicket(orderId, ticket, policy.secret, now);
    case 'demo':
      return ticket === null || verifyOrderTicket(orderId, ticket, policy.secret, now);
    case 'hook':
      return true;
    case 'refused':
      return false;
  }
}

/** A ticket for `orderId` under the policy's secret, good for `ttlMs`; null when the policy has none. */
export function mintUnder(policy: TicketPolicy, orderId: string, ttlMs: number, now: number): Promise<string | null> {
  return policy.kind === 'required' || policy.kind === 'demo' ? orderTicket(orderId, policy.secret, ttlMs, now) : Promise.resolve(null);
}
