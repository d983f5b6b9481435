import { Buffer } from 'node:buffer';
import http from 'node:http';
import https from 'node:https';
import type { HttpClient, HttpResponse } from '../../upstream/types.js';

/** An answer read whole: its text is in memory (a web Response built from the bytes costs about 20 µs more). */
function readAnswer(status: number, rawHeaders: string[], text: string): HttpResponse {
  const headers = new Headers();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) headers.append(rawHeaders[i]!, rawHeaders[i + 1]!);
  return { status, headers, text: () => Promise.resolve(text) };
}

export interface NodeHttpClientOptions {
  /** Sockets kept per origin between calls (default: no limit, like undici's fetch). */
  maxSockets?: number;
  /** A longer answer fails the call instead of filling memory (default 4 MiB); see `overLimit`. */
  maxBytes?: number;
  /**
   * What a longer answer does: `fail` the call (default), or `cut` it: the first `maxBytes` are the
   * answer's text and the rest is not read (its socket is closed). For a caller that keeps only an
   * excerpt, such as the merchant webhook's delivery log.
   */
  overLimit?: 'fail' | 'cut';
  /**
   * An idle kept-alive socket is closed after this, ms, or a second before the server's
   * `Keep-Alive: timeout=` hint if that is sooner (default 4_000, undici's): a socket the server
   * has just closed would fail the next call, and a create that fails that way cannot be retried.
   */
  idleMs?: number;
}

/**
 * The upstream client's HttpClient over node:http(s) with keep-alive sockets: about half the CPU
 * of undici's fetch per call, which counts when every callback costs a requery. It does what the
 * client asks and no more (a text body, `signal`, no redirects followed). Failures look like
 * fetch's: a TypeError whose `cause` carries the socket's error code, or the signal's reason.
 */
export function nodeHttpClient(options: NodeHttpClientOptions = {}): HttpClient {
  // Node's agent applies the server's hint only under its own `timeout`, which also closes free sockets.
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? Infinity, timeout: options.idleMs ?? 4_000 };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  const maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
  const cut = options.overLimit === 'cut';

  return (target, request) => new Promise<HttpResponse>((resolve, reject) => {
    const url = new URL(target);
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:') throw new TypeError(`nodeHttpClient cannot reach ${url.protocol} URLs`);
    const { signal } = request;
    if (signal.aborted) throw signal.reason;

    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      done();
    };
    const fail = (error: unknown) => settle(() => reject(
      signal.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }),
    ));
    let answer: http.IncomingMessage | null = null;
    const req = (secure ? https : http).request(url, {
      method: request.method,
      headers: request.headers,
      agent: secure ? agents.https : agents.http,
    }, (res) => {
      answer = res;
      const chunks: Buffer[] = [];
      let size = 0;
      const status = res.statusCode ?? 0;
      const done = (text: string) => settle(() => resolve(readAnswer(status < 200 ? 200 : status, res.rawHeaders, text)));
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= maxBytes) {
          chunks.push(chunk);
        } else if (cut) {
          chunks.push(chunk.subarray(0, chunk.length - (size - maxBytes)));
          done(Buffer.concat(chunks).toString('utf8'));
          res.destroy();
        } else {
          res.destroy(new Error(`the answer is longer than ${maxBytes} bytes`));
        }
      });
      res.on('error', fail);
      // A connection cut in the middle of the body may only say 'close'.
      res.on('close', () => {
        if (!res.complete) fail(new Error('the connection closed before the answer was complete'));
      });
      res.on('end', () => {
        const empty = status === 204 || status === 304 || status < 200;
        done(empty ? '' : Buffer.concat(chunks).toString('utf8'));
      });
    });
    // Once the answer has begun, the error belongs to it (its 'error' listener reports it).
    const onAbort = () => (answer ?? req).destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', fail);
    req.end(request.body);
  });
}
