// The signed Standard Webhooks POST of one notice to the merchant's backend, and what the delivery
// log keeps of the answer: its status and the first RESPONSE_EXCERPT_BYTES of its body (a long
// answer is not read past them).
import type { WebhookConfig } from '../../config.js';
import type { Notice } from '../../store/types.js';
import type { HttpClient } from '../../upstream/types.js';
import type { BillNotice } from '../bill-view.js';
import { signWebhook } from './webhook-signature.js';

/** What the delivery log keeps of the merchant's answer. */
export const RESPONSE_EXCERPT_BYTES = 200;
const encoder = new TextEncoder();

/** The body of the webhook POST. */
export interface WebhookPayload {
  type: 'bill.final';
  /** When the bill became final (ISO 8601): the same on every retry. */
  timestamp: string;
  /** The same as `data.livemode`: false when no real money moved (the embedded sandbox). */
  livemode: boolean;
  data: BillNotice;
}

/** The outcome of one POST, for the delivery log. */
export interface Posted {
  httpStatus: number;
  response: string | null;
}

/** The merchant answered, but not with a 2xx: a failed attempt, with what it answered. */
export class WebhookRefused extends Error {
  override name = 'WebhookRefused';
  constructor(readonly posted: Posted) {
    super(`HTTP ${posted.httpStatus}`);
  }
}

/** The first RESPONSE_EXCERPT_BYTES of UTF-8 as text, a character cut in two left out; null when empty. */
export function excerpt(bytes: Uint8Array): string | null {
  const text = new TextDecoder().decode(bytes.subarray(0, RESPONSE_EXCERPT_BYTES), { stream: true });
  return text === '' ? null : text;
}

/** The first RESPONSE_EXCERPT_BYTES of a body as text (a character cut in two is left out); the rest is not read. */
async function streamExcerpt(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return excerpt(bytes) ?? '';
}

/** An HttpClient over fetch whose answers' text is their excerpt: a long answer is not read. */
export function fetchExcerpts(doFetch: typeof fetch): HttpClient {
  return async (url, request) => {
    const response = await doFetch(url, request);
    return { status: response.status, headers: response.headers, text: () => streamExcerpt(response) };
  };
}

export interface WebhookPostDeps {
  post: HttpClient;
  /** Unix ms: the signature's timestamp. */
  now: () => number;
  /** The POST's timeout, ms. */
  timeoutMs: number;
}

/**
 * POSTs the notice of a bill final at `finalAt`, signed with every secret configured (rotation);
 * resolves with what the merchant answered, or rejects with WebhookRefused for a non-2xx.
 */
export async function postWebhook(config: WebhookConfig, notice: Pick<Notice, 'id'>, view: BillNotice, finalAt: number, deps: WebhookPostDeps): Promise<Posted> {
  const payload: WebhookPayload = { type: 'bill.final', timestamp: new Date(finalAt).toISOString(), livemode: view.livemode, data: view };
  const body = JSON.stringify(payload);
  // Signed afresh on every try and replay: a receiver refuses a timestamp more than minutes old.
  const timestamp = Math.floor(deps.now() / 1000);
  const secrets = config.secrets?.length ? config.secrets : [config.secret];
  const signatures = await Promise.all(secrets.map((secret) => signWebhook({ secret, id: notice.id, timestamp, body })));
  const response = await deps.post(config.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': notice.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatures.join(' '),
    },
    body,
    // A redirect is not a delivery, and the signed notice goes nowhere but the configured URL.
    redirect: 'manual',
    signal: AbortSignal.timeout(deps.timeoutMs),
  });
  const text = await response.text().catch(() => '');
  // Only the excerpt is kept: at most RESPONSE_EXCERPT_BYTES characters hold enough bytes for it.
  const posted: Posted = { httpStatus: response.status, response: excerpt(encoder.encode(text.slice(0, RESPONSE_EXCERPT_BYTES))) };
  if (response.status < 200 || response.status > 299) throw new WebhookRefused(posted);
  return posted;
}
