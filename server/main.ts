// The BFF's entry (`npm start`; `node|bun|deno run -A dist/server/server/main.js`): the BFF on PORT
// (HOST), configured by the environment; SIGTERM and SIGINT close it gracefully (SSE streams end so
// widgets reconnect elsewhere; requests in flight get 5 s). In a clone of the repository, outside
// production, the demo beside it is plugged in (demo/server/index.ts); the package has none.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { ConfigError } from './config.js';
import { serveBillCheckout, type ServeBillCheckoutOptions } from './process/serve.js';
import { packageRoot } from './process/static-files.js';
import { BillApiConfigError } from './upstream/errors.js';

type DemoServer = (input: { env: Record<string, string | undefined>; root: string }) =>
  Pick<ServeBillCheckoutOptions, 'hooks' | 'routes' | 'pages'> | null;

/** The demo's server part when it lies beside this entry (compiled or as TypeScript sources). */
async function demoBeside(env: Record<string, string | undefined>): Promise<Pick<ServeBillCheckoutOptions, 'hooks' | 'routes' | 'pages'> | null> {
  if (env.NODE_ENV === 'production') return null;
  // In this entry's language (dist/server/demo/ or demo/), its URL made at run time: no bundler
  // looks for a demo the package does not ship.
  const beside = /^(.+\/)server\/main\.(js|ts)$/.exec(import.meta.url);
  if (!beside) return null;
  const demo = `${beside[1]}demo/server/index.${beside[2]}`;
  if (!existsSync(fileURLToPath(demo))) return null;
  const { demoServer } = (await import(/* webpackIgnore: true */ /* turbopackIgnore: true */ /* @vite-ignore */ demo)) as { demoServer: DemoServer };
  return demoServer({ env, root: packageRoot() });
}

try {
  const running = await serveBillCheckout({ env: process.env, ...(await demoBeside(process.env)) });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: 'stopping', signal }));
    running.close().then(() => process.exit(0), (error: unknown) => {
      console.error('bill-checkout did not stop cleanly:', error instanceof Error ? error.message : String(error));
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (error) {
  if (error instanceof ConfigError || error instanceof BillApiConfigError) {
    console.error(`Configuration error: ${error.message}`);
  } else {
    console.error('bill-checkout failed to start:', error instanceof Error ? error.message : String(error));
  }
  process.exit(1);
}
