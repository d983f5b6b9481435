// Bun: Hono on Bun.serve, SSE as a web stream, fetch under the upstream client (Bun's own, in
// native code), node:crypto's HMAC (BoringSSL in Bun, synchronous).
import { webSse } from '../../http/sse/sse-transport.js';
import { nodeHmacSha256 } from '../node/hmac.js';
import type { ListeningServer, ServerRuntime } from '../runtime.js';
import { urlOf } from '../runtime.js';

// The part of Bun's API used here (Bun's own types are not a dependency of this package).
interface BunServer {
  readonly port: number;
  readonly hostname: string;
  stop(closeActiveConnections?: boolean): Promise<void>;
  requestIP(request: Request): { address: string } | null;
}
interface Bun {
  version: string;
  serve(options: {
    port: number;
    hostname?: string;
    /** Seconds a connection may be silent, between requests or within a response (default 10, at most 255). */
    idleTimeout?: number;
    fetch(request: Request, server: BunServer): Response | Promise<Response>;
  }): BunServer;
}

const MAX_IDLE_TIMEOUT_S = 255;

export function bunRuntime(): ServerRuntime {
  const bun = (globalThis as { Bun?: Bun }).Bun;
  if (!bun) throw new Error('bunRuntime() runs under Bun');
  return {
    name: 'bun',
    version: bun.version,
    async listen(fetch, { port, host, keepAliveTimeoutMs, longestSilenceMs }): Promise<ListeningServer> {
      // Bun closes a connection silent for idleTimeout (10 s by default) even in the middle of a
      // response: an SSE stream between two heartbeats is such a silence, and must fit in it twice.
      const idleTimeout = Math.min(MAX_IDLE_TIMEOUT_S, Math.ceil(Math.max(keepAliveTimeoutMs, 2 * longestSilenceMs) / 1000));
      const server = bun.serve({
        port,
        ...(host ? { hostname: host } : {}),
        idleTimeout,
        // The server is the Hono env: remoteAddress asks it for the peer's address.
        fetch: (request, self) => fetch(request, self),
      });
      return {
        url: urlOf(server.hostname, server.port),
        port: server.port,
        close: () => server.stop(false),
        closeAll: () => void server.stop(true),
      };
    },
    remoteAddress: (c) => (c.env as BunServer | undefined)?.requestIP(c.req.raw)?.address,
    sse: webSse,
    upstreamHttp: undefined,
    webhookHttp: undefined,
    hmac: nodeHmacSha256,
    heapLimitBytes: null,
  };
}
