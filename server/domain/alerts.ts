// Alerts: things that must not happen and need a person (an answer of the service that contradicts
// what we asked or stored). Each is logged at error level with `alert: <kind>` and counted.
import type { LogFields, Logger } from '../log.js';

/**
 * `service_clock_disagrees`: a create answer's expiredOn contradicts the service's Date headers
 * (the bill's lifetime was used, not the headers: see ServiceClock). `create_settle_abandoned`: a
 * create of unknown outcome could not be settled within the bound, and its order was released.
 * `orphan_paid`: a bill the service made for a create whose answer never arrived was paid (a
 * duplicate payment to refund). `bill_lost_at_service`: the service answered "not found" for a bill
 * it had made. `service_record_ahead`: a status record is dated after the service's time as estimated
 * (its records or its Date headers are wrong); never an input to any clock, raised once per bill.
 */
export const ALERT_KINDS = [
  'create_answer_mismatch', 'requery_answer_mismatch', 'service_clock_disagrees', 'create_settle_abandoned', 'orphan_paid',
  'bill_lost_at_service', 'service_record_ahead',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export interface Alerts {
  raise(kind: AlertKind, message: string, fields?: LogFields): void;
  /** How many of each kind since start. */
  counts(): Record<AlertKind, number>;
}

/** `onRaise`: told of each alert, by kind (metrics). */
export function createAlerts(log: Logger, onRaise?: (kind: AlertKind) => void): Alerts {
  const counts = Object.fromEntries(ALERT_KINDS.map((kind) => [kind, 0])) as Record<AlertKind, number>;
  return {
    raise(kind, message, fields) {
      counts[kind]++;
      onRaise?.(kind);
      log.error(`alert: ${message}`, { alert: kind, ...fields });
    },
    counts: () => ({ ...counts }),
  };
}
