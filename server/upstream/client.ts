// The typed client of the bill payment service: one method per operation of spec section 4.
import type { z } from 'zod';
import { isDecimal, toDecimal } from '../../contract/decimal.js';
import {
  BillApiConfigError, BillApiHttpError, BillApiRejectedError, BillApiResponseError, type BillApiError, type BillOperation,
} from './errors.js';
import { createdAnswerSchema, expiredOnProblem, issuePath, listResultSchema, statusRecordSchema } from './schemas.js';
import { createBudget, priorityNow, type Budget, type PriorityOf, type Turn } from './budget.js';
import { createServiceClock, type ClockContradiction, type ServiceClock } from './service-clock.js';
import { sha256Hex } from './signing-keys.js';
import { budgetWait, createTransport, defaultSleep, type Answer, type RequestSpec } from './transport.js';
import type {
  BillApi, BindCustomerInput, BindCustomerResult, CallOptions, CreateBillInput, CreatedBill, HttpClient, ListBillsInput,
  ListBillsResult, Signer, StatusRecord, UpstreamConfig,
} from './types.js';

export interface BillApiOptions {
  signer: Signer;
  /** First page index of list (BILL_PAGE_BASE); used by findByMerchantReference. */
  pageBase: 0 | 1;
  /** How requests reach the service (default: the global fetch). */
  http?: HttpClient;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Backoff before retry n (from 0) is random() × min(maxBackoffMs, baseBackoffMs × 2^n). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** findByMerchantReference: most pages read (the page size is config.pageSize, halved by refusals). */
  findMaxPages?: number;
  /** The budget toward the service (default: one of this client's own, from config.maxRps). */
  budget?: Budget;
  /** The service's clock (default: one of this client's own). */
  clock?: ServiceClock;
  now?: () => number;
  /**
   * Told when a requery's record is dated after the service's time as estimated (ServiceClock.observeRecord):
   * the service's records or its Date headers are wrong. For an alert; nothing is changed by it.
   */
  onClockContradiction?: (contradiction: ClockContradiction & { billId: string }) => void;
}

/** Words with which a service refuses a page for its size; an empty message says nothing either way. */
const SIZE_WORDS = /\b(size|page|paging|limit|max(imum)?|too (many|large|big)|per.?page|rows|count)\b/i;
const aboutSize = (message: string): boolean => message.trim() === '' || SIZE_WORDS.test(message);

/** A JSON number literal: what may be sent as-is. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

function amountLiteral(amount: string): string {
  const text = typeof amount === 'string' ? amount.trim() : '';
  if (JSON_NUMBER.test(text)) return text;
  if (isDecimal(text)) return toDecimal(text);
  throw new TypeError(`createBill: amount must be decimal text such as "12.50", got ${JSON.stringify(amount)}`);
}

/** A create's request id (SignInput.requestId): 32 hex digits of SHA-256 of its merchantReference. */
export async function referenceRequestId(merchantReference: string): Promise<string> {
  return (await sha256Hex(`create ${merchantReference}`)).slice(0, 32);
}

function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function cancelBody(template: string | null, billId: string): string | null {
  return template === null ? null : template.replaceAll('{billId}', jsonEscaped(billId));
}

function checkConfig(config: UpstreamConfig): void {
  try {
    new URL(config.baseUrl);
  } catch {
    throw new BillApiConfigError(`BILL_API_BASE_URL must be an absolute http(s) URL, got "${config.baseUrl}"`);
  }
  const sample = cancelBody(config.cancel.body, 'sample-"bill"-id');
  if (sample !== null) {
    try {
      JSON.parse(sample);
    } catch {
      throw new BillApiConfigError(`BILL_CANCEL_BODY must be a JSON template such as {"billId":"{billId}"} (or "none" for no body), got ${config.cancel.body}`);
    }
  }
}

/**
 * Where a budget of a shared limit starts, before the app has counted the live instances: half of
 * it. A second instance joining a running one then sends no more than its share, and one alone
 * holds back only until the first count (the app awaits it before serving).
 */
export function startingShare(sharedMaxRps: number | null): number | null {
  return sharedMaxRps === null ? null : sharedMaxRps / 2;
}

export function createBillApi(config: UpstreamConfig, options: BillApiOptions): BillApi {
  checkConfig(config);
  const now = options.now ?? Date.now;
  const budget = options.budget ?? createBudget({ maxRps: config.maxRps ?? startingShare(config.sharedMaxRps ?? null), maxRpsByOperation: config.maxRpsByOperation, now });
  const clock = options.clock ?? createServiceClock({ now, ...(config.minLifetimeMs !== undefined ? { minLifetimeMs: config.minLifetimeMs } : {}) });
  const transport = createTransport(config, {
    budget,
    clock,
    signer: options.signer,
    http: options.http ?? ((url, request) => fetch(url, request)),
    sleep: options.sleep ?? defaultSleep,
    random: options.random ?? Math.random,
    baseBackoffMs: options.baseBackoffMs ?? 250,
    maxBackoffMs: options.maxBackoffMs ?? 4000,
  });
  /** Who waits on a call, and how long it may wait for its turn. */
  const turnOf = (call?: CallOptions): { priority: PriorityOf; maxWaitMs: number } => {
    const priority = call?.priority ?? 'customer';
    // Someone waits on news and customer calls (a callback's sender, a customer): a turn that would
    // take longer than a timeout fails like one, and they try again. A refresh or the reconciler
    // waits up to a minute (the longest pause obeyed): what it would learn later is asked again anyway.
    const urgent = ['news', 'customer'].includes(priorityNow(priority));
    return { priority, maxWaitMs: call?.maxWaitMs ?? (urgent ? config.timeoutMs : 60_000) };
  };
  /** The request with the caller's turn in the budget. */
  const send = (spec: Omit<RequestSpec, 'priority' | 'maxWaitMs'>, call?: CallOptions): Promise<Answer> =>
    transport({ ...spec, ...turnOf(call), ...(call?.turn ? { turn: call.turn } : {}) }, call?.signal);
  // The size our own list requests ask for: BILL_PAGE_SIZE, halved (and kept so) whenever the
  // service refuses a page of it, since a maximum page size is one more thing the spec does not show.
  let pageSize = Math.max(1, config.pageSize);
  const findMaxPages = options.findMaxPages ?? 20;

  function read<S extends z.ZodType>(schema: S, answer: Answer, operation: BillOperation): z.output<S> {
    const parsed = schema.safeParse(answer.data);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const field = issuePath(issue?.path ?? []);
    const unknown = operation === 'create';
    throw new BillApiResponseError(
      `Bill API ${operation}: the answer's ${field} is not as the spec describes (${issue?.message ?? 'invalid'}).` +
      (unknown ? ' The bill was probably created: settle it with findByMerchantReference before creating again.' : ''),
      { operation, retryable: false, outcomeUnknown: unknown, httpStatus: answer.httpStatus, field },
    );
  }

  /**
   * A refusal of a list request that asked `size` rows, plausibly for its size (the service may allow
   * fewer): a 4xx whose words name the page or its size, or that names nothing (a bare 400 or 413).
   * A refusal that names something else (a filter, a sort) is not about size. Auth and load refusals are other errors.
   */
  const refusedForSize = (error: unknown, size: number): error is BillApiError => {
    if (size <= 1) return false;
    if (error instanceof BillApiRejectedError && !error.retryable) return aboutSize(error.serviceMessage);
    return error instanceof BillApiHttpError && (error.httpStatus === 400 || error.httpStatus === 413 || error.httpStatus === 422);
  };

  /** One page of our own listing at `pageSize` rows; a refusal halves the size until one is taken. */
  async function ownPage(filters: ListBillsInput['filters'], page: number, call?: CallOptions): Promise<{ result: ListBillsResult; size: number }> {
    for (;;) {
      const size = pageSize;
      try {
        return { result: await list({ filters, paging: { index: options.pageBase + page, size } }, 'findByMerchantReference', call), size };
      } catch (error) {
        if (!refusedForSize(error, size)) throw error;
        pageSize = Math.min(pageSize, Math.max(1, size >> 1));
      }
    }
  }

  async function list(input: ListBillsInput, operation: BillOperation, call?: CallOptions): Promise<ListBillsResult> {
    const body: ListBillsInput = {};
    if (input.filters) body.filters = input.filters;
    if (input.paging) body.paging = input.paging;
    if (input.sort) body.sort = input.sort;
    const answer = await send({ operation, method: 'POST', path: '/v1/bills', body: JSON.stringify(body), retry: true }, call);
    return read(listResultSchema, answer, operation);
  }

  return {
    budget,
    clock,
    reserveTurn(operation: BillOperation, callOptions?: CallOptions): Promise<Turn> {
      const { priority, maxWaitMs } = turnOf(callOptions);
      return budgetWait({ operation, maxWaitMs }, callOptions?.signal, (takeOptions) => budget.reserve(operation, priority, takeOptions));
    },
    async createBill(input: CreateBillInput, callOptions?: CallOptions): Promise<CreatedBill> {
      let body = `{"amount":${amountLiteral(input.amount)}`;
      if (input.merchantReference !== undefined) body += `,"merchantReference":${JSON.stringify(input.merchantReference)}`;
      body += `,"callbackUrl":${JSON.stringify(input.callbackUrl)},"redirectUrl":${JSON.stringify(input.redirectUrl)}}`;
      // The same reference, the same request id: a create sent again is the same call to a service that deduplicates.
      const requestId = input.merchantReference === undefined ? undefined : await referenceRequestId(input.merchantReference);
      const answer = await send({
        operation: 'create', method: 'POST', path: '/v1/bill/create', body, retry: false, ...(requestId ? { requestId } : {}),
      }, callOptions);
      // Any other member not as the spec says: the outcome is unknown (read). expiredOn is judged apart:
      // the bill it names exists at the service whatever its expiry, and is the caller's to withdraw.
      const created = read(createdAnswerSchema, answer, 'create');
      const invalid = (reason: string) => new BillApiResponseError(
        `Bill API create: the answer's data.expiredOn cannot be a bill's expiry (${reason}; expected unix milliseconds at least a minute and at most a year after the service's time). ` +
        `The service made bill ${JSON.stringify(created.billId)}: withdraw it with cancelBill; no bill of this answer is used.`,
        { operation: 'create', retryable: false, httpStatus: answer.httpStatus, field: 'data.expiredOn', madeBillId: created.billId },
      );
      const problem = expiredOnProblem(created.expiredOn);
      if (problem !== null) throw invalid(problem);
      const expiredOn = created.expiredOn as number;
      const timing = clock.judgeCreated(expiredOn, { dateHeader: answer.dateHeader, sentAt: answer.sentAt, receivedAt: answer.receivedAt });
      if (!timing.valid) throw invalid(timing.reason);
      return { ...created, expiredOn, expiresLocalAt: timing.expiresLocalAt, clockDisagreed: timing.disagreed };
    },

    listBills(input: ListBillsInput, callOptions?: CallOptions): Promise<ListBillsResult> {
      return list(input, 'list', callOptions);
    },

    async findByMerchantReference(merchantReference: string, callOptions?: CallOptions): Promise<StatusRecord[]> {
      const found = new Map<string, StatusRecord>();
      const filters = [{ name: 'merchantReference', value: merchantReference, matchType: 'equal' as const }];
      let received = 0;
      let firstSize: number | null = null;
      for (let page = 0; page < findMaxPages; page++) {
        const { result: { lists, total }, size } = await ownPage(filters, page, callOptions);
        firstSize ??= size;
        if (size !== firstSize) {
          // Refused a later page at the first one's size: read again from the first page at the new
          // size, so that no row falls between pages of two sizes (rows already found are kept once).
          firstSize = size;
          page = -1;
          received = 0;
          continue;
        }
        // Kept even if the service's `equal` were looser than ours; duplicates come from paging a moving list.
        for (const record of lists) if (record.merchantReference === merchantReference) found.set(record.billId, record);
        received += lists.length;
        // Counting what arrived, not pages × size, also ends right when the service caps the page size lower.
        if (lists.length === 0 || received >= total) break;
      }
      return [...found.values()];
    },

    async requeryBill(billId: string, callOptions?: CallOptions): Promise<StatusRecord> {
      const path = `/v1/bill/requery?billId=${encodeURIComponent(billId)}`;
      const answer = await send({ operation: 'requery', method: 'GET', path, body: null, retry: callOptions?.retry ?? true }, callOptions);
      const record = read(statusRecordSchema, answer, 'requery');
      // Never an input to the clock: a record dated after the service's time as estimated is reported.
      const check = clock.observeRecord(record.dateTime, answer.receivedAt, billId);
      if (check.contradicts) {
        try {
          options.onClockContradiction?.({ billId, dateTime: record.dateTime, receivedAt: answer.receivedAt, aheadMs: check.aheadMs });
        } catch {
          // The hook's failure is its own: the record stands.
        }
      }
      return record;
    },

    async cancelBill(billId: string, callOptions?: CallOptions): Promise<void> {
      const { method, path, body } = config.cancel;
      await send({
        operation: 'cancel', method, path: path.replaceAll('{billId}', encodeURIComponent(billId)),
        body: cancelBody(body, billId), retry: false, emptyOk: true,
      }, callOptions);
    },

    async bindCustomer(input: BindCustomerInput, callOptions?: CallOptions): Promise<BindCustomerResult> {
      const { method, path, idField } = config.bind;
      const answer = await send({ operation: 'bind', method, path, body: JSON.stringify(input), retry: false }, callOptions);
      const data = answer.data;
      const id = typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[idField] : undefined;
      if ((typeof id !== 'string' || id === '') && typeof id !== 'number') {
        throw new BillApiResponseError(
          `Bill API bind: the answer has no customer identifier at data.${idField}. Set BILL_BIND_ID_FIELD to the member of data that holds it.`,
          { operation: 'bind', retryable: false, httpStatus: answer.httpStatus, field: `data.${idField}` },
        );
      }
      return { customerId: String(id), data };
    },
  };
}
