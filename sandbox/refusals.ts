// The `refusals` fault's answers: an envelope as the service refuses, or an HTML page as an edge
// or load balancer in front of it answers.
import { STATUS_CODES } from 'node:http';
import { Code } from './envelope.js';
import type { Refusal } from './types.js';
import { toJsonText } from './wire.js';

function defaultCode(status: number): number {
  if (status === 429) return Code.rateLimited;
  if (status === 401) return Code.unknownKey;
  return status >= 500 ? Code.internal : Code.invalidRequest;
}

export function refusalResponse(refusal: Refusal): Response {
  const { status } = refusal;
  const reason = STATUS_CODES[status] ?? 'Error';
  const headers = new Headers();
  if (refusal.retryAfterS !== undefined) headers.set('retry-after', String(refusal.retryAfterS));
  if (refusal.html) {
    headers.set('content-type', 'text/html; charset=utf-8');
    const heading = status === 503 ? 'Down for maintenance' : reason;
    return new Response(`<!doctype html><title>${status} ${reason}</title><h1>${heading}</h1>`, { status, headers });
  }
  headers.set('content-type', 'application/json; charset=utf-8');
  const body = toJsonText({ code: refusal.code ?? defaultCode(status), message: `Refused: ${status} ${reason}`, data: null });
  return new Response(body, { status, headers });
}
