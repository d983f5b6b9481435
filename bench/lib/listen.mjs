// A fetch handler served on 127.0.0.1 (any free port), closed with every connection. The accept
// queue is as deep as the server's own (server/platform/node/runtime.ts: 4096): a burst of
// watchers reconnecting at once waits in it instead of retrying SYNs.
import { createAdaptorServer } from '@hono/node-server';

export async function listen(fetch) {
  const server = await new Promise((resolve, reject) => {
    const s = createAdaptorServer({ fetch });
    s.once('error', reject);
    s.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => resolve(s));
  });
  const { port } = server.address();
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
