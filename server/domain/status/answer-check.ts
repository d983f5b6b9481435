// No answer of the service is believed unchecked: a create or requery answer that names another
// bill, another reference, another amount or another currency than we asked for or stored is not
// applied (DESIGN rule 8). These say what differs, or null when the answer fits.
import { compareDecimal } from '../../../contract/decimal.js';
import type { StoredBill } from '../../store/types.js';
import type { CreatedBill, StatusRecord } from '../../upstream/types.js';

export interface Mismatch {
  field: 'billId' | 'merchantReference' | 'billAmount' | 'currency';
  expected: string;
  got: string;
}

/** What a create answer must echo: our reference and amount, and the currency when one is expected. */
export interface CreateExpectation {
  merchantReference: string;
  amount: string;
  currency: string | null;
}

export function createMismatch(created: CreatedBill, expected: CreateExpectation): Mismatch | null {
  if (created.merchantReference !== expected.merchantReference) {
    return { field: 'merchantReference', expected: expected.merchantReference, got: created.merchantReference };
  }
  if (compareDecimal(created.billAmount, expected.amount) !== 0) {
    return { field: 'billAmount', expected: expected.amount, got: created.billAmount };
  }
  if (expected.currency !== null && created.currency.toUpperCase() !== expected.currency.toUpperCase()) {
    return { field: 'currency', expected: expected.currency, got: created.currency };
  }
  return null;
}

/**
 * The merchantReference the service knows a stored bill by: a second orphan of one create is kept
 * as `<reference>.<n>` (Store.recordOrphan), under the reference the create sent.
 */
export const serviceReference = (stored: string): string => stored.replace(/\.\d+$/, '');

/** A requery answer must be about the stored bill: its id, our reference, its amount and currency. */
export function requeryMismatch(record: StatusRecord, bill: StoredBill & { billId: string }): Mismatch | null {
  if (record.billId !== bill.billId) return { field: 'billId', expected: bill.billId, got: record.billId };
  const reference = serviceReference(bill.merchantReference);
  if (record.merchantReference !== reference) {
    return { field: 'merchantReference', expected: reference, got: record.merchantReference };
  }
  if (compareDecimal(record.billAmount, bill.amount) !== 0) return { field: 'billAmount', expected: bill.amount, got: record.billAmount };
  if (bill.currency !== null && record.currency !== bill.currency) return { field: 'currency', expected: bill.currency, got: record.currency };
  return null;
}
