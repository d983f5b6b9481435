// The SNAP-style pair (Indonesia's Standar Nasional Open API Pembayaran, and gateways built like it):
// an access token asked for with an asymmetric signature (SHA256withRSA over `clientKey|timestamp`),
// then each call signed with HMAC-SHA512 over method, path, token, body digest and timestamp.
import { cachedAccessToken, type FetchedToken } from './access-token.js';
import { BillApiHttpError, BillApiResponseError } from './errors.js';
import { base64, rsaPrivateKey, sha256Hex } from './signing-keys.js';
import type { SignInput, Signer } from './types.js';

export interface SnapSettings {
  /** PKCS#8 PEM of the merchant's private key (BILL_SIGNER_PRIVATE_KEY): signs the token request. */
  privateKeyPem?: string | null;
  /** X-PARTNER-ID (BILL_SIGNER_PARTNER_ID); default the key (BILL_API_KEY). */
  partnerId?: string | null;
  /** CHANNEL-ID (BILL_SIGNER_CHANNEL_ID); not sent when unset. */
  channelId?: string | null;
  /** The token call's path under the base URL (BILL_SIGNER_TOKEN_PATH). */
  tokenPath?: string | null;
}

export const SNAP_TOKEN_PATH = '/v1.0/access-token/b2b';
const encoder = new TextEncoder();

/** SNAP's X-TIMESTAMP: ISO 8601 to the second with its offset, `2026-11-28T09:07:14+00:00`. */
export function snapTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** SNAP's X-EXTERNAL-ID is a numeric string of at most 36 digits: 112 bits of the request id, in decimal. */
export function snapExternalId(requestId: string): string {
  return BigInt(`0x${requestId.slice(0, 28)}`).toString();
}

/** What each call signs: `METHOD:PATH?QUERY:TOKEN:hex(SHA-256(BODY)):TIMESTAMP`. */
export async function snapStringToSign(input: Pick<SignInput, 'method' | 'path' | 'query' | 'body'>, token: string, timestamp: string): Promise<string> {
  const endpoint = input.query === '' ? input.path : `${input.path}?${input.query}`;
  return `${input.method.toUpperCase()}:${endpoint}:${token}:${await sha256Hex(input.body)}:${timestamp}`;
}

const hmacKeys = new Map<string, Promise<CryptoKey>>();
async function hmacSha512(secret: string, text: string): Promise<Uint8Array> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-512' }, false, ['sign']);
    hmacKeys.set(secret, key);
  }
  return new Uint8Array(await crypto.subtle.sign('HMAC', await key, encoder.encode(text)));
}

/** `expiresIn` in seconds, as a number or numeric text; SNAP's usual 900 when absent. */
function lifetimeMs(expiresIn: unknown): number | null {
  if (expiresIn === undefined || expiresIn === null) return 900_000;
  const seconds = typeof expiresIn === 'string' && /^\d+$/.test(expiresIn.trim()) ? Number(expiresIn) : expiresIn;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : null;
}

export function snapSigner(settings: SnapSettings): Signer {
  const key = rsaPrivateKey(settings.privateKeyPem);
  // Refused at load (loadSigner awaits it); here only kept from being an unhandled rejection.
  key.catch(() => undefined);
  const tokenPath = settings.tokenPath ?? SNAP_TOKEN_PATH;

  async function fetchToken(input: SignInput): Promise<FetchedToken> {
    const timestamp = snapTimestamp(input.timestampMs);
    const signature = base64(new Uint8Array(await crypto.subtle.sign(
      'RSASSA-PKCS1-v1_5', await key, encoder.encode(`${input.key}|${timestamp}`))));
    const answer = await input.send({
      method: 'POST', path: tokenPath,
      headers: { 'X-TIMESTAMP': timestamp, 'X-CLIENT-KEY': input.key, 'X-SIGNATURE': signature },
      body: '{"grantType":"client_credentials"}',
    });
    const what = `the access token (POST ${tokenPath}, BILL_SIGNER_TOKEN_PATH)`;
    if (answer.status < 200 || answer.status > 299) {
      // Load and outages pass; a refusal of our key or signature does not, and says what to check.
      const passing = answer.status === 429 || answer.status >= 500;
      throw new BillApiHttpError(
        `Bill API ${input.operation}: ${what} was refused with HTTP ${answer.status}.` +
        (passing ? '' : ' Check BILL_API_KEY (the X-CLIENT-KEY) and that the service holds the public key of BILL_SIGNER_PRIVATE_KEY.'),
        { operation: input.operation, retryable: passing, httpStatus: answer.status },
      );
    }
    let body: unknown = null;
    try {
      body = JSON.parse(answer.text);
    } catch {
      // Judged below as an answer without a token.
    }
    const fields = typeof body === 'object' && body !== null ? body as { accessToken?: unknown; expiresIn?: unknown } : {};
    const token = fields.accessToken;
    const expiresInMs = lifetimeMs(fields.expiresIn);
    if (typeof token !== 'string' || token === '' || /[\r\n]/.test(token) || expiresInMs === null) {
      throw new BillApiResponseError(
        `Bill API ${input.operation}: ${what} answered HTTP ${answer.status} without a usable accessToken and expiresIn (seconds).`,
        { operation: input.operation, retryable: false, httpStatus: answer.status, field: 'accessToken' },
      );
    }
    return { token, expiresInMs };
  }

  const tokens = cachedAccessToken(fetchToken);
  return async (input) => {
    const token = await tokens(input);
    const timestamp = snapTimestamp(input.timestampMs);
    const headers: Record<string, string> = {
      Authorization: `Bearer ${token}`,
      'X-TIMESTAMP': timestamp,
      'X-SIGNATURE': base64(await hmacSha512(input.secret, await snapStringToSign(input, token, timestamp))),
      'X-PARTNER-ID': settings.partnerId ?? input.key,
      'X-EXTERNAL-ID': snapExternalId(input.requestId),
    };
    if (settings.channelId) headers['CHANNEL-ID'] = settings.channelId;
    return headers;
  };
}
