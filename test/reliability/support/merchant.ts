// The merchant's side: a webhook receiver counting deliveries and webhook-ids per bill.
import type { TestContext } from 'node:test';
import { serveOn } from '../../server/support/servers.js';

export interface Merchant {
  url: string;
  /** Deliveries per bill, each as its webhook-id. */
  deliveries: Map<string, string[]>;
  /** Resolves once `count` bills have had a delivery. */
  until(count: number): Promise<void>;
}

export async function startMerchant(t: TestContext): Promise<Merchant> {
  const deliveries = new Map<string, string[]>();
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = await serveOn(async (req) => {
    const body = (await req.json()) as { data?: { billId?: string } };
    const billId = body.data?.billId ?? '?';
    const ids = deliveries.get(billId) ?? [];
    ids.push(req.headers.get('webhook-id') ?? '');
    deliveries.set(billId, ids);
    for (const w of [...waiters]) {
      if (deliveries.size >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
    return new Response(null, { status: 204 });
  });
  t.after(() => server.close());
  return {
    url: `${server.url}/hook`,
    deliveries,
    until: (count) => deliveries.size >= count
      ? Promise.resolve()
      : new Promise((resolve) => waiters.push({ count, resolve })),
  };
}

export const WEBHOOK_SECRET = 'whsec_' + Buffer.from('reliability-webhook-secret-0123456789!').toString('base64');

/** Bills whose notice was lost (none) or duplicated (more than one delivery, or more than one id). */
export function noticeProblems(
  finals: readonly string[], deliveries: Map<string, string[]>, label: string, exactDeliveries = true,
): { lost: string[]; duplicated: string[] } {
  const lost: string[] = [];
  const duplicated: string[] = [];
  for (const billId of finals) {
    const ids = deliveries.get(billId) ?? [];
    if (ids.length === 0) lost.push(`${label} ${billId}`);
    else if (new Set(ids).size > 1 || (exactDeliveries && ids.length > 1)) duplicated.push(`${label} ${billId} x${ids.length}`);
  }
  for (const billId of deliveries.keys()) {
    if (!finals.includes(billId)) duplicated.push(`${label} ${billId}: a notice for a bill not final`);
  }
  return { lost, duplicated };
}
