import type { Context } from 'hono';

/** Where the bytes of one SSE stream go. */
export interface SseSink {
  write(chunk: Uint8Array): void;
  /** Ends the stream, after `chunk` when given. */
  end(chunk?: Uint8Array): void;
}

/**
 * Opens an SSE answer: the sink to write it to, and the Response the route returns. `onCancel`
 * is called when the client goes away (and may be called again after `end`).
 */
export type SseTransport = (c: Context, headers: Record<string, string>, onCancel: () => void) => {
  sink: SseSink;
  response: Response;
};

/** A web ReadableStream: runs wherever Hono runs. */
export const webSse: SseTransport = (c, headers, onCancel) => {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    start(ctl) {
      controller = ctl;
    },
    cancel() {
      open = false;
      onCancel();
    },
  });
  const sink: SseSink = {
    write(chunk) {
      if (open) controller.enqueue(chunk);
    },
    end(chunk) {
      if (!open) return;
      open = false;
      if (chunk) controller.enqueue(chunk);
      controller.close();
    },
  };
  return { sink, response: c.body(body, 200, headers) };
};
