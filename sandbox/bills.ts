// The in-memory bill book: statuses, transitions and expiry.
import { multiplyDecimal } from '../contract/decimal.js';
import { isFinalStatus, type Dialect, type StatusKey } from './dialect.js';
import { Code, SandboxError } from './envelope.js';
import { digits, randomToken } from './ids.js';
import type { StatusRecordWire } from './types.js';

/** What a move changes, from `updatedAt` on. */
export interface BillState {
  status: StatusKey;
  updatedAt: number;
  paymentReference: string;
}

export interface Bill {
  billId: string;
  merchantReference: string;
  requestReference: string;
  paymentReference: string;
  /** Canonical decimal text. */
  amount: string;
  requireGCAmount: string;
  currency: string;
  /** The state; its code and name on the wire come from the dialect. */
  status: StatusKey;
  createdAt: number;
  updatedAt: number;
  expiredOn: number;
  callbackUrl: string;
  redirectUrl: string;
  /**
   * Every state the bill has been in, oldest first, the last one its state now (for replicaLagMs).
   * Only a pending or processing bill moves, so it holds three states at most.
   */
  history: BillState[];
}

export interface NewBill {
  amount: string;
  merchantReference: string | null;
  callbackUrl: string;
  redirectUrl: string;
}

export interface BillBookOptions {
  now: () => number;
  random: () => number;
  lifetimeMs: number;
  currency: string;
  gcRate: string;
  statusNames: Record<StatusKey, string>;
  /** The `processingStep` fault: a payment moves a pending bill to processing, not paid; `confirm` pays it. */
  processingStep: () => boolean;
  /** Called on every move to a final status, after the bill is updated. */
  onFinal: (bill: Bill) => void;
}

export function statusRecord(
  bill: Bill, dialect: Pick<Dialect, 'statuses' | 'statusNames'>, dateTime: 'updated' | 'created' = 'updated',
): StatusRecordWire {
  return {
    billId: bill.billId,
    merchantReference: bill.merchantReference,
    requestReference: bill.requestReference,
    paymentReference: bill.paymentReference,
    billAmount: bill.amount,
    currency: bill.currency,
    status: dialect.statuses[bill.status],
    statusName: dialect.statusNames[bill.status],
    isFinal: isFinalStatus(bill.status),
    dateTime: dateTime === 'created' ? bill.createdAt : bill.updatedAt,
  };
}

function notFound(): never {
  throw new SandboxError(Code.notFound, 'Bill not found');
}

/**
 * The bill in the state it was in at `at` (a copy), or null when it did not exist yet. An expiry
 * is dated `expiredOn`, so a bill whose expiry passed since `at` is still pending there.
 */
function asOf(bill: Bill, at: number): Bill | null {
  // The first state is dated createdAt: none by `at` means the bill was not created yet.
  const state = bill.history.findLast((s) => s.updatedAt <= at);
  return state ? { ...bill, ...state } : null;
}

export class BillBook {
  readonly #bills = new Map<string, Bill>();
  constructor(private readonly o: BillBookOptions) {}

  create(input: NewBill): Bill {
    const now = this.o.now();
    const bill: Bill = {
      billId: `B${randomToken(12)}`,
      merchantReference: input.merchantReference ?? `SBX-${digits(this.o.random, 10)}`,
      requestReference: `RQ${digits(this.o.random, 12)}`,
      paymentReference: '',
      amount: input.amount,
      requireGCAmount: multiplyDecimal(input.amount, this.o.gcRate, 4),
      currency: this.o.currency,
      status: 'pending',
      createdAt: now,
      updatedAt: now,
      expiredOn: now + this.o.lifetimeMs,
      callbackUrl: input.callbackUrl,
      redirectUrl: input.redirectUrl,
      history: [{ status: 'pending', updatedAt: now, paymentReference: '' }],
    };
    this.#bills.set(bill.billId, bill);
    return bill;
  }

  /** The bill, expired first when its time is up; throws 1004 when unknown. */
  get(billId: string): Bill {
    const bill = this.#bills.get(billId);
    if (!bill) notFound();
    this.#expireIfDue(bill);
    return bill;
  }

  all(): Bill[] {
    this.sweep();
    return [...this.#bills.values()];
  }

  /**
   * The bill as a replica `lagMs` behind the clock has it: in the state it was in `lagMs` ago;
   * throws 1004 when unknown, or created less than `lagMs` ago.
   */
  replica(billId: string, lagMs: number): Bill {
    const bill = this.get(billId);
    if (lagMs === 0) return bill;
    return asOf(bill, this.o.now() - lagMs) ?? notFound();
  }

  /** Every bill a replica `lagMs` behind the clock has, each as it was `lagMs` ago. */
  replicaAll(lagMs: number): Bill[] {
    const bills = this.all();
    if (lagMs === 0) return bills;
    const at = this.o.now() - lagMs;
    return bills.flatMap((bill) => asOf(bill, at) ?? []);
  }

  sweep(): void {
    for (const bill of this.#bills.values()) this.#expireIfDue(bill);
  }

  clear(): void {
    this.#bills.clear();
  }

  /** Pays a pending bill; with the processingStep fault it is processing until `confirm`. */
  pay(billId: string): Bill {
    const bill = this.pending(billId);
    // No callback: the service calls back only on final statuses.
    if (this.o.processingStep()) return this.#move(bill, 'processing', this.o.now());
    return this.#paid(bill);
  }

  /** A processing bill's payment confirmed: paid, as `pay` makes it. */
  confirm(billId: string): Bill {
    return this.#paid(this.#inState(billId, 'processing'));
  }

  /** A pending bill declined, or a processing bill's payment refused: failed. */
  decline(billId: string): Bill {
    const bill = this.get(billId);
    return this.#finish(bill.status === 'processing' ? bill : this.pending(billId), 'failed', this.o.now());
  }

  cancel(billId: string): Bill {
    return this.#finish(this.pending(billId), 'cancelled', this.o.now());
  }

  expire(billId: string): Bill {
    const bill = this.pending(billId);
    bill.expiredOn = this.o.now();
    return this.#finish(bill, 'expired', bill.expiredOn);
  }

  /** The bill, which must be pending (as every move but confirm needs); throws 1004 when unknown, 1005 otherwise. */
  pending(billId: string): Bill {
    return this.#inState(billId, 'pending');
  }

  #inState(billId: string, status: StatusKey): Bill {
    const bill = this.get(billId);
    if (bill.status !== status) {
      throw new SandboxError(Code.notCancellable, `Bill is ${this.o.statusNames[bill.status]}, not ${this.o.statusNames[status]}`);
    }
    return bill;
  }

  #paid(bill: Bill): Bill {
    bill.paymentReference = `PY${digits(this.o.random, 12)}`;
    return this.#finish(bill, 'paid', this.o.now());
  }

  #expireIfDue(bill: Bill): void {
    if (bill.status === 'pending' && this.o.now() >= bill.expiredOn) {
      this.#finish(bill, 'expired', bill.expiredOn);
    }
  }

  #move(bill: Bill, status: StatusKey, at: number): Bill {
    bill.status = status;
    bill.updatedAt = at;
    bill.history.push({ status, updatedAt: at, paymentReference: bill.paymentReference });
    return bill;
  }

  #finish(bill: Bill, status: StatusKey, at: number): Bill {
    this.#move(bill, status, at);
    this.o.onFinal(bill);
    return bill;
  }
}
