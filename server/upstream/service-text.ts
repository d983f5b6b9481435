// What the upstream client's error messages share: their prefix, the note on a create whose outcome
// is unknown, the hint on credentials, and the service's own words, our key and secret cut out.
import { createRedactor, truncate } from '../redact.js';
import type { BillOperation } from './errors.js';
import type { UpstreamConfig } from './types.js';

export const UNKNOWN_OUTCOME = ' The bill may or may not have been created: settle it with findByMerchantReference before creating again.';
const MAX_SERVICE_TEXT = 200;

/** The prefix of every message: `Bill API requery`. */
export const label = (op: BillOperation): string => `Bill API ${op}`;

/** What to check when the service refuses the credentials, naming the signer configured. */
export const credentialsHint = (signer: string): string =>
  `Check BILL_API_KEY and BILL_API_SECRET, and that BILL_SIGNER (now "${signer}") is the scheme the service expects.`;

/** Service text with our key and secret cut out (a service may echo what it was sent), shortened to 200 characters. */
export function serviceTextCleaner(config: Pick<UpstreamConfig, 'key' | 'secret'>): (text: string) => string {
  const redact = createRedactor([config.key, config.secret]);
  return (text) => truncate(redact(text), MAX_SERVICE_TEXT);
}
