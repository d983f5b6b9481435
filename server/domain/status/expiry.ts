// Whose clock decides what (DESIGN rule 10). A bill's expiredOn is on the service's clock; this
// process judges it with the service's time as estimated (ServiceClock: Date headers checked
// against the service's own bills) and with the bill's lifetime as seen when its create answer
// arrived (`expiresLocalAt`, our clock). Where either says a bill may still be paid, it is treated
// as payable: it is never withdrawn early, and never handed to a customer near its end.
import type { StoredBill } from '../../store/types.js';

export interface ServiceTime {
  /** Our clock, unix ms. */
  now: () => number;
  /** The service's time as estimated, unix ms. */
  serviceNow: () => number;
}

type Dated = Pick<StoredBill, 'expiredOn' | 'expiresLocalAt'>;

/**
 * Our clock's time at which the bill expires: as judged at create, else (bills stored before that
 * was kept) expiredOn by the estimate now; null for a bill without an expiry yet.
 */
export function expiresAtLocal(bill: Dated, time: ServiceTime): number | null {
  if (bill.expiredOn === null) return null;
  return bill.expiresLocalAt ?? bill.expiredOn - (time.serviceNow() - time.now());
}

/**
 * Past its expiry by `graceMs` on the service's clock and on the lifetime seen at create alike:
 * only then may the BFF ask the service to cancel a bill that it still calls pending.
 */
export function overdue(bill: Dated, time: ServiceTime, graceMs: number): boolean {
  const local = expiresAtLocal(bill, time);
  return local !== null && time.serviceNow() > bill.expiredOn! + graceMs && time.now() > local + graceMs;
}

/**
 * Still payable with at least `marginMs` to go on both clocks: what a create may hand to a
 * customer again instead of a new bill.
 */
export function payableFor(bill: Dated, time: ServiceTime, marginMs: number): boolean {
  const local = expiresAtLocal(bill, time);
  return local !== null && time.serviceNow() + marginMs < bill.expiredOn! && time.now() + marginMs < local;
}
