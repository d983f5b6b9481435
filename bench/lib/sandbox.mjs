// The sandbox of the service in the bench process, over real HTTP, with each requery's arrival time.
import { listen } from './listen.mjs';
import { monoMs } from './common.mjs';
import { importServer } from './server-modules.mjs';

/**
 * Options: `callbackFetch` replaces the fetch the sandbox's callbacks go through (to hold them and
 * send them at a chosen pace). Returns { url, sandbox, requeryTimes: Map<billId, ms[]>, close }.
 */
export async function startSandbox(options = {}) {
  const { createSandbox } = await importServer('sandbox/sandbox.ts');
  const requeryTimes = new Map();
  let sandbox = null;
  const served = await listen((req) => {
    const at = req.url.indexOf('/v1/bill/requery?');
    if (at >= 0) {
      const billId = new URL(req.url).searchParams.get('billId');
      const list = requeryTimes.get(billId) ?? [];
      list.push(monoMs());
      requeryTimes.set(billId, list);
    }
    return sandbox.app.fetch(req);
  });
  sandbox = createSandbox({
    publicUrl: served.url,
    callbackRetryDelayMs: 1000,
    ...(options.callbackFetch ? { fetch: options.callbackFetch } : {}),
  });
  return {
    url: served.url,
    sandbox,
    requeryTimes,
    async close() {
      sandbox.close();
      await served.close();
    },
  };
}
