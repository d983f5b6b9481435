import type { CreateInput } from './bff-client.js';

/** What survives a reload: the create's idempotency key, then the bill it made. */
export interface Saved {
  idempotencyKey?: string;
  billId?: string;
  token?: string;
}

/** The sessionStorage key (per origin and tab) of one checkout: the BFF endpoint and what the bill is for. */
export function resumeKey(endpoint: string, input: CreateInput): string {
  const what = 'orderId' in input ? `order:${input.orderId}` : `amount:${input.amount}`;
  return `bill-checkout:${endpoint}:${what}`;
}

// sessionStorage can be missing or throw (sandboxed frames, privacy modes): then nothing is resumed.
export function readSaved(key: string): Saved {
  try {
    return Object(JSON.parse(sessionStorage.getItem(key) ?? '{}')) as Saved;
  } catch {
    return {};
  }
}

export function writeSaved(key: string, saved: Saved): void {
  try {
    sessionStorage.setItem(key, JSON.stringify(saved));
  } catch {
    /* not resumable, still usable */
  }
}

export function clearSaved(key: string): void {
  try {
    sessionStorage.removeItem(key);
  } catch {
    /* nothing saved */
  }
}
