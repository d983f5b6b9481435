// How requests are signed (BILL_SIGNER): built-in schemes on crypto.subtle, or a merchant's module.
import { BillApiConfigError } from './errors.js';
import { base64, hex, rsaPrivateKey, sha256Hex } from './signing-keys.js';
import { snapSigner, type SnapSettings } from './snap-signer.js';
import type { SignBase, Signer } from './types.js';

export { rsaPrivateKey } from './signing-keys.js';

/** What the built-in schemes sign: `METHOD\nPATH\nQUERY\nBODY`. */
export function signatureBase(input: Pick<SignBase, 'method' | 'path' | 'query' | 'body'>): string {
  return `${input.method.toUpperCase()}\n${input.path}\n${input.query}\n${input.body}`;
}

const encoder = new TextEncoder();
let cachedKey: { secret: string; key: Promise<CryptoKey> } | null = null;

/** HMAC-SHA256 of `data` under `secret` (both text, UTF-8). */
export type HmacSha256 = (secret: string, data: string) => Uint8Array | Promise<Uint8Array>;

function hmacKey(secret: string): Promise<CryptoKey> {
  if (cachedKey?.secret !== secret) {
    const key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    cachedKey = { secret, key };
  }
  return cachedKey.key;
}

/** On crypto.subtle: runs wherever Hono runs. */
export const subtleHmacSha256: HmacSha256 = async (secret, data) =>
  new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), encoder.encode(data)));

const ENCODINGS: Record<string, (mac: Uint8Array) => string> = {
  'hmac-sha256': hex,
  'hmac-sha256-base64': base64,
};

/** What the timestamped scheme signs: `METHOD\nPATH\nQUERY\nTIMESTAMP\nBODY`, the timestamp as its header carries it. */
export function timestampedBase(input: Pick<SignBase, 'method' | 'path' | 'query' | 'body'>, timestamp: string): string {
  return `${input.method.toUpperCase()}\n${input.path}\n${input.query}\n${timestamp}\n${input.body}`;
}

/** The header the timestamped scheme sends its time in (ISO 8601, UTC): a service refuses one too far from its clock. */
export const TIMESTAMP_HEADER = 'X-Timestamp';

/** What the asymmetric and token schemes need beyond the key and secret. */
export interface SignerKeys extends SnapSettings {
  /** PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), for rsa-sha256 and snap. */
  privateKeyPem?: string | null;
}

/** What rsa-sha256 signs: `METHOD\nPATH\nQUERY\nTIMESTAMP\nhex(SHA-256(BODY))`. */
export async function digestBase(input: Pick<SignBase, 'method' | 'path' | 'query' | 'body'>, timestamp: string): Promise<string> {
  const digest = await sha256Hex(input.body);
  return `${input.method.toUpperCase()}\n${input.path}\n${input.query}\n${timestamp}\n${digest}`;
}

const SCHEMES: Record<string, (mac: HmacSha256, keys: SignerKeys) => Signer> = {
  ...Object.fromEntries(Object.entries(ENCODINGS).map(([name, encode]) => [name, (mac: HmacSha256): Signer =>
    async (input) => encode(await mac(input.secret, signatureBase(input)))])),
  // The request's time in a header of its own, and in what is signed: a captured request goes stale.
  'hmac-sha256-timestamped': (mac) => async (input) => ({
    [TIMESTAMP_HEADER]: input.timestamp,
    Sign: hex(await mac(input.secret, timestampedBase(input, input.timestamp))),
  }),
  // SHA256withRSA under the merchant's private key: the service holds only the public one.
  'rsa-sha256': (_mac, keys) => {
    const key = rsaPrivateKey(keys.privateKeyPem);
    // Refused at load (loadSigner awaits it); here only kept from being an unhandled rejection.
    key.catch(() => undefined);
    return async (input) => ({
      [TIMESTAMP_HEADER]: input.timestamp,
      Sign: base64(new Uint8Array(await crypto.subtle.sign('RSASSA-PKCS1-v1_5', await key, encoder.encode(await digestBase(input, input.timestamp))))),
    });
  },
  // An access token by SHA256withRSA, then HMAC-SHA512 per call (snap-signer.ts).
  snap: (_mac, keys) => snapSigner(keys),
};

export const BUILT_IN_SIGNER_NAMES: readonly string[] = Object.keys(SCHEMES);

/** A built-in scheme by name; `mac` computes its HMAC (default: crypto.subtle); `keys` serve rsa-sha256 and snap. */
export function builtInSigner(name: string, mac: HmacSha256 = subtleHmacSha256, keys: SignerKeys = {}): Signer | undefined {
  const scheme = Object.hasOwn(SCHEMES, name) ? SCHEMES[name] : undefined;
  return scheme?.(mac, keys);
}

const WHAT_IT_MUST_BE =
  `BILL_SIGNER must be one of ${BUILT_IN_SIGNER_NAMES.join(', ')}, or a path to an ES module whose default ` +
  'export (or export named `sign`) is a function sign({method, path, query, body, key, secret, timestamp, nonce, requestId, …}) ' +
  'returning the Sign header value, or an object of headers to add (it may be async).';

function looksLikeModule(spec: string): boolean {
  return /[/\\.:]/.test(spec);
}

function pickSign(mod: unknown): Signer | undefined {
  if (typeof mod !== 'object' || mod === null) return undefined;
  const { default: def, sign } = mod as { default?: unknown; sign?: unknown };
  if (typeof def === 'function') return def as Signer;
  if (typeof sign === 'function') return sign as Signer;
  // A CommonJS module imported from ESM puts module.exports on `default`.
  const nested = typeof def === 'object' && def !== null ? (def as { sign?: unknown }).sign : undefined;
  return typeof nested === 'function' ? (nested as Signer) : undefined;
}

/**
 * The signer named by BILL_SIGNER. `importModule` loads a module specifier; the Node entry
 * resolves relative paths to file URLs first and passes `(s) => import(s)`. `mac` serves the
 * built-in schemes (the Node entry passes node:crypto's).
 */
export async function loadSigner(
  spec: string, importModule: (specifier: string) => Promise<unknown>, mac?: HmacSha256, keys: SignerKeys = {},
): Promise<Signer> {
  const name = spec.trim();
  const builtIn = builtInSigner(name, mac, keys);
  // A key that cannot serve is a configuration error at start, not a failure of every request.
  if (name === 'rsa-sha256' || name === 'snap') await rsaPrivateKey(keys.privateKeyPem);
  if (builtIn) return builtIn;
  if (!name || !looksLikeModule(name)) {
    throw new BillApiConfigError(`Unknown BILL_SIGNER "${name}". ${WHAT_IT_MUST_BE}`);
  }
  let mod: unknown;
  try {
    mod = await importModule(name);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new BillApiConfigError(`BILL_SIGNER "${name}" could not be loaded (${why}). ${WHAT_IT_MUST_BE}`, { cause: err });
  }
  const sign = pickSign(mod);
  if (!sign) throw new BillApiConfigError(`BILL_SIGNER "${name}" exports no sign function. ${WHAT_IT_MUST_BE}`);
  return sign;
}
