// `npm run sandbox` settings from an environment record (main.ts passes process.env): where it
// listens, and the dialect and options that make it play a service that chose differently.
import { isDecimal } from '../contract/decimal.js';
import { MAX_CLOCK_OFFSET_MS } from './clock.js';
import { rsaSha256Verifier } from './signature.js';
import { SANDBOX_SIGNERS, STATUS_KEYS, resolveDialect, type DialectOptions, type StatusCodes, type StatusKey } from './dialect.js';
import { FIELDS } from './list-query.js';
import { OPS, type Faults, type Op, type SandboxOptions } from './types.js';

type Env = Record<string, string | undefined>;

/** A `SANDBOX_*` setting `npm run sandbox` cannot use; the message names it and what it must be. */
export class SandboxConfigError extends Error {
  override name = 'SandboxConfigError';
}

export interface SandboxSettings {
  port: number;
  publicUrl: string;
  options: SandboxOptions;
}

function text(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

function whole(env: Env, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const v = text(env, name);
  if (v === undefined) return undefined;
  if (!/^\d{1,15}$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new SandboxConfigError(`${name} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}, got "${v}"`);
  }
  return Number(v);
}

/** Whole milliseconds, negative allowed, at most ±10 years (the clock offset's range). */
function signedMs(env: Env, name: string): number | undefined {
  const v = text(env, name);
  if (v === undefined) return undefined;
  if (!/^[-+]?\d{1,15}$/.test(v) || Math.abs(Number(v)) > MAX_CLOCK_OFFSET_MS) {
    throw new SandboxConfigError(`${name} must be a whole number of milliseconds from -${MAX_CLOCK_OFFSET_MS} to ${MAX_CLOCK_OFFSET_MS} (negative: behind), got "${v}"`);
  }
  return Number(v);
}

/** `true`/`1` or `false`/`0`, as the BFF's own switches. */
function flag(env: Env, name: string): boolean | undefined {
  const v = text(env, name);
  if (v === undefined) return undefined;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new SandboxConfigError(`${name} must be true or false (or 1, 0), got "${v}"`);
}

/** `requery=10,create=5`: the `rateLimit` fault, requests per second per operation. */
function rateLimit(env: Env): Partial<Record<Op, number>> | undefined {
  const v = text(env, 'SANDBOX_RATE_LIMIT');
  if (v === undefined) return undefined;
  const out: Partial<Record<Op, number>> = {};
  for (const part of v.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z]+)\s*=\s*(\d{1,7})$/i.exec(part);
    const op = m?.[1]?.toLowerCase();
    if (!m || !(OPS as readonly string[]).includes(op!) || Number(m[2]) > 1_000_000) {
      throw new SandboxConfigError(`SANDBOX_RATE_LIMIT must be operation=requests-per-second pairs with operations ${OPS.join(', ')} and at most 1000000, e.g. "requery=10,create=5"; got "${part}"`);
    }
    out[op as Op] = Number(m[2]);
  }
  return out;
}

/** `merchantReference,billId`: the `listRefusedFilters` fault, status-record field names. */
function refusedFilters(env: Env): string[] | undefined {
  const v = text(env, 'SANDBOX_LIST_REFUSED_FILTERS');
  if (v === undefined) return undefined;
  const names = v.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.find((n) => !(FIELDS as readonly string[]).includes(n));
  if (unknown !== undefined) {
    throw new SandboxConfigError(`SANDBOX_LIST_REFUSED_FILTERS must be comma-separated field names of ${FIELDS.join(', ')}, e.g. "merchantReference"; got "${unknown}"`);
  }
  return names;
}

function statuses(env: Env): Partial<StatusCodes> | undefined {
  const v = text(env, 'SANDBOX_STATUSES');
  if (v === undefined) return undefined;
  const out: Partial<StatusCodes> = {};
  for (const part of v.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z]+)\s*=\s*(-?\d+)$/i.exec(part);
    const key = m?.[1]?.toLowerCase();
    if (!m || !(STATUS_KEYS as readonly string[]).includes(key!)) {
      throw new SandboxConfigError(`SANDBOX_STATUSES must be name=code pairs with names ${STATUS_KEYS.join(', ')}, e.g. "pending=10,paid=20"; got "${part}"`);
    }
    out[key as StatusKey] = Number(m[2]);
  }
  return out;
}

/** "METHOD /path" (cancel) or "METHOD /path [idField]" (bind). */
function route(env: Env, name: string, withField: boolean): string[] | undefined {
  const v = text(env, name);
  if (v === undefined) return undefined;
  const parts = v.split(/\s+/);
  if (parts.length < 2 || parts.length > (withField ? 3 : 2)) {
    const example = withField ? '"PUT /v2/customers customerRef"' : '"DELETE /v2/bills/{billId}"';
    throw new SandboxConfigError(`${name} must be "METHOD /path${withField ? ' [idField]' : ''}", e.g. ${example}; got "${v}"`);
  }
  return parts;
}

/** SANDBOX_PUBLIC_KEY: the merchant's SPKI PEM public key (line breaks may be written \\n), for the asymmetric schemes. */
function publicKey(env: Env, scheme: string): string {
  const pem = text(env, 'SANDBOX_PUBLIC_KEY')?.replaceAll('\\n', '\n');
  if (!pem?.includes('-----BEGIN PUBLIC KEY-----')) {
    throw new SandboxConfigError(`SANDBOX_SIGN=${scheme} needs SANDBOX_PUBLIC_KEY: the merchant's public key as SPKI PEM (-----BEGIN PUBLIC KEY-----)`);
  }
  return pem;
}

function dialect(env: Env): DialectOptions {
  const d: DialectOptions = {};
  const okCode = text(env, 'SANDBOX_OK_CODE');
  if (okCode !== undefined) {
    if (!/^-?\d{1,15}$/.test(okCode)) throw new SandboxConfigError(`SANDBOX_OK_CODE must be a whole number, got "${okCode}"`);
    d.okCode = Number(okCode);
  }
  const codes = statuses(env);
  if (codes) d.statuses = codes; // resolveDialect fills the rest from the defaults
  const sign = text(env, 'SANDBOX_SIGN');
  // snap is a mode of its own (options.snap): its token route and its checks replace the dialect's sign.
  if (sign === 'rsa-sha256') d.sign = rsaSha256Verifier(publicKey(env, sign));
  else if (sign !== undefined && sign !== 'snap') {
    const signer = Object.hasOwn(SANDBOX_SIGNERS, sign) ? SANDBOX_SIGNERS[sign] : undefined;
    const names = [...Object.keys(SANDBOX_SIGNERS), 'rsa-sha256', 'snap'].join(', ');
    if (!signer) throw new SandboxConfigError(`SANDBOX_SIGN must be one of ${names}, got "${sign}"`);
    d.sign = signer;
  }
  const cancel = route(env, 'SANDBOX_CANCEL', false);
  if (cancel) d.cancel = { method: cancel[0]!, path: cancel[1]! };
  const bind = route(env, 'SANDBOX_BIND', true);
  if (bind) d.bind = { method: bind[0]!, path: bind[1]!, idField: bind[2] ?? 'customerId' };
  try {
    resolveDialect(d);
  } catch (err) {
    throw new SandboxConfigError(`Sandbox ${err instanceof Error ? err.message : String(err)}`);
  }
  return d;
}

/** The faults `npm run sandbox` starts with; DELETE /_control/faults and reset clear them as any other. */
function initialFaults(env: Env): Partial<Faults> {
  const faults: Partial<Faults> = {};
  const limits = rateLimit(env);
  if (limits) faults.rateLimit = limits;
  const retryAfter = whole(env, 'SANDBOX_RETRY_AFTER_S', 0, 3600);
  if (retryAfter !== undefined) faults.retryAfterS = retryAfter;
  const lag = whole(env, 'SANDBOX_REPLICA_LAG_MS', 0, 600_000);
  if (lag !== undefined) faults.replicaLagMs = lag;
  const maxPageSize = whole(env, 'SANDBOX_MAX_PAGE_SIZE', 1, 1000);
  if (maxPageSize !== undefined) faults.maxPageSize = maxPageSize;
  const dateOffset = signedMs(env, 'SANDBOX_DATE_HEADER_OFFSET_MS');
  if (dateOffset !== undefined) faults.dateHeaderOffsetMs = dateOffset;
  const unit = text(env, 'SANDBOX_EXPIRED_ON_UNIT');
  if (unit !== undefined) {
    if (unit !== 'ms' && unit !== 's') throw new SandboxConfigError(`SANDBOX_EXPIRED_ON_UNIT must be ms or s, got "${unit}"`);
    faults.expiredOnUnit = unit;
  }
  const payOnCreate = flag(env, 'SANDBOX_PAY_ON_CREATE');
  if (payOnCreate !== undefined) faults.payOnCreate = payOnCreate;
  const afterCallback = flag(env, 'SANDBOX_CREATE_ANSWER_AFTER_CALLBACK');
  if (afterCallback !== undefined) faults.createAnswerAfterCallback = afterCallback;
  const processingStep = flag(env, 'SANDBOX_PROCESSING_STEP');
  if (processingStep !== undefined) faults.processingStep = processingStep;
  const compress = text(env, 'SANDBOX_COMPRESS');
  if (compress !== undefined) {
    if (compress !== 'gzip' && compress !== 'deflate' && compress !== 'br') {
      throw new SandboxConfigError(`SANDBOX_COMPRESS must be gzip, deflate or br, got "${compress}"`);
    }
    faults.compress = compress;
  }
  const resets = whole(env, 'SANDBOX_CREATE_RESET_AFTER_MADE', 0, 1000);
  if (resets !== undefined) faults.createResetAfterMade = resets;
  const refused = refusedFilters(env);
  if (refused) faults.listRefusedFilters = refused;
  const recordOffset = signedMs(env, 'SANDBOX_RECORD_DATE_TIME_OFFSET_MS');
  if (recordOffset !== undefined) faults.recordDateTimeOffsetMs = recordOffset;
  return faults;
}

export function sandboxSettingsFromEnv(env: Env): SandboxSettings {
  const port = whole(env, 'SANDBOX_PORT', 0, 65535) ?? 8788;
  const publicUrl = (text(env, 'SANDBOX_PUBLIC_URL') ?? `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    const u = new URL(publicUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new SandboxConfigError(`SANDBOX_PUBLIC_URL must be an http(s) URL, got "${publicUrl}"`);
  }

  const options: SandboxOptions = { publicUrl, dialect: dialect(env) };
  if (text(env, 'SANDBOX_SIGN') === 'snap') options.snap = { publicKeyPem: publicKey(env, 'snap') };
  const key = text(env, 'SANDBOX_KEY');
  const secret = text(env, 'SANDBOX_SECRET');
  if (key !== undefined) options.key = key;
  if (secret !== undefined) options.secret = secret;
  const pageBase = whole(env, 'SANDBOX_PAGE_BASE', 0, 1);
  if (pageBase !== undefined) options.pageBase = pageBase as 0 | 1;
  const lifetime = whole(env, 'SANDBOX_BILL_LIFETIME_MS', 1);
  if (lifetime !== undefined) options.billLifetimeMs = lifetime;
  const retryDelay = whole(env, 'SANDBOX_CALLBACK_RETRY_DELAY_MS', 0);
  if (retryDelay !== undefined) options.callbackRetryDelayMs = retryDelay;
  const gcRate = text(env, 'SANDBOX_GC_RATE');
  if (gcRate !== undefined) {
    if (!isDecimal(gcRate)) throw new SandboxConfigError(`SANDBOX_GC_RATE must be decimal text such as 0.0125, got "${gcRate}"`);
    options.gcRate = gcRate;
  }
  const currency = text(env, 'SANDBOX_CURRENCY');
  if (currency !== undefined) options.currency = currency;
  const offset = signedMs(env, 'SANDBOX_CLOCK_OFFSET_MS');
  if (offset !== undefined) options.clockOffsetMs = offset;
  const faults = initialFaults(env);
  if (Object.keys(faults).length > 0) options.faults = faults;
  return { port, publicUrl, options };
}

/** One line for the start-up log: what differs from the sandbox's defaults. */
export function describeDialect(env: Env): string {
  const names = ['SANDBOX_OK_CODE', 'SANDBOX_STATUSES', 'SANDBOX_SIGN', 'SANDBOX_CANCEL', 'SANDBOX_BIND'];
  const set = names.filter((n) => text(env, n) !== undefined).map((n) => `${n}=${text(env, n)}`);
  return set.length ? `dialect: ${set.join('; ')}` : 'dialect: the sandbox defaults';
}
