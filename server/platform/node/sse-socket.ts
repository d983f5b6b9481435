import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { webSse } from '../../http/sse/sse-transport.js';
import type { SseTransport } from '../../http/sse/sse-transport.js';

// @hono/node-server recognises "already sent" only on a web Response; once it serves, it swaps
// globalThis.Response for a lighter subclass, and a marker built from that (its own, when its
// module loads after serve() was called) makes it write the headers a second time.
let alreadySent: Response | null = null;
function alreadySentMarker(): Response {
  if (alreadySent) return alreadySent;
  const parent: unknown = Object.getPrototypeOf(Response);
  const WebResponse = typeof parent === 'function' && parent !== Function.prototype ? (parent as typeof Response) : Response;
  alreadySent = Object.getPrototypeOf(RESPONSE_ALREADY_SENT) === WebResponse.prototype
    ? RESPONSE_ALREADY_SENT
    : new WebResponse(null, { headers: RESPONSE_ALREADY_SENT.headers });
  return alreadySent;
}

/**
 * SSE written straight to Node's ServerResponse. A web stream costs each watcher a reader promise
 * per frame and another for its end; on a paid bill with a thousand watchers that is most of the
 * fan-out. Here a final frame is one `end()` per watcher. Outside @hono/node-server it falls back
 * to the web stream.
 */
export const nodeSse: SseTransport = (c, headers, onCancel) => {
  const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
  if (!outgoing) return webSse(c, headers, onCancel);
  // Built by Hono so that it carries the headers middleware stamped on the context.
  const head = c.body(null, 200, headers);
  outgoing.writeHead(200, Object.fromEntries(head.headers));
  outgoing.on('close', onCancel);
  return {
    sink: {
      write(chunk) {
        if (!outgoing.writableEnded) outgoing.write(chunk);
      },
      end(chunk) {
        if (!outgoing.writableEnded) outgoing.end(chunk);
      },
    },
    response: alreadySentMarker(),
  };
};
