// Deno: Hono on Deno.serve, SSE as a web stream, fetch under the upstream client, node:crypto's
// HMAC (Deno implements it in Rust, synchronously).
import { webSse } from '../../http/sse/sse-transport.js';
import { nodeHmacSha256 } from '../node/hmac.js';
import type { ListeningServer, ServerRuntime } from '../runtime.js';
import { urlOf } from '../runtime.js';

// The part of Deno's API used here (Deno's own types are not a dependency of this package).
interface NetAddr {
  hostname: string;
  port: number;
}
interface DenoServer {
  readonly addr: NetAddr;
  /** Stops taking connections; resolves once the requests in flight are answered. */
  shutdown(): Promise<void>;
}
interface Deno {
  version: { deno: string };
  serve(
    options: { port: number; hostname?: string; onListen?(addr: NetAddr): void },
    handler: (request: Request, info: { remoteAddr: NetAddr }) => Response | Promise<Response>,
  ): DenoServer;
}

export function denoRuntime(): ServerRuntime {
  const deno = (globalThis as { Deno?: Deno }).Deno;
  if (!deno) throw new Error('denoRuntime() runs under Deno');
  return {
    name: 'deno',
    version: deno.version.deno,
    async listen(fetch, { port, host }): Promise<ListeningServer> {
      let listening!: () => void;
      const listened = new Promise<void>((resolve) => (listening = resolve));
      // onListen replaces Deno's own "Listening on" line: the BFF logs its own.
      const server = deno.serve({ port, ...(host ? { hostname: host } : {}), onListen: () => listening() },
        // The connection's info is the Hono env: remoteAddress reads the peer's address from it.
        (request, info) => fetch(request, info));
      await listened;
      return {
        url: urlOf(server.addr.hostname, server.addr.port),
        port: server.addr.port,
        close: () => server.shutdown(),
        // Deno.serve cannot cut a request in flight; the process ends after the drain time anyway.
        closeAll: () => undefined,
      };
    },
    remoteAddress: (c) => (c.env as { remoteAddr?: NetAddr } | undefined)?.remoteAddr?.hostname,
    sse: webSse,
    upstreamHttp: undefined,
    webhookHttp: undefined,
    hmac: nodeHmacSha256,
    heapLimitBytes: null,
  };
}
