// Small doubles for the unit tests of the server's helpers: a stored bill, a log that keeps its lines.
import { createLogger, type Logger } from '../../../server/log.js';
import type { StoredBill } from '../../../server/store/types.js';

export const storedBill = (over: Partial<StoredBill> = {}): StoredBill => ({
  merchantReference: 'ref-1', createState: 'created', billId: 'B1', orderId: null, idempotencyKey: null, amount: '10', orderAmount: null,
  orderCurrency: null, duplicatePayment: false, token: 't', hookToken: 'h', billUrl: 'https://pay.example/B1', currency: 'USD',
  requireGCAmount: null, expiredOn: null, expiresLocalAt: null, earlyNewsAt: null, supersededAt: null, withdrawConfirmedAt: null, orphanedAt: null, lostAt: null, serviceId: null, status: 1,
  statusName: 'Pending Payment', isFinal: false, outcome: 'pending', dateTime: null, statusVersion: 1, checkedAt: null,
  finalReason: null, finalAt: null, createdAt: 0, updatedAt: 0, ...over,
});

export interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

/** A logger whose lines (parsed) are kept in `lines`. */
export function logLines(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  return { log: createLogger({ write: (line) => lines.push(JSON.parse(line) as LogLine), level: 'debug' }), lines };
}
