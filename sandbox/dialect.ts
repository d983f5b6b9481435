// How this sandbox spells what the spec does not show. The default is the sandbox's own choice
// (README); another dialect lets it play a service that chose differently, so the BFF can be
// tested against one configured only through its environment.
import { Code } from './envelope.js';
import { freshTimestamp, signBase64, signHex, canonicalText } from './signature.js';

/** `processing`: paid by the customer and being confirmed (the processingStep fault); not final. */
export type StatusKey = 'pending' | 'paid' | 'failed' | 'cancelled' | 'expired' | 'processing';
export const STATUS_KEYS: readonly StatusKey[] = ['pending', 'paid', 'failed', 'cancelled', 'expired', 'processing'];

/** Whether a bill in this state is final (`isFinal` of its records): all but pending and processing. */
export const isFinalStatus = (status: StatusKey): boolean => status !== 'pending' && status !== 'processing';

export type StatusCodes = Record<StatusKey, number>;

export interface SignInput {
  /** Upper case. */
  method: string;
  /** As received: `new URL(req.url).pathname`, mount prefix included. */
  path: string;
  /** Raw query without `?`; '' when none. */
  query: string;
  /** Exact body text; '' when none. */
  body: string;
  key: string;
  secret: string;
  /** The request's headers: a scheme may sign or carry what it needs in headers of its own (a timestamp). */
  headers: Headers;
  /** The sandbox's clock when the request arrived, unix ms: a scheme may refuse a stale timestamp. */
  now: number;
}

/** The expected signature (compared with the request's signHeader), or whether the request verified (an asymmetric scheme). */
export type SandboxSigner = (input: SignInput) => string | boolean | Promise<string | boolean>;

export interface Dialect {
  /** Envelope code of success. Error codes (1001…1500) stay the sandbox's. */
  okCode: number;
  statuses: StatusCodes;
  statusNames: Record<StatusKey, string>;
  /** Computes the expected Sign; default: the built-in hmac-sha256 hex of METHOD\nPATH\nQUERY\nBODY. */
  sign: SandboxSigner;
  /** The header the signature travels in (default `Sign`). */
  signHeader: string;
  /** A path with `{billId}` takes the id from the path and no body; otherwise the body is `{"billId"}`. */
  cancel: { method: string; path: string };
  /** The body is the customer's information; the answer's data is `{[idField]: customerId}`. */
  bind: { method: string; path: string; idField: string };
}

/** What createSandbox's `dialect` option takes: any part of a Dialect, status codes and names one by one. */
export type DialectOptions = Partial<Omit<Dialect, 'statuses' | 'statusNames'>> & {
  statuses?: Partial<StatusCodes>;
  statusNames?: Partial<Record<StatusKey, string>>;
};

export const SANDBOX_SIGNERS: Readonly<Record<string, SandboxSigner>> = {
  'hmac-sha256': (i) => signHex(i.secret, canonicalText(i.method, i.path, i.query, i.body)),
  'hmac-sha256-base64': (i) => signBase64(i.secret, canonicalText(i.method, i.path, i.query, i.body)),
  // X-Timestamp (ISO 8601) within five minutes of the sandbox's clock, and signed: METHOD\nPATH\nQUERY\nTIMESTAMP\nBODY.
  'hmac-sha256-timestamped': (i) => {
    const stamp = freshTimestamp(i.headers, i.now);
    return stamp !== null && signHex(i.secret, `${i.method.toUpperCase()}\n${i.path}\n${i.query}\n${stamp}\n${i.body}`);
  },
};

export const DEFAULT_DIALECT: Readonly<Dialect> = Object.freeze({
  okCode: Code.ok,
  statuses: { pending: 1, paid: 2, failed: 3, cancelled: 4, expired: 5, processing: 6 },
  statusNames: { pending: 'Pending Payment', paid: 'Paid', failed: 'Failed', cancelled: 'Cancelled', expired: 'Expired', processing: 'Processing' },
  sign: SANDBOX_SIGNERS['hmac-sha256']!,
  signHeader: 'Sign',
  cancel: { method: 'POST', path: '/v1/bill/cancel' },
  bind: { method: 'POST', path: '/v1/customer/bind', idField: 'customerId' },
});

/** The operations whose routes are fixed, so a dialect's cancel or bind must not take their place. */
export const FIXED_ROUTES: readonly { method: string; path: string }[] = [
  { method: 'POST', path: '/v1/bill/create' },
  { method: 'POST', path: '/v1/bills' },
  { method: 'GET', path: '/v1/bill/requery' },
];

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const RESERVED = /^\/(?:pay|_control)(?:\/|$)/;
const PATH = /^(?:\/(?:[A-Za-z0-9._~-]+|\{billId\}))+$/;

function bad(message: string): never {
  throw new TypeError(`dialect.${message}`);
}

function route(what: 'cancel' | 'bind', method: unknown, path: unknown): { method: string; path: string } {
  const m = typeof method === 'string' ? method.trim().toUpperCase() : '';
  if (!METHODS.has(m)) bad(`${what}.method must be one of ${[...METHODS].join(', ')}, got ${JSON.stringify(method)}`);
  const p = typeof path === 'string' ? path.trim() : '';
  if (!PATH.test(p)) bad(`${what}.path must be like /v2/bills or /v2/bills/{billId}, got ${JSON.stringify(path)}`);
  if (RESERVED.test(p)) bad(`${what}.path cannot be under /pay or /_control, got ${JSON.stringify(path)}`);
  const ids = p.split('{billId}').length - 1;
  if (what === 'bind' && ids > 0) bad('bind.path cannot hold {billId}');
  if (ids > 1) bad('cancel.path may hold {billId} once');
  // Without {billId} in the path the id travels in a JSON body, which a GET cannot carry.
  if (ids === 0 && m === 'GET') bad(`${what}.method GET carries no body: put {billId} in the path or use another method`);
  return { method: m, path: p };
}

/** The full dialect: defaults filled in, every part checked; throws TypeError when inconsistent. */
export function resolveDialect(partial: DialectOptions = {}): Dialect {
  const d = DEFAULT_DIALECT;
  const okCode = partial.okCode ?? d.okCode;
  if (!Number.isSafeInteger(okCode)) bad(`okCode must be a whole number, got ${okCode}`);
  if ((Object.values(Code) as number[]).some((c) => c !== Code.ok && c === okCode)) {
    bad(`okCode ${okCode} is one of the sandbox's error codes`);
  }

  const statuses: StatusCodes = { ...d.statuses, ...partial.statuses };
  for (const k of STATUS_KEYS) {
    if (!Number.isSafeInteger(statuses[k])) bad(`statuses.${k} must be a whole number, got ${statuses[k]}`);
  }
  if (new Set(STATUS_KEYS.map((k) => statuses[k])).size !== STATUS_KEYS.length) {
    bad(`statuses must be six different codes, got ${STATUS_KEYS.map((k) => `${k}=${statuses[k]}`).join(',')}`);
  }
  const statusNames: Record<StatusKey, string> = { ...d.statusNames, ...partial.statusNames };

  const sign = partial.sign ?? d.sign;
  if (typeof sign !== 'function') bad('sign must be a function');
  const signHeader = partial.signHeader ?? d.signHeader;
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(signHeader)) bad(`signHeader must be a header name, got ${JSON.stringify(signHeader)}`);

  const cancelIn = { ...d.cancel, ...partial.cancel };
  const cancel = route('cancel', cancelIn.method, cancelIn.path);
  const bindIn = { ...d.bind, ...partial.bind };
  const bind = { ...route('bind', bindIn.method, bindIn.path), idField: bindIn.idField };
  if (typeof bind.idField !== 'string' || bind.idField.trim() === '') bad('bind.idField must be a non-empty name');

  const taken = [...FIXED_ROUTES, cancel];
  for (const [what, r] of [['cancel', cancel], ['bind', bind]] as const) {
    const clash = taken.find((t) => t !== r && t.method === r.method && t.path === r.path);
    if (clash) bad(`${what} cannot be ${r.method} ${r.path}: another operation answers there`);
  }
  return { okCode, statuses, statusNames, sign, signHeader, cancel, bind };
}

/** `{billId}` → `:billId`, the router's spelling. */
export function routePattern(path: string): string {
  return path.replace('{billId}', ':billId');
}
