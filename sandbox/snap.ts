// The SNAP-style mode (SandboxOptions.snap): a service that hands out access tokens for a
// SHA256withRSA signature of `clientKey|timestamp`, then checks each call's bearer token and its
// HMAC-SHA512, and deduplicates creates by X-EXTERNAL-ID, answering a repeat with the bill it made.
import type { Context } from 'hono';
import type { SandboxSigner } from './dialect.js';
import { freshTimestamp } from './signature.js';

export interface SnapMode {
  /** The merchant's public key (SPKI PEM, `-----BEGIN PUBLIC KEY-----`): checks the token request. */
  publicKeyPem: string;
  /** Where tokens are asked for (default /v1.0/access-token/b2b). */
  tokenPath?: string;
  /** How long a token lasts, seconds (default 900), on the sandbox's clock. */
  tokenLifetimeS?: number;
}

export const SNAP_TOKEN_PATH = '/v1.0/access-token/b2b';
const encoder = new TextEncoder();

const hex = (bytes: ArrayBuffer): string => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
const base64 = (bytes: ArrayBuffer): string => btoa(String.fromCharCode(...new Uint8Array(bytes)));

function spki(pem: string): Promise<CryptoKey> {
  const body = /-----BEGIN PUBLIC KEY-----([\s\S]*?)-----END PUBLIC KEY-----/.exec(pem)?.[1];
  if (!body) throw new TypeError('snap.publicKeyPem must be an SPKI PEM public key (-----BEGIN PUBLIC KEY-----)');
  const der = Uint8Array.from(atob(body.replace(/\s+/g, '')), (c) => c.charCodeAt(0));
  return crypto.subtle.importKey('spki', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['verify']);
}

/** SNAP's answers: a responseCode of HTTP status, service code 73 (access token) and case. */
function snapAnswer(status: number, caseCode: string, message: string, more: Record<string, string> = {}): Response {
  return Response.json({ responseCode: `${status}73${caseCode}`, responseMessage: message, ...more }, { status });
}

export interface SnapAuth {
  tokenPath: string;
  /** The dialect's sign: false unless the bearer token is one handed out and unexpired and X-TIMESTAMP is fresh; else the expected X-SIGNATURE. */
  verify: SandboxSigner;
  /** Answers a token request. */
  token(c: Context, deps: { key: string; now: () => number }): Promise<Response>;
  /** Tokens handed out so far. */
  granted(): number;
  clear(): void;
}

export function snapAuth(mode: SnapMode): SnapAuth {
  const publicKey = spki(mode.publicKeyPem);
  const lifetimeS = mode.tokenLifetimeS ?? 900;
  const tokens = new Map<string, number>();
  let granted = 0;

  return {
    tokenPath: mode.tokenPath ?? SNAP_TOKEN_PATH,
    granted: () => granted,
    clear: () => tokens.clear(),

    async verify(i) {
      const token = /^Bearer (\S+)$/.exec(i.headers.get('authorization') ?? '')?.[1];
      const expiresAt = token === undefined ? undefined : tokens.get(token);
      if (expiresAt === undefined || i.now >= expiresAt) return false;
      const stamp = freshTimestamp(i.headers, i.now);
      if (stamp === null) return false;
      const digest = hex(await crypto.subtle.digest('SHA-256', encoder.encode(i.body)));
      const endpoint = i.query === '' ? i.path : `${i.path}?${i.query}`;
      const key = await crypto.subtle.importKey('raw', encoder.encode(i.secret), { name: 'HMAC', hash: 'SHA-512' }, false, ['sign']);
      return base64(await crypto.subtle.sign('HMAC', key, encoder.encode(`${i.method}:${endpoint}:${token}:${digest}:${stamp}`)));
    },

    async token(c, deps) {
      const now = deps.now();
      const clientKey = c.req.header('x-client-key');
      if (clientKey !== deps.key) return snapAnswer(401, '00', 'Unauthorized. Unknown client');
      const stamp = freshTimestamp(c.req.raw.headers, now);
      if (stamp === null) return snapAnswer(400, '01', 'Invalid field format [X-TIMESTAMP]');
      let signature: Uint8Array<ArrayBuffer>;
      try {
        signature = Uint8Array.from(atob(c.req.header('x-signature') ?? ''), (ch) => ch.charCodeAt(0));
      } catch {
        return snapAnswer(401, '00', 'Unauthorized. Signature');
      }
      if (!(await crypto.subtle.verify('RSASSA-PKCS1-v1_5', await publicKey, signature, encoder.encode(`${clientKey}|${stamp}`)))) {
        return snapAnswer(401, '00', 'Unauthorized. Signature');
      }
      let grant: unknown;
      try {
        grant = (await c.req.json() as { grantType?: unknown }).grantType;
      } catch {
        grant = undefined;
      }
      if (grant !== 'client_credentials') return snapAnswer(400, '02', 'Invalid field format [grantType]');
      const accessToken = hex(crypto.getRandomValues(new Uint8Array(24)).buffer);
      tokens.set(accessToken, now + lifetimeS * 1000);
      granted++;
      return snapAnswer(200, '00', 'Successful', { accessToken, tokenType: 'Bearer', expiresIn: String(lifetimeS) });
    },
  };
}
