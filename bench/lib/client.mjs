// HTTP clients of the BFF: create bills, and SSE watchers as raw requests (one socket each).
import http from 'node:http';
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
 * data; resolves once the first one arrived. Returns { close }.
 */
export function watch(url, onEvent) {
  return new Promise((resolve, reject) => {
    let opened = false;
    const req = http.get(url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`events answered ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk) => {
        const at = monoMs();
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = message.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
          if (!/^event: ?status$/m.test(message)) continue;
          onEvent(data, at);
          if (!opened) {
            opened = true;
            resolve({ close: () => req.destroy() });
          }
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', (error) => {
      if (!opened) reject(error);
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
