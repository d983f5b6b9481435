// Shared helpers of the sandbox tests (this file holds no tests). Requests are signed here with
// the test's own HMAC code, independent of the BFF's upstream client.
import type { TestContext } from 'node:test';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createSandbox, type CallbackAttempt, type Sandbox, type SandboxOptions, type StatusRecordWire } from '../../../sandbox/sandbox.js';

export const KEY = 'sandbox-demo-key';
export const SECRET = 'sandbox-demo-secret';

export function sign(secret: string, method: string, path: string, query: string, body: string): string {
  return createHmac('sha256', secret).update(`${method}\n${path}\n${query}\n${body}`).digest('hex');
}

/** The same HMAC as `sign`, base64 (the dialect scheme `hmac-sha256-base64`). */
export function signBase64(secret: string, method: string, path: string, query: string, body: string): string {
  return createHmac('sha256', secret).update(`${method}\n${path}\n${query}\n${body}`).digest('base64');
}

export type RequestSigner = typeof sign;

export interface Envelope<T = unknown> {
  code: number;
  message: string;
  data: T;
}

export interface Reply<T = unknown> {
  status: number;
  text: string;
  json: Envelope<T>;
}

export interface CallOptions {
  key?: string | null;
  secret?: string;
  contentType?: string | null;
  /** Sign this path instead of the one requested. */
  signedPath?: string;
}

export class Client {
  constructor(readonly origin: string, readonly prefix: string, readonly signer: RequestSigner = sign) {}

  async raw(method: string, pathAndQuery: string, body?: string, o: CallOptions = {}): Promise<Response> {
    const url = new URL(this.prefix + pathAndQuery, this.origin);
    const headers: Record<string, string> = {};
    if (o.key !== null) headers.Key = o.key ?? KEY;
    headers.Sign = this.signer(o.secret ?? SECRET, method, o.signedPath ?? url.pathname, url.search.slice(1), body ?? '');
    if (body !== undefined && o.contentType !== null) headers['Content-Type'] = o.contentType ?? 'application/json';
    return fetch(url, { method, headers, body });
  }

  async call<T = unknown>(method: string, pathAndQuery: string, body?: unknown, o: CallOptions = {}): Promise<Reply<T>> {
    const text = typeof body === 'string' || body === undefined ? body : JSON.stringify(body);
    const res = await this.raw(method, pathAndQuery, text, o);
    const resText = await res.text();
    let json: Envelope<T>;
    try {
      json = JSON.parse(resText) as Envelope<T>;
    } catch {
      json = { code: Number.NaN, message: 'not JSON', data: null as T };
    }
    return { status: res.status, text: resText, json };
  }

  create(body: Record<string, unknown> | string, o?: CallOptions): Promise<Reply<CreatedData>> {
    return this.call<CreatedData>('POST', '/v1/bill/create', body, o);
  }

  requery(billId: string): Promise<Reply<Rec>> {
    return this.call<Rec>('GET', `/v1/bill/requery?billId=${encodeURIComponent(billId)}`);
  }

  list(body: unknown = {}): Promise<Reply<{ lists: Rec[]; total: number }>> {
    return this.call('POST', '/v1/bills', body);
  }

  cancel(billId: string): Promise<Reply<Rec>> {
    return this.call<Rec>('POST', '/v1/bill/cancel', { billId });
  }
}

export interface CreatedData {
  billId: string;
  billUrl: string;
  billAmount: number;
  requireGCAmount: number;
  currency: string;
  merchantReference: string;
  expiredOn: number;
}

/** A status record as the sandbox writes it. */
export type Rec = StatusRecordWire;

type FetchFn = (req: Request) => Response | Promise<Response>;

/** Serves a fetch function or an app on 127.0.0.1, closed by the test's after hook; resolves its URL. */
export async function listen(t: TestContext, target: FetchFn | { fetch: FetchFn }): Promise<string> {
  const fetchFn = typeof target === 'function' ? target : target.fetch;
  return new Promise((resolve) => {
    const server = serve({ fetch: fetchFn, port: 0, hostname: '127.0.0.1' }, (info) => {
      resolve(`http://127.0.0.1:${info.port}`);
    });
    t.after(() => new Promise<void>((done) => {
      server.close(() => done());
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
    }));
  });
}

export interface Started {
  sandbox: Sandbox;
  client: Client;
  /** Origin + mount prefix. */
  base: string;
}

/** Serves a new sandbox on 127.0.0.1, under `mount` of a parent app when given. */
export async function startSandbox(t: TestContext, options: SandboxOptions = {}, mount = ''): Promise<Started> {
  const sandbox = createSandbox({ sweepIntervalMs: 0, callbackRetryDelayMs: 1, ...options });
  t.after(() => sandbox.close());
  let app = sandbox.app;
  if (mount) {
    app = new Hono();
    app.route(mount, sandbox.app);
  }
  const origin = await listen(t, (req) => app.fetch(req));
  return { sandbox, client: new Client(origin, mount), base: origin + mount };
}

export interface Received {
  method: string;
  url: string;
  body: string;
}

/** A callback receiver answering `status(n)` to its n-th request (1-based). */
export async function startReceiver(
  t: TestContext,
  status: (n: number, req: Received) => number = () => 200,
): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const r = { method: req.method ?? '', url: req.url ?? '', body };
      received.push(r);
      res.writeHead(status(received.length, r)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((done) => {
    server.close(() => done());
    server.closeAllConnections();
  }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`, received };
}

/** Resolves with the attempts once `done` is true of all 'callback' events seen so far. */
export function callbacksUntil(
  sandbox: Sandbox,
  done: (attempts: CallbackAttempt[]) => boolean,
): Promise<CallbackAttempt[]> {
  const seen: CallbackAttempt[] = [];
  return new Promise((resolve) => {
    const on = (e: Event): void => {
      seen.push((e as CustomEvent<CallbackAttempt>).detail);
      if (done(seen)) {
        sandbox.events.removeEventListener('callback', on);
        resolve(seen);
      }
    };
    sandbox.events.addEventListener('callback', on);
  });
}

/** A control route of the sandbox at `base` (not the service's: no auth), its envelope and Date header. */
export async function control<T>(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Envelope<T>; date: string | null }> {
  const res = await fetch(`${base}/_control${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Envelope<T>, date: res.headers.get('date') };
}

/** mulberry32: a small seeded generator, so runs repeat. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export function clock(start = 1_800_000_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

export function newBill(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount: 10, callbackUrl: 'http://127.0.0.1:9/cb', redirectUrl: 'https://shop.test/return', ...extra };
}
