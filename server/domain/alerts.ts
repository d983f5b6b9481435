// Alerts: things that must not happen and need a person (an answer of the service that contradicts
// what we asked or stored). Each is logged at error level with `alert: <kind>` and counted.
import type { LogFields, Logger } from '../log.js';

export type AlertKind = 'create_answer_mismatch' | 'requery_answer_mismatch';

export interface Alerts {
  raise(kind: AlertKind, message: string, fields?: LogFields): void;
  /** How many of each kind since start. */
  counts(): Record<AlertKind, number>;
}

/** `onRaise`: told of each alert, by kind (metrics). */
export function createAlerts(log: Logger, onRaise?: (kind: AlertKind) => void): Alerts {
  const counts: Record<AlertKind, number> = { create_answer_mismatch: 0, requery_answer_mismatch: 0 };
  return {
    raise(kind, message, fields) {
      counts[kind]++;
      onRaise?.(kind);
      log.error(`alert: ${message}`, { alert: kind, ...fields });
    },
    counts: () => ({ ...counts }),
  };
}
