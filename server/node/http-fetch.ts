import { Buffer } from 'node:buffer';
import http from 'node:http';
import https from 'node:https';

/**
 * A Response read whole before it is handed out: text(), json() and arrayBuffer() answer from
 * memory (a web Response built from the bytes costs about 20 µs more per call); `body` is null.
 */
class ReadResponse extends Response {
  readonly #text: string;
  constructor(text: string, init: ResponseInit) {
    super(null, init);
    this.#text = text;
  }
  override text(): Promise<string> {
    return Promise.resolve(this.#text);
  }
  override json(): Promise<unknown> {
    return this.text().then(JSON.parse);
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(new TextEncoder().encode(this.#text).buffer);
  }
}

export interface NodeFetchOptions {
  /** Sockets kept per origin between calls (default: no limit, like undici's fetch). */
  maxSockets?: number;
  /** A longer answer fails the call instead of filling memory (default 4 MiB). */
  maxBytes?: number;
  /**
   * An idle kept-alive socket is closed after this, ms, or a second before the server's
   * `Keep-Alive: timeout=` hint if that is sooner (default 4_000, undici's): a socket the server
   * has just closed would fail the next call, and a create that fails that way cannot be retried.
   */
  idleMs?: number;
}

/**
 * A `fetch` for the upstream client over node:http(s) with keep-alive sockets: about half the CPU
 * of undici's fetch per call, which counts when every callback costs a requery. It covers what a
 * server-to-server JSON call needs (method, headers, a text body, `signal`) and never follows a
 * redirect (the client asks `redirect: 'manual'` and reports one). Failures look like fetch's:
 * a TypeError whose `cause` carries the socket's error code, or the signal's reason.
 */
export function nodeFetch(options: NodeFetchOptions = {}): typeof fetch {
  // Node's agent applies the server's hint only under its own `timeout`, which also closes free sockets.
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? Infinity, timeout: options.idleMs ?? 4_000 };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  const maxBytes = options.maxBytes ?? 4 * 1024 * 1024;

  return (input, init = {}) => new Promise<Response>((resolve, reject) => {
    if (input instanceof Request) throw new TypeError('nodeFetch takes a URL, not a Request');
    if (init.body != null && typeof init.body !== 'string') throw new TypeError('nodeFetch sends text bodies only');
    const url = new URL(input);
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:') throw new TypeError(`nodeFetch cannot fetch ${url.protocol} URLs`);
    const { signal } = init;
    if (signal?.aborted) throw signal.reason;

    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      done();
    };
    const fail = (error: unknown) => settle(() => reject(
      signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }),
    ));
    let answer: http.IncomingMessage | null = null;
    const headers = new Headers(init.headers);
    const req = (secure ? https : http).request(url, {
      method: init.method ?? 'GET',
      headers: Object.fromEntries(headers),
      agent: secure ? agents.https : agents.http,
    }, (res) => {
      answer = res;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) res.destroy(new Error(`the answer is longer than ${maxBytes} bytes`));
        else chunks.push(chunk);
      });
      res.on('error', fail);
      // A connection cut in the middle of the body may only say 'close'.
      res.on('close', () => {
        if (!res.complete) fail(new Error('the connection closed before the answer was complete'));
      });
      res.on('end', () => settle(() => {
        const status = res.statusCode ?? 0;
        const empty = status === 204 || status === 304 || status < 200;
        const pairs: [string, string][] = [];
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        resolve(new ReadResponse(empty ? '' : Buffer.concat(chunks).toString('utf8'), {
          status: status < 200 ? 200 : status, statusText: res.statusMessage ?? '', headers: pairs,
        }));
      }));
    });
    // Once the answer has begun, the error belongs to it (its 'error' listener reports it).
    const onAbort = () => (answer ?? req).destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', fail);
    req.end(init.body ?? undefined);
  });
}
