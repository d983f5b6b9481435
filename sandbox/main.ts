// `npm run sandbox`: the sandbox alone on SANDBOX_PORT (default 8788), configured by the
// environment (README: "Running it alone").
import { serve } from '@hono/node-server';
import process from 'node:process';
import { SandboxConfigError, describeDialect, sandboxSettingsFromEnv, type SandboxSettings } from './env.js';
import { createSandbox } from './sandbox.js';

let settings: SandboxSettings;
try {
  settings = sandboxSettingsFromEnv(process.env);
} catch (err) {
  if (!(err instanceof SandboxConfigError)) throw err;
  console.error(`Configuration error: ${err.message}`);
  process.exit(1);
}
const { port, publicUrl, options } = settings;
if (process.env.NODE_ENV === 'production') {
  console.error('Configuration error: the sandbox simulates payments and can pay any bill through /_control; NODE_ENV=production refuses to run it.');
  process.exit(1);
}

const sandbox = createSandbox(options);
const server = serve({ fetch: sandbox.app.fetch, port }, (info) => {
  console.log(`Sandbox of the bill payment service on http://localhost:${info.port} (bills at ${publicUrl}/pay/...)`);
  console.log(`Sandbox ${describeDialect(process.env)}`);
  if (options.clockOffsetMs) console.log(`Sandbox clock: ${Math.abs(options.clockOffsetMs)} ms ${options.clockOffsetMs > 0 ? 'ahead of' : 'behind'} this machine's`);
  if (options.faults) console.log(`Sandbox faults: ${JSON.stringify(options.faults)}`);
});

function stop(): void {
  sandbox.close();
  server.close();
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
