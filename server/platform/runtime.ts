// What differs per runtime, behind one interface: the HTTP server (node:http through
// @hono/node-server, Bun.serve, Deno.serve), the client's address, and the fast paths that Node
// has and the others do not need (SSE written to Node's ServerResponse, node:http's keep-alive
// client). Everything else is web standards, or node:* modules that all three implement.
import type { Context } from 'hono';
import type { SseTransport } from '../http/sse/sse-transport.js';
import type { HmacSha256 } from '../upstream/signers.js';
import type { HttpClient } from '../upstream/types.js';

export type RuntimeName = 'node' | 'bun' | 'deno';

export type FetchHandler = (request: Request, env: unknown) => Response | Promise<Response>;

export interface ListenOptions {
  port: number;
  /** null: every interface. */
  host: string | null;
  /** How long an idle connection is kept between requests, ms. */
  keepAliveTimeoutMs: number;
  /**
   * The longest silence of a response in progress (an SSE stream between heartbeats), ms: where the
   * server closes connections idle mid-response (Bun), its idle timeout is at least this.
   */
  longestSilenceMs: number;
}

export interface ListeningServer {
  /** Where it listens, e.g. `http://127.0.0.1:8787` (`localhost` when it listens on every interface). */
  url: string;
  port: number;
  /** Stops taking connections and closes the idle ones; resolves once the connections are gone. */
  close(): Promise<void>;
  /** Cuts the connections still open (after the drain time). */
  closeAll(): void;
}

export interface ServerRuntime {
  name: RuntimeName;
  /** e.g. `22.13.0`, `1.4.5`. */
  version: string;
  listen(fetch: FetchHandler, options: ListenOptions): Promise<ListeningServer>;
  /** The address of the peer of a request served by `listen`. */
  remoteAddress(c: Context): string | undefined;
  /** How SSE bytes reach the client. */
  sse: SseTransport;
  /** The upstream client's HTTP, and the merchant webhook's (which reads at most an excerpt of an answer); undefined: fetch. */
  upstreamHttp: HttpClient | undefined;
  webhookHttp: HttpClient | undefined;
  /** The signers' HMAC; undefined: crypto.subtle. */
  hmac: HmacSha256 | undefined;
  /** The JS heap's limit, bytes (V8's `heap_size_limit`); null where the runtime does not say (Bun, Deno). */
  heapLimitBytes: number | null;
}

interface RuntimeGlobals {
  Bun?: { version: string };
  Deno?: { version: { deno: string } };
}

/** Which runtime this is: Bun and Deno say so on globalThis, Node does not. */
export function runtimeName(): RuntimeName {
  const globals = globalThis as RuntimeGlobals;
  if (globals.Bun) return 'bun';
  if (globals.Deno) return 'deno';
  return 'node';
}

export interface RuntimeOptions {
  /**
   * How long the upstream client keeps an idle socket to the service, ms (BILL_API_IDLE_SOCKET_MS):
   * below the idle timeout of the edge in front of it. Node's client only; Bun's and Deno's fetch keep their own.
   */
  upstreamIdleMs?: number;
}

/** This runtime's adapter, loaded alone: Node's brings @hono/node-server, which the others do not use. */
export async function serverRuntime(options: RuntimeOptions = {}): Promise<ServerRuntime> {
  switch (runtimeName()) {
    case 'bun':
      return (await import('./bun/runtime.js')).bunRuntime();
    case 'deno':
      return (await import('./deno/runtime.js')).denoRuntime();
    case 'node':
      return (await import('./node/runtime.js')).nodeRuntime(options);
  }
}

/** `http://host:port` of a listening address; every interface is `localhost`. */
export function urlOf(host: string, port: number): string {
  const bracketed = host.includes(':') ? `[${host}]` : host;
  return `http://${bracketed === '[::]' || bracketed === '0.0.0.0' ? 'localhost' : bracketed}:${port}`;
}
