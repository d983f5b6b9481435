// An access token a signer fetches from the service and reuses until shortly before it expires:
// what a scheme with a token call (SNAP's access-token/b2b, OAuth client credentials) is built on.
import type { SignInput } from './types.js';

/** A token as its call answered it. */
export interface FetchedToken {
  token: string;
  /** How long the service said it lasts, ms from when it was asked for. */
  expiresInMs: number;
}

export interface AccessTokenOptions {
  /** A token is fetched again this long before it expires, ms (default 60 s; at most half its lifetime). */
  refreshBeforeMs?: number;
}

/** The token for a request: the cached one while it is fresh, else one fetched (once, however many requests wait). */
export interface AccessTokens {
  (input: SignInput): Promise<string>;
  /** Forgets the token: the next request fetches one (a service that revoked it, say). */
  clear(): void;
}

/**
 * Caches what `fetchToken` gets, judged on the client's own clock (`input.timestampMs`), so that a
 * client run on a test clock refreshes on that clock. `fetchToken` sends its request with
 * `input.send`: in the budget and through the transport of the request that needed it. A failed
 * fetch is not kept, and fails every request that waited on it.
 */
export function cachedAccessToken(
  fetchToken: (input: SignInput) => Promise<FetchedToken>, options: AccessTokenOptions = {},
): AccessTokens {
  const refreshBeforeMs = options.refreshBeforeMs ?? 60_000;
  let held: { token: string; refreshAt: number } | null = null;
  let running: Promise<string> | null = null;

  const tokens = (input: SignInput): Promise<string> => {
    if (held && input.timestampMs < held.refreshAt) return Promise.resolve(held.token);
    running ??= (async () => {
      try {
        const askedAt = input.timestampMs;
        const { token, expiresInMs } = await fetchToken(input);
        held = { token, refreshAt: askedAt + expiresInMs - Math.min(refreshBeforeMs, expiresInMs / 2) };
        return token;
      } finally {
        running = null;
      }
    })();
    return running;
  };
  return Object.assign(tokens, { clear: () => { held = null; } });
}
