// PostgreSQL amplification: two BFF instances on one throwaway cluster, many clients polling the
// status of a few bills on both for a number of refresh windows. Prints sandbox requeries per bill
// per window (1.0 is one requery per window for the whole fleet; without the shared claim it
// would approach one per instance).
import { performance } from 'node:perf_hooks';
import { tsImport } from 'tsx/esm/api';

const { startFleet } = await tsImport('../test/server/support/pg-fleet.ts', import.meta.url);
const windowMs = 500;
const windows = process.env.BENCH_QUICK ? 6 : 20;
const pollers = 8;
const fleet = await startFleet({ env: { REFRESH_WINDOW_MS: String(windowMs), RECONCILE_INTERVAL_MS: '3600000' } });
try {
  const bills = [];
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${fleet.instances[i % 2].url}/api/bills`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ amount: '10.00' }),
    });
    bills.push(await res.json());
  }
  const before = fleet.sandbox.stats().requeryByBill;
  const start = performance.now();
  let reads = 0;
  await Promise.all(bills.flatMap((bill) => fleet.instances.flatMap((instance) => Array.from({ length: pollers }, async () => {
    while (performance.now() - start < windows * windowMs) {
      const res = await fetch(`${instance.url}/api/bills/${bill.billId}?token=${bill.token}`);
      await res.arrayBuffer();
      reads++;
    }
  }))));
  const elapsedWindows = (performance.now() - start) / windowMs;
  const after = fleet.sandbox.stats().requeryByBill;
  const perBill = bills.map((b) => (after[b.billId] ?? 0) - (before[b.billId] ?? 0));
  const mean = perBill.reduce((a, b) => a + b, 0) / perBill.length;
  console.log(`pg.amplification.requeries_per_bill_per_window=${(mean / elapsedWindows).toFixed(2)} instances=2 window_ms=${windowMs} windows=${elapsedWindows.toFixed(1)} reads=${reads} requeries_per_bill=${perBill.join(',')}`);
} finally {
  await fleet.stop();
}
