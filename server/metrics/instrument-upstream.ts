// The upstream client, timed and counted per operation; and whether the service answered lately,
// for /readyz.
import {
  BillApiAbortError, BillApiAuthError, BillApiHttpError, BillApiNetworkError, BillApiRejectedError, BillApiResponseError,
  BillApiSignerError, BillApiThrottledError, BillApiTimeoutError,
} from '../upstream/errors.js';
import type { BillOperation } from '../upstream/errors.js';
import type { BillApi } from '../upstream/types.js';
import type { Metrics, UpstreamErrorClass } from './metrics.js';

export interface InstrumentedUpstreamOptions {
  metrics: Pick<Metrics, 'upstreamCall'>;
  /** The app's clock, ms. */
  now: () => number;
  /** How long a network failure (or timeout) of the last call counts as the service unreachable, ms (default 30 s). */
  unreachableMs?: number;
}

export interface InstrumentedUpstream {
  api: BillApi;
  /**
   * False when the last call that finished failed for a network reason (no connection, or no
   * answer within the timeout) less than `unreachableMs` ago.
   */
  reachable(): boolean;
}

/** The class of an error of the upstream client; checked subclass first (a timeout is no network error). */
export function upstreamErrorClass(error: unknown): UpstreamErrorClass {
  if (error instanceof BillApiTimeoutError) return 'timeout';
  if (error instanceof BillApiNetworkError) return 'network';
  if (error instanceof BillApiAbortError) return 'aborted';
  if (error instanceof BillApiThrottledError) return 'throttled';
  if (error instanceof BillApiSignerError) return 'signer';
  if (error instanceof BillApiAuthError) return 'auth';
  if (error instanceof BillApiRejectedError) return 'rejected';
  if (error instanceof BillApiHttpError) return 'http';
  if (error instanceof BillApiResponseError) return 'response';
  return 'other';
}

/** Classes of errors that carry an answer of the service: it is reachable, whatever it said. */
const ANSWERED = new Set<UpstreamErrorClass>(['http', 'rejected', 'auth', 'response', 'throttled']);

export function instrumentUpstream(api: BillApi, options: InstrumentedUpstreamOptions): InstrumentedUpstream {
  const { metrics, now } = options;
  const unreachableMs = options.unreachableMs ?? 30_000;
  let failedAt: number | null = null;

  function timed<A extends unknown[], R>(operation: BillOperation, call: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args) => {
      const started = performance.now();
      try {
        const result = await call(...args);
        metrics.upstreamCall(operation, (performance.now() - started) / 1000, null);
        failedAt = null;
        return result;
      } catch (error) {
        const errorClass = upstreamErrorClass(error);
        metrics.upstreamCall(operation, (performance.now() - started) / 1000, errorClass);
        if (errorClass === 'network' || errorClass === 'timeout') failedAt = now();
        else if (ANSWERED.has(errorClass)) failedAt = null;
        throw error;
      }
    };
  }

  return {
    api: {
      createBill: timed('create', api.createBill.bind(api)),
      listBills: timed('list', api.listBills.bind(api)),
      findByMerchantReference: timed('findByMerchantReference', api.findByMerchantReference.bind(api)),
      requeryBill: timed('requery', api.requeryBill.bind(api)),
      cancelBill: timed('cancel', api.cancelBill.bind(api)),
      bindCustomer: timed('bind', api.bindCustomer.bind(api)),
      ...(api.reserveTurn ? { reserveTurn: api.reserveTurn.bind(api) } : {}),
      ...(api.budget ? { budget: api.budget } : {}),
      ...(api.clock ? { clock: api.clock } : {}),
    },
    reachable: () => failedAt === null || now() - failedAt >= unreachableMs,
  };
}
