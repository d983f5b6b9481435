// Whose clock decides what (DESIGN rule 10: time belongs to the service, judged per bill). A bill's
// expiredOn is on the service's clock; its lifetime was fixed at create from its own exchange
// (`expiresLocalAt`, our clock: ServiceClock.judgeCreated). That decides for the bill: its countdown,
// whether it may be handed out again. The service-wide estimate (ServiceClock.now, the median of
// recent Date headers) may only LENGTHEN its life: it is withdrawn only when its own expiry and the
// estimate are both past (plus the grace), so an estimate that is off, ahead or behind, can neither
// withdraw it early nor make it look unpayable. Bills stored before `expiresLocalAt` was kept are
// judged by the estimate alone.
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
 * Past its own expiry by `graceMs`, and past expiredOn by `graceMs` on the service's clock as
 * estimated too: only then may the BFF ask the service to cancel a bill that it still calls pending.
 * The estimate can only put that off, never bring it forward.
 */
export function overdue(bill: Dated, time: ServiceTime, graceMs: number): boolean {
  const local = expiresAtLocal(bill, time);
  return local !== null && time.now() > local + graceMs && time.serviceNow() > bill.expiredOn! + graceMs;
}

/**
 * Still payable with at least `marginMs` to go by its own lifetime (the estimate only for a bill
 * stored without one): what a create may hand to a customer again instead of a new bill. An
 * estimate that is off never makes a payable bill look unpayable, so a reload never withdraws the
 * customer's bill to make another.
 */
export function payableFor(bill: Dated, time: ServiceTime, marginMs: number): boolean {
  const local = expiresAtLocal(bill, time);
  return local !== null && time.now() + marginMs < local;
}
