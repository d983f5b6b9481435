// The bill payment service's interface as the spec describes it (sections 2 and 4), and what the
// client needs to reach it. Amounts are exact decimal text here, whatever JSON type the service used.

import type { BillOperation } from './errors.js';
import type { ServiceBillRecord } from '../../contract/admin.js';
import type { Budget, PriorityOf, Turn } from './budget.js';
import type { ServiceClock } from './service-clock.js';

export type { ClockContradiction, CreateExchange, CreatedTiming, ExpirySource, RecordCheck } from './service-clock.js';

export interface OperationShape {
  /** HTTP method, upper case. */
  method: string;
  /** Path under the base URL; `{billId}` is replaced, URL-encoded. */
  path: string;
}

/** The service's own operations (spec section 4), as its limits would name them. */
export type ServiceOperation = 'create' | 'list' | 'requery' | 'cancel' | 'bind';

export interface UpstreamConfig {
  /** The service's `{base_url}`, path prefix kept, no trailing slash. */
  baseUrl: string;
  key: string;
  secret: string;
  /** A built-in signing scheme name or a path to an ES module (default export `sign`). */
  signer: string;
  /** Envelope `code` values that mean success. */
  okCodes: number[];
  /** Per-attempt timeout. */
  timeoutMs: number;
  /** Retries of requery and list after a network error, timeout or 5xx. */
  retries: number;
  /** The page size our own list requests ask for (BILL_PAGE_SIZE); a refusal halves it, and it stays so. */
  pageSize: number;
  /** Requests per second this process may send the service at most (BILL_API_MAX_RPS); null: learned from its 429s. */
  maxRps: number | null;
  /**
   * The service's whole limit, shared by the instances alive on one PostgreSQL
   * (BILL_API_SHARED_MAX_RPS; with maxRps null): the client's budget starts at half of it, and the
   * app sets it to the limit divided by the live instances (budget.setMaxRps). Null or absent: none.
   */
  sharedMaxRps?: number | null;
  /** Requests per second per operation of the service, where it documents them (BILL_API_MAX_RPS_BY_OPERATION). */
  maxRpsByOperation: Partial<Record<ServiceOperation, number>>;
  /** Cancel: method, path and a JSON body template in which `"{billId}"` is replaced. */
  cancel: OperationShape & { body: string | null };
  /** Bind customer: method and path; the body is the customer's information as given. */
  bind: OperationShape & { idField: string };
  /** The shortest lifetime a bill may have, ms (BILL_MIN_LIFETIME_MS): a create answer's expiredOn closer than this is refused. */
  minLifetimeMs?: number;
  /** How long an idle socket to the service is kept for the next call, ms (BILL_API_IDLE_SOCKET_MS; Node's client). */
  idleSocketMs?: number;
  /** The PEM private key of an asymmetric signing scheme (BILL_SIGNER_PRIVATE_KEY), or null. */
  privateKeyPem?: string | null;
  /** A file holding it (BILL_SIGNER_PRIVATE_KEY_FILE), read by the process entry, or null. */
  privateKeyFile?: string | null;
  /** The snap scheme's X-PARTNER-ID (BILL_SIGNER_PARTNER_ID; default the key), CHANNEL-ID (BILL_SIGNER_CHANNEL_ID) and token path (BILL_SIGNER_TOKEN_PATH). */
  partnerId?: string | null;
  channelId?: string | null;
  tokenPath?: string | null;
  /**
   * The service deduplicates a create by its request id (BILL_API_IDEMPOTENT_CREATE, SNAP's
   * X-EXTERNAL-ID): a create whose outcome is unknown is sent once more with the same id, and its
   * answer settles it.
   */
  idempotentCreate?: boolean;
}

/** Section 2.2: the bill as returned by create. */
export interface CreatedBillRecord {
  billId: string;
  billUrl: string;
  billAmount: string;
  requireGCAmount: string | null;
  currency: string;
  merchantReference: string;
  expiredOn: number;
}

/** A create's answer, with its expiry judged on our clock from its own exchange (ServiceClock.judgeCreated). */
export interface CreatedBill extends CreatedBillRecord {
  /**
   * Our clock's time at which the bill expires: expiredOn against its own answer's Date header (at
   * the latest the truth can be: never early, at most the round trip plus 1 s late), else our clock,
   * else the service-wide estimate (CreatedTiming.source says which).
   */
  expiresLocalAt: number;
  /** The answer's own Date header made the bill's lifetime implausible (under a minute, over a year): another source was used. */
  clockDisagreed: boolean;
}

/** Section 2.3: the status record of requery, list and callback (the admin list shows it as it is). */
export type StatusRecord = ServiceBillRecord;

/** Section 4.1 request. `amount` is decimal text; it is sent as a JSON number with the same digits. */
export interface CreateBillInput {
  amount: string;
  merchantReference?: string;
  callbackUrl: string;
  redirectUrl: string;
}

/** Section 4.2 request. `paging.index` is sent as given: callers apply `BILL_PAGE_BASE`. */
export interface ListBillsInput {
  filters?: { name: string; value: string; matchType: 'like' | 'equal' }[];
  paging?: { index: number; size: number };
  sort?: { name: string; order: 1 | -1 };
}

export interface ListBillsResult {
  lists: StatusRecord[];
  total: number;
}

/** Section 4.5: the customer's information is the merchant's; the service answers an identifier. */
export type BindCustomerInput = Record<string, unknown>;

export interface BindCustomerResult {
  customerId: string;
  /** The whole `data` of the service's answer, for fields this client does not know. */
  data: unknown;
}

/** What a signer is given (BILL_SIGNER). */
export interface SignInput extends SignBase {
  /** Which operation of the service this request is. */
  operation: BillOperation;
  /** This request's time on our clock, unix ms, and the same as ISO 8601 in UTC (`2026-11-28T09:07:14.123Z`): what a timestamp header carries. */
  timestampMs: number;
  timestamp: string;
  /** A fresh random value for this request (32 hex digits), new on every attempt. */
  nonce: string;
  /**
   * The id of this call (32 hex digits), the same on every attempt of it (a retried requery, say):
   * what a service that deduplicates by a request id (SNAP's X-EXTERNAL-ID) is sent. A create's is
   * derived from its merchantReference, so a create sent again for the same reference carries it too.
   */
  requestId: string;
  /**
   * Sends a request of the signer's own to the service (an access-token call, say): to this path
   * under the base URL, in this request's turn of the budget, under its timeout and HTTP client; never
   * signed and never retried here. A failure to get an answer rejects with a BillApiError (nothing of
   * the request being signed was sent); an answer of any status resolves.
   */
  send(request: SignerRequest): Promise<SignerAnswer>;
}

/** A request a signer sends itself (SignInput.send). */
export interface SignerRequest {
  method: string;
  /** Path under the base URL, query included, already encoded. */
  path: string;
  headers?: Readonly<Record<string, string>>;
  /** Exact body text, or none. */
  body?: string;
}

/** The answer to a SignerRequest, read whole. */
export interface SignerAnswer {
  status: number;
  headers: { get(name: string): string | null };
  text: string;
}

/** The request as the first signers saw it: what the built-in HMAC schemes sign. */
export interface SignBase {
  /** Upper case. */
  method: string;
  /** The path as sent, base-URL prefix included, without the query. */
  path: string;
  /** The query string without `?`, `''` when none. */
  query: string;
  /** The exact body text, `''` when none. */
  body: string;
  key: string;
  secret: string;
}

/**
 * What a signer returns: the `Sign` header's value, or headers to add to the request (any of them,
 * `Sign` among them or not; one named as a header the client sets, `Key` say, replaces it).
 */
export type SignResult = string | Readonly<Record<string, string>>;

export type Signer = (input: SignInput) => SignResult | Promise<SignResult>;

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  /** false: one attempt, even for an operation that is retried by default (requery, list). */
  retry?: boolean;
  /**
   * Who waits on the call, for its turn in the budget (default `customer`): a priority, an Urgency
   * (raised while the call waits, it moves up at once), or a function read again at each grant.
   */
  priority?: PriorityOf;
  /** The longest wait for a turn before BillApiThrottledError, ms (default BILL_API_TIMEOUT_MS for `news` and `customer`, else 60 s). */
  maxWaitMs?: number;
  /** A turn reserved for this call (BillApi.reserveTurn): its first attempt sends without waiting again. */
  turn?: Turn;
}

/** The typed client of the service: one method per operation. */
export interface BillApi {
  createBill(input: CreateBillInput, options?: CallOptions): Promise<CreatedBill>;
  listBills(input: ListBillsInput, options?: CallOptions): Promise<ListBillsResult>;
  /** Bills whose merchantReference equals `merchantReference`: settles a create of unknown outcome. */
  findByMerchantReference(merchantReference: string, options?: CallOptions): Promise<StatusRecord[]>;
  requeryBill(billId: string, options?: CallOptions): Promise<StatusRecord>;
  cancelBill(billId: string, options?: CallOptions): Promise<void>;
  bindCustomer(input: BindCustomerInput, options?: CallOptions): Promise<BindCustomerResult>;
  /**
   * Waits for a turn of `operation` in the budget, with the call's priority and longest wait, to hand
   * to the call later (`turn`); fails as the call would (BillApiThrottledError). Give back a turn that
   * no call used (`release`). Absent in test doubles.
   */
  reserveTurn?(operation: BillOperation, options?: CallOptions): Promise<Turn>;
  /** The budget every call takes its turn in (absent in test doubles). */
  readonly budget?: Budget;
  /** The service's clock as estimated from its answers (absent in test doubles). */
  readonly clock?: ServiceClock;
}

/** One request of the client: a JSON call with a text body; redirects are never followed. */
export interface HttpRequest {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal;
  redirect: 'manual';
}

/** What the client reads of an answer. */
export interface HttpResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/**
 * The client's one need of HTTP, narrow so that any implementation can be honest about it: the
 * global `fetch` is one, `nodeHttpClient()` (platform/node) another. A failure to get an answer
 * rejects with an error whose `cause` says why (a socket's error code), or with the signal's reason.
 */
export type HttpClient = (url: string, request: HttpRequest) => Promise<HttpResponse>;
