// HTTP clients of the BFF: create bills, and SSE watchers as raw requests (one socket each).
import http from 'node:http';
import { Buffer } from 'node:buffer';
import net from 'node:net';
import { eachLimited, monoMs } from './common.mjs';

/** Creates `count` bills through POST /api/bills; resolves to their CreatedBillViews. */
export async function createBills(bffUrl, count, concurrency = 16) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const bills = new Array(count);
  await eachLimited(Array.from({ length: count }, (_, i) => i), concurrency, async (i) => {
    const { status, body } = await request(`${bffUrl}/api/bills`, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '12.50' }),
    });
    if (status !== 201) throw new Error(`create answered ${status}: ${body}`);
    bills[i] = JSON.parse(body);
  });
  agent.destroy();
  return bills;
}

/** One request; resolves to { status, body } (text). */
export function request(url, { method = 'GET', agent, headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Opens an SSE watcher on `url` (its own socket). `onEvent(data, atMs)` gets each status event's
 * data; resolves once the first one arrived. Returns { close }. A raw socket with its own small
 * HTTP/1.1 reader rather than node:http: one process plays a thousand widgets, and the time it
 * spends per socket would otherwise be counted as the BFF's latency.
 */
export function watch(url, onEvent) {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    let opened = false;
    let head = true;
    let chunked = false;
    let pending = Buffer.alloc(0);
    let text = '';
    const socket = net.connect(Number(port), hostname);
    socket.setNoDelay(true);
    socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`);
    const fail = (error) => {
      socket.destroy();
      if (!opened) reject(error);
    };
    socket.on('error', fail);
    socket.on('data', (chunk) => {
      const at = monoMs();
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      if (head) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const lines = pending.toString('latin1', 0, end);
        const status = Number(lines.split(' ', 2)[1]);
        if (status !== 200) return fail(new Error(`events answered ${status}`));
        chunked = /^transfer-encoding: *chunked/im.test(lines);
        head = false;
        pending = pending.subarray(end + 4);
      }
      if (!chunked) {
        text += pending.toString('utf8');
        pending = Buffer.alloc(0);
      }
      while (chunked) {
        const line = pending.indexOf('\r\n');
        if (line < 0) break;
        const size = parseInt(pending.toString('latin1', 0, line), 16);
        if (size === 0 || pending.length < line + 4 + size) break;
        text += pending.toString('utf8', line + 2, line + 2 + size);
        pending = pending.subarray(line + 4 + size);
      }
      let end;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const message = text.slice(0, end);
        text = text.slice(end + 2);
        if (!/^event: ?status$/m.test(message)) continue;
        onEvent(message.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n'), at);
        if (!opened) {
          opened = true;
          resolve({ close: () => socket.destroy() });
        }
      }
    });
  });
}

/** Opens `n` watchers of `urlOf(i)`, `concurrency` connecting at a time. */
export async function openWatchers(n, urlOf, onEvent, concurrency = 200) {
  const watchers = new Array(n);
  await eachLimited(Array.from({ length: n }, (_, i) => i), concurrency, async (i) => {
    watchers[i] = await watch(urlOf(i), (data, at) => onEvent(i, data, at));
  });
  return watchers;
}
