// The per-bill URLs registered with the service at create. The callback URL carries the bill's
// hook token, which only the service ever sees; the redirect URL passes through the customer's
// browser, so it carries a token derived from it one way: a customer who reads their redirect
// can come back, but cannot call the callback route.

import { base64url } from './random.js';

const encoder = new TextEncoder();

/** The token of the return URL: SHA-256 of the hook token, base64url. */
export async function returnToken(hookToken: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(`return:${hookToken}`));
  return base64url(new Uint8Array(digest));
}

export async function hookUrls(publicUrl: string, merchantReference: string, hookToken: string) {
  return {
    callbackUrl: `${publicUrl}/api/hooks/callback/${merchantReference}/${hookToken}`,
    redirectUrl: `${publicUrl}/api/hooks/return/${merchantReference}/${await returnToken(hookToken)}`,
  };
}

/** The path of the bill's return URL up to (without) its token: PUBLIC_URL's path prefix included. */
export function returnPath(publicUrl: string, merchantReference: string): string {
  return `${new URL(publicUrl).pathname.replace(/\/+$/, '')}/api/hooks/return/${merchantReference}`;
}
