// Reads `event: status` messages from a live SSE response.
import type { BillView } from '../../../contract/bill-view.js';

export interface SseReader {
  /** The next status event, or null when the stream ended. */
  next(): Promise<BillView | null>;
  cancel(): Promise<void>;
}

export function readSse(res: Response): SseReader {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n');
          if (!lines.includes('event: status')) continue;
          const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
          return JSON.parse(data) as BillView;
        }
        const { done, value } = await reader.read();
        if (done) return null;
        buffer += value;
      }
    },
    cancel: () => reader.cancel(),
  };
}
