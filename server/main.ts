// `npm start`: the BFF on PORT (HOST), configured by the environment; SIGTERM and SIGINT close it
// gracefully (SSE streams end so widgets reconnect elsewhere; requests in flight get 5 s).
import process from 'node:process';
import { ConfigError } from './config.js';
import { serveBillCheckout } from './platform/serve.js';
import { BillApiConfigError } from './upstream/errors.js';

try {
  const running = await serveBillCheckout({ env: process.env });
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
