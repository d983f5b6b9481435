import type { Context } from 'hono';

export const SERVER_TIME_HEADER = 'X-Server-Time';
export const SERVICE_TIME_HEADER = 'X-Service-Time';

/**
 * Lets a widget correct its countdown for a skewed device clock. Stamped as the request arrives:
 * this process's time, and the payment service's as estimated from its answers (expiredOn is on
 * the service's clock, so the countdown runs by it). Answers about one bill stamp that bill's own
 * time over it (stampBillServiceTime).
 */
export function stampServerTime(c: Pick<Context, 'header'>, now: () => number, serviceNow?: () => number): void {
  c.header(SERVER_TIME_HEADER, String(now()));
  if (serviceNow) c.header(SERVICE_TIME_HEADER, String(serviceNow()));
}

/** What a bill's own time is read from: its expiry on the service's clock, and on ours as judged at create. */
export interface BillTimes {
  expiredOn: number | null;
  expiresLocalAt: number | null;
}

/**
 * The service's time now by this bill's own create exchange (DESIGN rule 10): our clock plus
 * expiredOn − expiresLocalAt, so that a countdown from it (expiredOn − this) is the bill's own
 * lifetime left on our clock, whatever the service-wide estimate says. The estimate (`serviceNow`,
 * else our clock) for a bill without both.
 */
export function billServiceNow(bill: BillTimes, now: () => number, serviceNow?: () => number): number {
  if (bill.expiredOn !== null && bill.expiresLocalAt !== null) return now() + (bill.expiredOn - bill.expiresLocalAt);
  return serviceNow ? serviceNow() : now();
}

/** X-Service-Time of an answer about one bill: its own time (billServiceNow), over the estimate stamped before. */
export function stampBillServiceTime(c: Pick<Context, 'header'>, bill: BillTimes, now: () => number, serviceNow?: () => number): void {
  const own = bill.expiredOn !== null && bill.expiresLocalAt !== null;
  // Without either, X-Server-Time alone says the time (as stampServerTime leaves it).
  if (own || serviceNow) c.header(SERVICE_TIME_HEADER, String(billServiceNow(bill, now, serviceNow)));
}
