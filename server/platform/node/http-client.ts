import { Buffer } from 'node:buffer';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { HttpClient, HttpResponse } from '../../upstream/types.js';

/** An answer read whole: its text is in memory (a web Response built from the bytes costs about 20 µs more). */
function readAnswer(status: number, rawHeaders: string[], text: string | Error): HttpResponse {
  const headers = new Headers();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) headers.append(rawHeaders[i]!, rawHeaders[i + 1]!);
  return { status, headers, text: () => (typeof text === 'string' ? Promise.resolve(text) : Promise.reject(text)) };
}

/** What this client asks for and decodes, as the web runtimes' fetch does. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/**
 * The decoders of a Content-Encoding (`gzip`, `x-gzip`, `deflate`, `br`; a list is undone from its
 * last coding back), or null for an answer sent as it is; throws for a coding this client cannot undo.
 */
function decoders(contentEncoding: string | undefined): zlib.Gunzip[] | null {
  const codings = (contentEncoding ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return null;
  return codings.reverse().map((coding) => {
    // Lenient about a truncated last block, as browsers are: a whole answer cut short fails in JSON instead.
    const flush = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
    if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip(flush);
    // "deflate" is zlib-wrapped by the RFC, raw in some servers: the first byte tells.
    if (coding === 'deflate') return zlib.createUnzip(flush);
    if (coding === 'br') return zlib.createBrotliDecompress() as unknown as zlib.Gunzip;
    throw new Error(`the answer is encoded as "${coding}", which this client cannot decode`);
  });
}

/** A body that does not decode: the answer came, and cannot be read (ContentDecodingError, for the caller to tell from a cut connection). */
export class ContentDecodingError extends Error {
  override name = 'ContentDecodingError';
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
    const headers = new Headers(request.headers);
    if (!headers.has('accept-encoding')) headers.set('accept-encoding', ACCEPT_ENCODING);
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
      headers: Object.fromEntries(headers),
      agent: secure ? agents.https : agents.http,
    }, (res) => {
      answer = res;
      const status = res.statusCode ?? 0;
      const empty = status === 204 || status === 304 || status < 200;
      const done = (text: string | Error) => settle(() => resolve(readAnswer(status < 200 ? 200 : status, res.rawHeaders, text)));
      let decoding: zlib.Gunzip[] | null;
      try {
        decoding = empty ? null : decoders(res.headers['content-encoding']);
      } catch (error) {
        res.resume();
        done(new ContentDecodingError((error as Error).message));
        return;
      }
      // The bytes as sent are counted, and the decoded ones too: a small answer may decode to a huge one.
      let body: Readable = res;
      let decodeFailed = false;
      for (const decoder of decoding ?? []) {
        decoder.on('error', (error) => {
          decodeFailed = true;
          done(new ContentDecodingError(`the answer's body does not decode as ${res.headers['content-encoding']}: ${error.message}`));
          res.destroy();
        });
        body = body.pipe(decoder);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      body.on('data', (chunk: Buffer) => {
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
        if (!res.complete && !decodeFailed) fail(new Error('the connection closed before the answer was complete'));
      });
      body.on('end', () => {
        if (!decodeFailed) done(empty ? '' : Buffer.concat(chunks).toString('utf8'));
      });
    });
    // Once the answer has begun, the error belongs to it (its 'error' listener reports it).
    const onAbort = () => (answer ?? req).destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', fail);
    req.end(request.body);
  });
}
