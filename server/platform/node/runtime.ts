// Node: a node:http server through @hono/node-server, SSE written straight to its ServerResponse,
// node:http's keep-alive client and node:crypto's HMAC under the upstream client.
import { createAdaptorServer } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import process from 'node:process';
import { getHeapStatistics } from 'node:v8';
import type { ListeningServer, RuntimeOptions, ServerRuntime } from '../runtime.js';
import { urlOf } from '../runtime.js';
import { nodeHmacSha256 } from './hmac.js';
import { nodeHttpClient } from './http-client.js';
import { nodeSse } from './sse-socket.js';

function listening(server: Server, port: number, host: string | null): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A deep accept queue: a burst of widgets reconnecting at once waits instead of retrying SYNs.
    server.listen({ port, backlog: 4096, ...(host ? { host } : {}) }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export function nodeRuntime(options: RuntimeOptions = {}): ServerRuntime {
  return {
    name: 'node',
    version: process.versions.node,
    async listen(fetch, { port, host, keepAliveTimeoutMs }): Promise<ListeningServer> {
      // createAdaptorServer makes a node:http server unless told to make another kind.
      const server = createAdaptorServer({ fetch }) as Server;
      // An idle connection outlives its client's idle timeout (KEEP_ALIVE_TIMEOUT_MS, 65 s): with
      // Node's 5 s a balancer that pools connections for 60 s sends polls on connections the BFF is
      // closing, and answers them 502. Only the idle time between requests: Node's headersTimeout
      // (60 s) and requestTimeout (300 s) count from a request's first byte, so they stay as they are.
      server.keepAliveTimeout = keepAliveTimeoutMs;
      await listening(server, port, host);
      const address = server.address() as AddressInfo;
      return {
        url: urlOf(address.address, address.port),
        port: address.port,
        close() {
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          server.closeIdleConnections();
          return closed;
        },
        closeAll: () => server.closeAllConnections(),
      };
    },
    remoteAddress: (c) => getConnInfo(c).remote.address,
    sse: nodeSse,
    // About half the CPU of undici's fetch per call, which counts when every callback costs a requery.
    upstreamHttp: nodeHttpClient(options.upstreamIdleMs !== undefined ? { idleMs: options.upstreamIdleMs } : {}),
    // The delivery log keeps an excerpt of each answer: the rest of a long one is not read.
    webhookHttp: nodeHttpClient({ maxBytes: 4 * 1024, overLimit: 'cut' }),
    // A few µs where crypto.subtle's thread-pool job costs about 60.
    hmac: nodeHmacSha256,
    // Set by --max-old-space-size, else V8's default from the machine's memory.
    heapLimitBytes: getHeapStatistics().heap_size_limit,
  };
}
