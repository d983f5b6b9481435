import { createHmac } from 'node:crypto';
import type { HmacSha256 } from '../../upstream/signers.js';

/** HMAC-SHA256 with node:crypto: a few µs where crypto.subtle's thread-pool job costs about 60. */
export const nodeHmacSha256: HmacSha256 = (secret, data) => createHmac('sha256', secret).update(data).digest();
