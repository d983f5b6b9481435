// Binding a customer is "a one-time step" (spec 4.5): the BFF keeps the merchant's key → the
// service's id, and a key bound before is answered from the store without calling the service.
// Concurrent binds of one key call the service once: in this process they share one promise; across
// processes sharing the store, one holds a leased claim and the others wait for its answer.
import type { Logger } from '../../log.js';
import type { BoundCustomer, CustomerStore } from '../../store/types.js';
import type { BillApi, BindCustomerInput } from '../../upstream/types.js';
import { CheckoutError } from '../errors.js';

export interface BindResult {
  customer: BoundCustomer;
  /** True when this call reached the service; false when the key was bound already (or by a concurrent call). */
  calledService: boolean;
}

export interface CustomerBinder {
  /** The service's id for `customerKey`, binding it with `input` the first time only. */
  bind(customerKey: string, input: BindCustomerInput): Promise<BindResult>;
}

export interface CustomerBinderOptions {
  store: CustomerStore;
  upstream: Pick<BillApi, 'bindCustomer'>;
  now: () => number;
  log: Logger;
  /** How long a claim keeps other processes waiting, ms: longer than a bind call can take. */
  leaseMs: number;
  /** A bind another process holds is looked at again in steps of this, ms (default 50). */
  waitStepMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export function createCustomerBinder(options: CustomerBinderOptions): CustomerBinder {
  const { store, upstream, now, log, leaseMs } = options;
  const waitStepMs = options.waitStepMs ?? 50;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const inFlight = new Map<string, Promise<BindResult>>();

  async function bindOnce(customerKey: string, input: BindCustomerInput): Promise<BindResult> {
    const waits = Math.ceil(leaseMs / waitStepMs) + 1;
    for (let attempt = 0; ; attempt++) {
      const claim = await store.claimCustomerBind(customerKey, now(), leaseMs);
      if (claim.kind === 'bound') return { customer: claim.customer, calledService: false };
      if (claim.kind === 'claimed') {
        let customerId: string;
        try {
          customerId = (await upstream.bindCustomer(input)).customerId;
        } catch (error) {
          // If the service made an id before failing, the next bind makes another: the spec shows no way to look one up.
          await store.releaseCustomerBind(customerKey).catch((e: unknown) => log.warn('releasing a customer bind claim failed', { error: e }));
          throw error;
        }
        const customer = await store.completeCustomerBind(customerKey, customerId, now());
        return { customer, calledService: true };
      }
      if (attempt >= waits) {
        throw new CheckoutError('conflict', 'bind_in_progress', 'Another request is binding this customer; try again shortly.', 1);
      }
      await sleep(waitStepMs);
    }
  }

  return {
    bind(customerKey, input) {
      const running = inFlight.get(customerKey);
      if (running) return running.then((r) => ({ ...r, calledService: false }));
      const run = bindOnce(customerKey, input).finally(() => inFlight.delete(customerKey));
      inFlight.set(customerKey, run);
      return run;
    },
  };
}
