// Configuration from an environment record. Only the Node entry passes `process.env`; everything
// else receives a Config. Every item the spec marks "not shown" is here, with a default that
// matches the sandbox (docs/server.md, "What the spec does not show").
import type { ServiceOperation, UpstreamConfig } from './upstream/types.js';

export type { OperationShape, UpstreamConfig } from './upstream/types.js';

export interface StatusCodes {
  pending: number[];
  paid: number[];
  cancelled: number[];
  expired: number[];
  /**
   * In-between statuses (BILL_PROCESSING_STATUSES, default none): not final, the customer has paid
   * and the service is confirming. The outcome stays pending; such a bill is never withdrawn at expiry.
   */
  processing: number[];
}

export interface WebhookConfig {
  url: string;
  /** `whsec_` + base64 secret, per Standard Webhooks: the first of `secrets`. */
  secret: string;
  /**
   * Every secret that signs each notice (a rotation: the new one and the old one until the
   * merchant's receiver has the new one); the `webhook-signature` header carries one signature each.
   */
  secrets?: string[];
}

export interface Config {
  port: number;
  /** The address to listen on (HOST); null: every interface. */
  host: string | null;
  /** The BFF's outside URL, no trailing slash. */
  publicUrl: string;
  /** True when BILL_API_BASE_URL is unset: the sandbox is mounted at `/sandbox` and used. */
  embeddedSandbox: boolean;
  upstream: UpstreamConfig;
  statuses: StatusCodes;
  /** Envelope codes with which the service says it does not know a bill (BILL_NOT_FOUND_CODES); an envelope with HTTP 404 says so too. */
  notFoundCodes: number[];
  /** The longest bill lifetime to assume before one is seen, ms (BILL_MAX_LIFETIME_MS): bounds the settling of an unknown create. */
  maxLifetimeMs: number;
  /** First page index of the service's list (0 or 1). */
  pageBase: 0 | 1;
  databaseUrl: string;
  reconcileIntervalMs: number;
  /**
   * Requeries per second the reconciler sends at most (RECONCILE_MAX_RPS), within the budget; null:
   * half of BILL_API_MAX_RPS or of this instance's share of BILL_API_SHARED_MAX_RPS (or of the requery
   * limit, if lower) when set, else as the learning budget grants.
   */
  reconcileMaxRps: number | null;
  refreshWindowMs: number;
  /**
   * With PostgreSQL, how often (ms) each instance sweeps the bills whose status changed for the
   * changes never announced to it (their instance died between commit and NOTIFY); 0: off.
   */
  statusSweepMs: number;
  /** How long a pending bill past `expiredOn` keeps being requeried before it is called expired. */
  expiryGraceMs: number;
  allowedOrigins: string[];
  clientAmount: { min: string; max: string } | null;
  orderLookupUrl: string | null;
  returnUrl: string;
  /**
   * Where a return from another device than the one that started the bill goes (a phone that
   * scanned the QR code), with `device=other`; null: the BFF's own page tells it the outcome.
   */
  returnOtherDeviceUrl: string | null;
  adminToken: string | null;
  /** Verifies order tickets (ORDER_TICKET_SECRET); null: order creates only with the embedded sandbox or a resolveOrder hook (ticket-policy.ts). */
  orderTicketSecret: string | null;
  /** The currency bills must be in (BILL_CURRENCY); null: checked only against an order's own currency. */
  currency: string | null;
  /** NODE_ENV is `production`: the embedded sandbox and its controls are refused. */
  production: boolean;
  webhook: WebhookConfig | null;
  /** Creates allowed per client per minute. */
  createRateLimitPerMinute: number;
  /** Largest request body accepted, bytes. */
  bodyLimitBytes: number;
  /** Most concurrent SSE connections; beyond it, widgets are told to poll. */
  maxSseConnections: number;
  /** Most concurrent SSE connections of one client (when the app can tell clients apart). */
  maxSsePerClient: number;
  /** Reverse proxies in front of the BFF that append to X-Forwarded-For (0: clients connect directly). */
  trustedProxyHops: number;
  /**
   * How long an idle keep-alive connection is kept for the client's next request, ms
   * (KEEP_ALIVE_TIMEOUT_MS). Longer than the idle timeout of the load balancer or reverse proxy
   * that pools connections to the BFF: it closes first, and never sends a request on a connection
   * the BFF is closing (which it would answer 502; a browser sends a GET again). Used by serveBillCheckout.
   */
  keepAliveTimeoutMs: number;
  /** How long a merchant notice claimed by a process that died waits before another takes it. */
  noticeLeaseMs: number;
  /** Bearer token of GET /metrics (METRICS_TOKEN, at least 32 characters); null: /metrics answers 404. */
  metricsToken: string | null;
  /**
   * A second port on HOST that serves only GET /metrics, without a token (METRICS_PORT): an
   * operator's private port, never to be exposed. Null: none. Used by serveBillCheckout.
   */
  metricsPort: number | null;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Secrets a guess must not find: ADMIN_TOKEN, METRICS_TOKEN and ORDER_TICKET_SECRET. */
export const MIN_SECRET_LENGTH = 32;

/** `url` without its userinfo (`https://user:pw@host` → `https://host`), for logs and messages; text that is no URL loses anything like userinfo. */
export function withoutUserinfo(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
  } catch {
    return url.replace(/\/\/[^/@\s]*@/, '//');
  }
}

/** Every secret of the configuration: what logs and error bodies mask. */
export function configSecrets(config: Config): string[] {
  const list = [
    config.upstream.key, config.upstream.secret, config.upstream.privateKeyPem, ...(config.webhook?.secrets ?? [config.webhook?.secret]),
    config.adminToken, config.orderTicketSecret, config.metricsToken,
  ];
  return list.filter((s): s is string => typeof s === 'string' && s !== '');
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

function int(env: Env, name: string, fallback: number, min = 0): number {
  const v = text(env, name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v) || Number(v) < min) {
    throw new ConfigError(`${name} must be a whole number of at least ${min}, got "${v}"`);
  }
  return Number(v);
}

/** A positive number of requests per second, or null when unset. */
/** A positive number of requests per second, as text such as 10 or 0.5; null when it is not one. */
function positiveRate(value: string): number | null {
  const n = Number(value);
  return /^\d+(\.\d+)?$/.test(value) && n > 0 ? n : null;
}

/** A positive number of requests per second, or null when unset. */
function rate(env: Env, name: string): number | null {
  const value = text(env, name);
  if (value === undefined) return null;
  const n = positiveRate(value);
  if (n === null) throw new ConfigError(`${name} must be a positive number of requests per second such as 10 or 0.5, got "${value}"`);
  return n;
}

const SERVICE_OPERATIONS: readonly ServiceOperation[] = ['create', 'list', 'requery', 'cancel', 'bind'];

/** `requery=10,create=2`: the limits a service documents per operation; {} when unset. */
function ratesByOperation(env: Env, name: string): Partial<Record<ServiceOperation, number>> {
  const value = text(env, name);
  const rates: Partial<Record<ServiceOperation, number>> = {};
  if (value === undefined) return rates;
  for (const item of value.split(',').map((part) => part.trim()).filter(Boolean)) {
    const [operation, figure] = item.split('=').map((part) => part.trim());
    const known = SERVICE_OPERATIONS.find((op) => op === operation);
    const n = figure ? positiveRate(figure) : null;
    if (!known || n === null) {
      throw new ConfigError(`${name} must be operation=requests per second pairs such as requery=10,create=2 (operations: ${SERVICE_OPERATIONS.join(', ')}), got "${value}"`);
    }
    rates[known] = n;
  }
  return rates;
}

function codes(env: Env, name: string, fallback: number[]): number[] {
  const v = text(env, name);
  if (v === undefined) return fallback;
  const list = v.split(',').map((s) => s.trim()).filter(Boolean);
  if (list.length === 0 || list.some((s) => !/^-?\d+$/.test(s))) {
    throw new ConfigError(`${name} must be comma-separated whole numbers, got "${v}"`);
  }
  return list.map(Number);
}

/** The status lists; a code in-between (processing) and in another list too is refused. */
function statusCodes(env: Env): StatusCodes {
  const others = {
    pending: codes(env, 'BILL_PENDING_STATUSES', [1]),
    paid: codes(env, 'BILL_PAID_STATUSES', [2]),
    cancelled: codes(env, 'BILL_CANCELLED_STATUSES', [4]),
    expired: codes(env, 'BILL_EXPIRED_STATUSES', [5]),
  };
  const processing = codes(env, 'BILL_PROCESSING_STATUSES', []);
  for (const [kind, list] of Object.entries(others)) {
    const both = processing.find((code) => list.includes(code));
    if (both !== undefined) {
      throw new ConfigError(`BILL_PROCESSING_STATUSES and BILL_${kind.toUpperCase()}_STATUSES both hold ${both}: ` +
        `a status is either in-between (paid, being confirmed) or ${kind}; remove it from one of them`);
    }
  }
  return { ...others, processing };
}

/** `true`/`1` or `false`/`0`; the fallback when unset. */
function flag(env: Env, name: string, fallback: boolean): boolean {
  const v = text(env, name)?.toLowerCase();
  if (v === undefined) return fallback;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${v}"`);
}

function url(env: Env, name: string, fallback?: string): string | undefined {
  const v = text(env, name) ?? fallback;
  if (v === undefined) return undefined;
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${withoutUserinfo(v)}"`);
  }
  return v.replace(/\/+$/, '');
}

/** BILL_SIGNER_TOKEN_PATH: a path under the base URL, or null for the scheme's own. */
function tokenPath(env: Env): string | null {
  const v = text(env, 'BILL_SIGNER_TOKEN_PATH');
  if (v === undefined) return null;
  if (!/^\/[A-Za-z0-9._~/-]*$/.test(v)) throw new ConfigError(`BILL_SIGNER_TOKEN_PATH must be a path under BILL_API_BASE_URL such as /v1.0/access-token/b2b, got "${v}"`);
  return v;
}

const DECIMAL_TEXT = /^\d+(\.\d+)?$/;

function secret(env: Env, name: string, purpose: string): string | null {
  const v = text(env, name);
  if (v === undefined) return null;
  if (v.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(`${name} must be at least ${MIN_SECRET_LENGTH} characters (${purpose}); it has ${v.length}. ` +
      'Make one with: node -e "console.log(crypto.randomBytes(32).toString(\'base64url\'))"');
  }
  return v;
}

/**
 * `credentials`: what unset BILL_API_KEY and BILL_API_SECRET are, empty without. The entry that
 * mounts the sandbox (serveBillCheckout) passes its demo pair, so `npm start` works with no account.
 */
export function loadConfig(env: Env, credentials?: { key: string; secret: string }): Config {
  const port = int(env, 'PORT', 8787, 0);
  const publicUrl = url(env, 'PUBLIC_URL', `http://localhost:${port}`)!;
  const apiBase = url(env, 'BILL_API_BASE_URL');
  const embeddedSandbox = apiBase === undefined;
  const production = text(env, 'NODE_ENV') === 'production';
  if (production && embeddedSandbox) {
    throw new ConfigError('BILL_API_BASE_URL is unset, so the BFF would run on its embedded sandbox, where every payment is fake; ' +
      'NODE_ENV=production refuses that. Set BILL_API_BASE_URL (with BILL_API_KEY and BILL_API_SECRET) to the service, or unset NODE_ENV for a demo.');
  }
  const returnUrl = url(env, 'RETURN_URL');
  if (production && returnUrl === undefined) {
    throw new ConfigError('RETURN_URL is unset: customers back from paying would land on this BFF\'s own address, where no shop is. ' +
      'NODE_ENV=production needs it: set RETURN_URL to the merchant page that should greet them (it gets billId, orderId and the requeried outcome).');
  }

  const min = text(env, 'CLIENT_AMOUNT_MIN');
  const max = text(env, 'CLIENT_AMOUNT_MAX');
  if ((min === undefined) !== (max === undefined)) {
    throw new ConfigError('Set both CLIENT_AMOUNT_MIN and CLIENT_AMOUNT_MAX, or neither');
  }
  for (const [n, v] of [['CLIENT_AMOUNT_MIN', min], ['CLIENT_AMOUNT_MAX', max]] as const) {
    if (v !== undefined && !DECIMAL_TEXT.test(v)) throw new ConfigError(`${n} must be a decimal amount, got "${v}"`);
  }

  const pageBase = int(env, 'BILL_PAGE_BASE', 1);
  if (pageBase !== 0 && pageBase !== 1) throw new ConfigError(`BILL_PAGE_BASE must be 0 or 1, got ${pageBase}`);

  const webhookUrl = url(env, 'MERCHANT_WEBHOOK_URL');
  // Several secrets (a rotation) are separated by spaces or commas.
  const webhookSecrets = (text(env, 'MERCHANT_WEBHOOK_SECRET') ?? '').split(/[\s,]+/).filter(Boolean);
  if (webhookUrl && (webhookSecrets.length === 0 || webhookSecrets.some((w) => !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(w)))) {
    throw new ConfigError('MERCHANT_WEBHOOK_URL needs MERCHANT_WEBHOOK_SECRET: one or more "whsec_" + base64 secrets, separated by spaces ' +
      '(the first signs, every one adds a signature: a rotation). Make one with: node -e "console.log(\'whsec_\' + crypto.randomBytes(32).toString(\'base64\'))"');
  }

  const cancelBody = text(env, 'BILL_CANCEL_BODY') ?? '{"billId":"{billId}"}';

  const adminToken = secret(env, 'ADMIN_TOKEN', 'the Bearer token of /api/admin');
  const orderTicketSecret = secret(env, 'ORDER_TICKET_SECRET', 'it signs the order tickets your server gives pages');
  const orderLookupUrl = url(env, 'ORDER_LOOKUP_URL') ?? null;
  if (orderLookupUrl !== null && orderTicketSecret === null && !embeddedSandbox) {
    throw new ConfigError('ORDER_LOOKUP_URL is set without ORDER_TICKET_SECRET: anyone who knows an order id could then start its checkout ' +
      'and read its bill. Set ORDER_TICKET_SECRET (at least 32 characters) and give pages order tickets (docs/server.md, "Order tickets").');
  }
  const currency = text(env, 'BILL_CURRENCY') ?? null;
  if (currency !== null && !/^[A-Za-z0-9]{1,16}$/.test(currency)) {
    throw new ConfigError(`BILL_CURRENCY must be a currency code such as USD, got "${currency}"`);
  }

  const metricsToken = secret(env, 'METRICS_TOKEN', 'the Bearer token of /metrics');
  const metricsPort = text(env, 'METRICS_PORT') === undefined ? null : int(env, 'METRICS_PORT', 0);
  if (metricsPort !== null && (metricsPort > 65_535 || (metricsPort !== 0 && metricsPort === port))) {
    throw new ConfigError(`METRICS_PORT must be a port other than PORT (${port}), got ${metricsPort}`);
  }

  const maxRps = rate(env, 'BILL_API_MAX_RPS');
  const sharedMaxRps = rate(env, 'BILL_API_SHARED_MAX_RPS');
  const databaseUrl = text(env, 'DATABASE_URL') ?? 'file:data/bill-checkout.sqlite';
  if (sharedMaxRps !== null && maxRps !== null) {
    throw new ConfigError('BILL_API_SHARED_MAX_RPS and BILL_API_MAX_RPS are both set: set one. BILL_API_SHARED_MAX_RPS is the service\'s whole limit, ' +
      'shared by the instances alive on one PostgreSQL; BILL_API_MAX_RPS is a fixed limit of this instance alone.');
  }
  if (sharedMaxRps !== null && !/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    throw new ConfigError('BILL_API_SHARED_MAX_RPS shares the service\'s limit among the instances alive on one PostgreSQL, but DATABASE_URL is not postgres://…: ' +
      'with SQLite there is one process; set BILL_API_MAX_RPS to the service\'s limit instead.');
  }

  const host = text(env, 'HOST') ?? null;
  if (host !== null && !/^[A-Za-z0-9.:[\]-]{1,255}$/.test(host)) {
    throw new ConfigError(`HOST must be an address or host name such as 127.0.0.1, ::1 or 0.0.0.0, got "${host}"`);
  }

  return {
    port,
    host,
    publicUrl,
    embeddedSandbox,
    upstream: {
      // With the embedded sandbox the BFF still talks to it over HTTP, on its own port.
      baseUrl: apiBase ?? `http://127.0.0.1:${port}/sandbox`,
      key: text(env, 'BILL_API_KEY') ?? credentials?.key ?? '',
      secret: text(env, 'BILL_API_SECRET') ?? credentials?.secret ?? '',
      signer: text(env, 'BILL_SIGNER') ?? 'hmac-sha256',
      okCodes: codes(env, 'BILL_API_OK_CODES', [0]),
      timeoutMs: int(env, 'BILL_API_TIMEOUT_MS', 10_000, 1),
      retries: int(env, 'BILL_API_RETRIES', 3),
      pageSize: int(env, 'BILL_PAGE_SIZE', 20, 1),
      maxRps,
      sharedMaxRps,
      maxRpsByOperation: ratesByOperation(env, 'BILL_API_MAX_RPS_BY_OPERATION'),
      cancel: {
        method: (text(env, 'BILL_CANCEL_METHOD') ?? 'POST').toUpperCase(),
        path: text(env, 'BILL_CANCEL_PATH') ?? '/v1/bill/cancel',
        body: cancelBody === 'none' ? null : cancelBody,
      },
      bind: {
        method: (text(env, 'BILL_BIND_METHOD') ?? 'POST').toUpperCase(),
        path: text(env, 'BILL_BIND_PATH') ?? '/v1/customer/bind',
        idField: text(env, 'BILL_BIND_ID_FIELD') ?? 'customerId',
      },
      minLifetimeMs: int(env, 'BILL_MIN_LIFETIME_MS', 60_000, 1_000),
      // Below the 5 s idle timeout common at edges; an edge that closes sooner wants it lower.
      idleSocketMs: int(env, 'BILL_API_IDLE_SOCKET_MS', 4_000, 100),
      // A PEM in one environment line may spell its line breaks as \n.
      privateKeyPem: text(env, 'BILL_SIGNER_PRIVATE_KEY')?.replaceAll('\\n', '\n') ?? null,
      privateKeyFile: text(env, 'BILL_SIGNER_PRIVATE_KEY_FILE') ?? null,
      partnerId: text(env, 'BILL_SIGNER_PARTNER_ID') ?? null,
      channelId: text(env, 'BILL_SIGNER_CHANNEL_ID') ?? null,
      tokenPath: tokenPath(env),
      idempotentCreate: flag(env, 'BILL_API_IDEMPOTENT_CREATE', false),
    },
    statuses: statusCodes(env),
    notFoundCodes: codes(env, 'BILL_NOT_FOUND_CODES', [1004]),
    maxLifetimeMs: int(env, 'BILL_MAX_LIFETIME_MS', 86_400_000, 60_000),
    pageBase,
    databaseUrl,
    reconcileIntervalMs: int(env, 'RECONCILE_INTERVAL_MS', 30_000, 1),
    reconcileMaxRps: rate(env, 'RECONCILE_MAX_RPS'),
    refreshWindowMs: int(env, 'REFRESH_WINDOW_MS', 2_000),
    statusSweepMs: int(env, 'STATUS_SWEEP_MS', 5_000),
    expiryGraceMs: int(env, 'BILL_EXPIRY_GRACE_MS', 10 * 60_000),
    allowedOrigins: (text(env, 'ALLOWED_ORIGINS') ?? new URL(publicUrl).origin)
      .split(',').map((s) => s.trim().replace(/\/+$/, '')).filter(Boolean),
    clientAmount: min !== undefined && max !== undefined ? { min, max } : null,
    orderLookupUrl,
    returnUrl: returnUrl ?? `${publicUrl}/`,
    returnOtherDeviceUrl: url(env, 'RETURN_OTHER_DEVICE_URL') ?? null,
    adminToken,
    orderTicketSecret,
    currency,
    production,
    webhook: webhookUrl ? { url: webhookUrl, secret: webhookSecrets[0]!, secrets: webhookSecrets } : null,
    createRateLimitPerMinute: int(env, 'CREATE_RATE_LIMIT_PER_MINUTE', 30, 1),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 16 * 1024, 256),
    maxSseConnections: int(env, 'MAX_SSE_CONNECTIONS', 20_000, 1),
    maxSsePerClient: int(env, 'MAX_SSE_PER_CLIENT', 100, 1),
    trustedProxyHops: int(env, 'TRUSTED_PROXY_HOPS', 0),
    // Above AWS ALB's and nginx's 60 s (Node's own default, 5 s, is below both: their 502s).
    keepAliveTimeoutMs: int(env, 'KEEP_ALIVE_TIMEOUT_MS', 65_000, 1000),
    noticeLeaseMs: int(env, 'NOTICE_LEASE_MS', 60_000, 1000),
    metricsToken,
    metricsPort,
  };
}
