// A client of the service whose backoff sleeps are recorded instead of waited for.
import { SANDBOX_DEMO_CREDENTIALS } from '../../../sandbox/credentials.js';
import { loadConfig } from '../../../server/config.js';
import { builtInSigner, createBillApi, type BillApi, type BillApiOptions } from '../../../server/upstream/index.js';

export function recordingClient(
  base: string,
  env: Record<string, string> = {},
  extra: Partial<BillApiOptions> = {},
): { api: BillApi; delays: number[] } {
  const delays: number[] = [];
  const api = createBillApi(loadConfig({ BILL_API_BASE_URL: base, ...env }, SANDBOX_DEMO_CREDENTIALS).upstream, {
    signer: builtInSigner('hmac-sha256')!,
    pageBase: 1,
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0.5,
    ...extra,
  });
  return { api, delays };
}
