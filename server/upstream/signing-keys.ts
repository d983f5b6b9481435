// The bytes of signatures as headers carry them, and the merchant's RSA private key, for the built-in schemes.
import { BillApiConfigError } from './errors.js';

/** Lower-case hex. */
export function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** Lower-case hex of SHA-256 of `text` (UTF-8): the body digests of the schemes, a create's request id. */
export async function sha256Hex(text: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))));
}

/** Standard base64, padded. */
export function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** A PKCS#8 PEM private key for RSASSA-PKCS1-v1_5 with SHA-256 (SHA256withRSA), on crypto.subtle. */
export function rsaPrivateKey(pem: string | null | undefined): Promise<CryptoKey> {
  const text = (pem ?? '').trim();
  if (text === '') {
    return Promise.reject(new BillApiConfigError('BILL_SIGNER rsa-sha256 and snap need a private key: set BILL_SIGNER_PRIVATE_KEY (PEM) or BILL_SIGNER_PRIVATE_KEY_FILE.'));
  }
  if (text.includes('BEGIN RSA PRIVATE KEY')) {
    return Promise.reject(new BillApiConfigError(
      'BILL_SIGNER_PRIVATE_KEY is a PKCS#1 key (BEGIN RSA PRIVATE KEY); give it as PKCS#8: openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem'));
  }
  const body = /-----BEGIN PRIVATE KEY-----([\s\S]*?)-----END PRIVATE KEY-----/.exec(text)?.[1];
  if (!body) return Promise.reject(new BillApiConfigError('BILL_SIGNER_PRIVATE_KEY must be a PEM private key (-----BEGIN PRIVATE KEY-----).'));
  const der = Uint8Array.from(atob(body.replace(/\s+/g, '')), (c) => c.charCodeAt(0));
  return crypto.subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign'])
    .catch((error: unknown) => {
      throw new BillApiConfigError(`BILL_SIGNER_PRIVATE_KEY could not be read as an RSA key (${error instanceof Error ? error.message : String(error)}).`);
    });
}

