// The `createResetAfterMade` fault: the connection is reset (TCP RST) instead of answered, so the
// client sees a network error and no HTTP status at all. A Response whose body stream fails does
// not do it: @hono/node-server then writes a 500 or has already flushed the status line.
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';

/** The TCP socket of the request when @hono/node-server serves it over HTTP/1, else null. */
function socketOf(c: Context): Socket | null {
  const bindings = c.env as Partial<HttpBindings> | undefined;
  let incoming: unknown = bindings?.incoming;
  if (!(incoming instanceof IncomingMessage)) {
    // Served as `serve({fetch: (req) => app.fetch(req)})` the bindings are dropped, but
    // node-server's Request still holds its IncomingMessage under a symbol it does not export.
    const raw = c.req.raw as unknown as Record<symbol, unknown>;
    const key = Object.getOwnPropertySymbols(raw).find((s) => s.description === 'incomingKey');
    incoming = key ? raw[key] : undefined;
  }
  return incoming instanceof IncomingMessage && incoming.socket instanceof Socket ? incoming.socket : null;
}

/**
 * Resets the request's connection; the Response returned carries node-server's "already sent"
 * marker (whatever is written after the reset goes nowhere). Without a socket (in-process
 * `app.request`, HTTP/2) the answer is a 200 whose body fails to read, the nearest thing to a lost
 * connection there.
 */
export function resetConnection(c: Context): Response {
  const socket = socketOf(c);
  if (socket) {
    socket.resetAndDestroy();
    return new Response(null, { headers: RESPONSE_ALREADY_SENT.headers });
  }
  return new Response(new ReadableStream({ start: (controller) => controller.error(new Error('Injected connection reset')) }), { status: 200 });
}
