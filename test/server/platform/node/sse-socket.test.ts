// The Node entry's SSE writer, in a process of its own: the order in which modules load matters to it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

// @hono/node-server swaps globalThis.Response once it serves; a server that loads nodeSse only then
// (a lazy route module) must still get its stream written once, without a second set of headers.
const LATE_IMPORT = `
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
const app = new Hono();
const server = serve({ fetch: (req, env) => app.fetch(req, env), port: 0, hostname: '127.0.0.1' }, async ({ port }) => {
  const { nodeSse } = await import('./server/platform/node/sse-socket.ts');
  app.get('/events', (c) => {
    const { sink, response } = nodeSse(c, { 'Content-Type': 'text/event-stream' }, () => undefined);
    sink.write(new TextEncoder().encode('data: one\\n\\n'));
    sink.end(new TextEncoder().encode('data: two\\n\\n'));
    return response;
  });
  const res = await fetch('http://127.0.0.1:' + port + '/events');
  console.log(JSON.stringify({ status: res.status, type: res.headers.get('content-type'), text: await res.text() }));
  server.close();
});
`;

test('nodeSse writes one answer even when it loads after the server started serving', async () => {
  const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', LATE_IMPORT], { cwd: ROOT, timeout: 20_000 },
      (error, out, err) => (error ? reject(Object.assign(error, { stderr: err })) : resolve({ stdout: out, stderr: err })));
  });
  assert.doesNotMatch(stderr, /ERR_HTTP_HEADERS_SENT|Error/);
  assert.deepEqual(JSON.parse(stdout.trim()), { status: 200, type: 'text/event-stream', text: 'data: one\n\ndata: two\n\n' });
});
