// `npm run sandbox`: the sandbox alone on SANDBOX_PORT (default 8788).
import { serve } from '@hono/node-server';
import process from 'node:process';
import { createSandbox } from './sandbox.js';

const port = Number(process.env.SANDBOX_PORT ?? 8788);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`SANDBOX_PORT must be a port number, got "${process.env.SANDBOX_PORT}"`);
  process.exit(1);
}
const publicUrl = (process.env.SANDBOX_PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');

const sandbox = createSandbox({ publicUrl });
const server = serve({ fetch: sandbox.app.fetch, port }, (info) => {
  console.log(`Sandbox of the bill payment service on http://localhost:${info.port} (bills at ${publicUrl}/pay/...)`);
});

function stop(): void {
  sandbox.close();
  server.close();
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
