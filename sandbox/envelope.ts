// The response envelope `{code, message, data}` and the sandbox's response codes.
import { toJsonText } from './wire.js';

export const Code = {
  ok: 0,
  unknownKey: 1001,
  badSign: 1002,
  invalidRequest: 1003,
  notFound: 1004,
  notCancellable: 1005,
  rateLimited: 1006,
  internal: 1500,
} as const;
export type Code = (typeof Code)[keyof typeof Code];

const HTTP_STATUS: Record<Code, number> = {
  0: 200, 1001: 401, 1002: 401, 1003: 400, 1004: 404, 1005: 409, 1006: 429, 1500: 500,
};

/** A refusal with its envelope code; routes turn it into an error envelope. */
export class SandboxError extends Error {
  override name = 'SandboxError';
  constructor(readonly code: Exclude<Code, 0>, message: string) {
    super(message);
  }
}

export function jsonResponse(text: string, status: number): Response {
  return new Response(text, { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
}

/** `code` is the dialect's success code on service routes. */
export function okText(data: unknown, code: number = Code.ok): string {
  return toJsonText({ code, message: 'OK', data });
}

export function ok(data: unknown): Response {
  return jsonResponse(okText(data), 200);
}

export function fail(code: Exclude<Code, 0>, message: string, httpStatus = HTTP_STATUS[code]): Response {
  return jsonResponse(toJsonText({ code, message, data: null }), httpStatus);
}

export function failFrom(err: unknown): Response {
  if (err instanceof SandboxError) return fail(err.code, err.message);
  return fail(Code.internal, 'Internal error');
}
