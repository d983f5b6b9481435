// The amount a create charges: the order's, as the merchant's hook or ORDER_LOOKUP_URL answers it
// (checked, and said plainly in the log when it is no order), or the browser's within the bounds
// the merchant allowed. Money stays decimal text (DESIGN rule 7).
import { z } from 'zod';
import { compareDecimal, toDecimal } from '../../../contract/decimal.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { CheckoutError } from '../errors.js';
import { issueMessage } from '../issue-message.js';
import type { OrderAmount, ResolveOrder } from '../orders/order-lookup.js';
import type { CreateRequest } from './request.js';

/** What a create charges, and what it checks the service's answer against. */
export interface Resolved {
  amount: string;
  /** The currency the bill must be in, when the order or BILL_CURRENCY says one. */
  currency: string | null;
  /** The order's amount and currency as the merchant gave them; null without an order. */
  order: { amount: string; currency: string | null } | null;
}

const PLAIN_AMOUNT = /^\d{1,18}(\.\d{1,18})?$/;
/** Decimal text as a JSON number writes it (no leading zero): kept exactly as given, trailing zeros too. */
const AS_GIVEN = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;

/**
 * Positive decimal text, or null. Strings must be plain digits (no exponent to blow up), and are
 * kept as the merchant wrote them ("12.50" stays "12.50": merchants reconcile by the text); a
 * JSON number becomes its shortest text.
 */
export function positiveAmount(value: string | number): string | null {
  const text = typeof value === 'string' ? value.trim() : null;
  if (text === null ? !Number.isFinite(value) : !PLAIN_AMOUNT.test(text)) return null;
  let amount: string;
  try {
    amount = text !== null && AS_GIVEN.test(text) ? text : toDecimal(value);
  } catch {
    // A JSON number like 5e-324 has more decimal places than a decimal amount may.
    return null;
  }
  return compareDecimal(amount, '0') > 0 ? amount : null;
}

/** What a resolveOrder hook (or ORDER_LOOKUP_URL) must answer for an order it knows. */
const orderAnswer = z.object({
  amount: z.union([z.string(), z.number()]),
  currency: z.string().regex(/^[A-Za-z0-9]{1,16}$/, 'a currency code of 1 to 16 letters or digits').optional(),
});

/** Who answers for orders, as the merchant configured it: named in what the log says of its answers. */
export const orderSourceName = (hookResolvesOrders: boolean): string =>
  (hookResolvesOrders ? 'the resolveOrder hook' : 'ORDER_LOOKUP_URL');

export interface AmountSources {
  config: Pick<Config, 'clientAmount' | 'currency'>;
  /** The merchant's amount for an order (hook or ORDER_LOOKUP_URL); null when none is configured. */
  resolveOrder: ResolveOrder | null;
  /** orderSourceName(): who the log names when an answer is no order. */
  orderSource: string;
  log: Logger;
}

const lookupInvalid = () =>
  new CheckoutError('upstream', 'order_lookup_invalid', "The merchant's order lookup did not answer an order; the merchant has been told.");

/**
 * The merchant's answer for an order, checked: null when there is no such order. A CheckoutError
 * the hook throws reaches the caller as it is; any other failure is order_lookup_failed.
 */
export async function lookUpOrder(
  resolveOrder: ResolveOrder, request: CreateRequest & { orderId: string }, sources: Pick<AmountSources, 'orderSource' | 'log'>,
): Promise<OrderAmount | null> {
  const { orderSource, log } = sources;
  let answer: unknown;
  try {
    answer = await resolveOrder(request.orderId, { request: request.request });
  } catch (error) {
    if (error instanceof CheckoutError) throw error;
    log.error('resolveOrder failed', { orderId: request.orderId, error });
    throw new CheckoutError('upstream', 'order_lookup_failed', 'The order could not be looked up.');
  }
  if (answer === null) return null;
  const parsed = orderAnswer.safeParse(answer);
  if (!parsed.success) {
    // The merchant's own code answered something else: said plainly in the log, for the merchant to fix.
    log.error(`${orderSource} answered ${answer === undefined ? 'undefined' : 'an object that is no order'} for order ${JSON.stringify(request.orderId)}: ` +
      `return {amount: decimal text such as "12.50", currency?} for an order, or null when there is no such order (${issueMessage(parsed.error)})`, { orderId: request.orderId });
    throw lookupInvalid();
  }
  return parsed.data;
}

/**
 * The amount of a create: the order's when there is an order and a way to look it up, else the
 * browser's when the merchant allows browser amounts (within their bounds); refused otherwise.
 */
export async function resolveAmount(request: CreateRequest, sources: AmountSources): Promise<Resolved> {
  const { config, resolveOrder, orderSource, log } = sources;
  if (request.orderId !== null && resolveOrder) {
    const order = await lookUpOrder(resolveOrder, { ...request, orderId: request.orderId }, sources);
    if (!order) throw new CheckoutError('not_found', 'order_not_found', 'No such order.');
    const amount = positiveAmount(order.amount);
    if (amount === null) {
      log.error(`${orderSource} answered an amount that is not a positive decimal for order ${JSON.stringify(request.orderId)}: return {amount: decimal text such as "12.50", currency?}`, { orderId: request.orderId });
      throw lookupInvalid();
    }
    const currency = order.currency ?? null;
    return { amount, currency: currency ?? config.currency, order: { amount, currency } };
  }
  if (config.clientAmount) {
    if (request.amount === null) throw new CheckoutError('invalid', 'amount_required', 'amount is required.');
    const amount = positiveAmount(request.amount);
    if (amount === null) throw new CheckoutError('invalid', 'invalid_amount', 'amount must be a positive decimal number.');
    const { min, max } = config.clientAmount;
    if (compareDecimal(amount, min) < 0 || compareDecimal(amount, max) > 0) {
      throw new CheckoutError('invalid', 'amount_out_of_range', `amount must be between ${min} and ${max}.`);
    }
    return { amount, currency: config.currency, order: null };
  }
  if (resolveOrder) throw new CheckoutError('invalid', 'order_id_required', 'orderId is required.');
  throw new CheckoutError('invalid', 'amount_not_allowed', 'This checkout takes amounts only from the merchant\'s orders.');
}
