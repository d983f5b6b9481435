// PostgreSQL ingest: two BFF instances on one throwaway cluster behind a balancer; N bills paid in
// the sandbox, whose callbacks (sent by the sandbox, spread over both) each make a BFF requery the
// sandbox and store the final status durably (synchronous_commit on, fsync on). Prints callbacks
// per second (pay → every final stored) and lost = bills - finals stored.
import pg from 'pg';
import { performance } from 'node:perf_hooks';
import { tsImport } from 'tsx/esm/api';

const { startFleet } = await tsImport('../test/server/support/pg-fleet.ts', import.meta.url);
const count = Number(process.env.BENCH_QUICK ? 200 : 1000);
const fleet = await startFleet({ env: { RECONCILE_INTERVAL_MS: '3600000', LOG_LEVEL: 'warn' }, sandbox: { callbackRetryDelayMs: 200 } });
const db = new pg.Client(fleet.databaseUrl);
await db.connect();
try {
  const bills = [];
  const queue = Array.from({ length: count }, (_, i) => i);
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (queue.shift() !== undefined) {
      const res = await fetch(`${fleet.url}/api/bills`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ amount: '10.00' }),
      });
      if (res.status !== 201) throw new Error(`create answered ${res.status}`);
      bills.push(await res.json());
    }
  }));
  const start = performance.now();
  for (const bill of bills) fleet.sandbox.pay(bill.billId);
  await fleet.sandbox.idle();
  const elapsed = performance.now() - start;
  const finals = Number((await db.query(`SELECT count(*) AS n FROM bills WHERE outcome = 'paid'`)).rows[0].n);
  const attempts = fleet.sandbox.stats().callbacks.length;
  console.log(`pg.ingest.callbacks_per_s=${Math.round((count / elapsed) * 1000)} bills=${count} instances=2 callback_attempts=${attempts} elapsed_ms=${Math.round(elapsed)}`);
  console.log(`pg.ingest.lost=${count - finals}`);
  if (finals !== count) process.exitCode = 1;
} finally {
  await db.end();
  await fleet.stop();
}
