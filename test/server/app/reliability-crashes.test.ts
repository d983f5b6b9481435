// Short form of test/reliability/crashes.ts: fewer bills, two kills, on SQLite and on PostgreSQL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCrashScenario } from '../../reliability/crashes.js';
import { printFigures } from '../../reliability/support/figures.js';
import { startPg } from '../support/pg.js';

for (const store of ['sqlite', 'postgresql'] as const) {
  test(`SIGKILLed at random moments and restarted, the BFF still ends every bill as the service says, notifying once (${store})`, async (t) => {
    let databaseUrl: string | undefined;
    if (store === 'postgresql') {
      const cluster = await startPg();
      t.after(() => cluster.stop());
      databaseUrl = await cluster.createDatabase();
    }
    const f = await runCrashScenario(t, { bills: 40, kills: 2, seed: 4242, ...(databaseUrl ? { databaseUrl } : {}) });
    printFigures(store === 'sqlite' ? 'crashes' : 'pg-crashes', { ...f, wrongOutcomes: f.wrongOutcomes.length, noticesLost: f.noticesLost.length,
      noticesDuplicated: f.noticesDuplicated.length, wrongViews: f.wrongViews.length, leaks: f.leaks.length });
    assert.equal(f.kills, 2);
    assert.deepEqual(f.wrongOutcomes, []);
    assert.deepEqual(f.noticesLost, []);
    assert.deepEqual(f.noticesDuplicated, []);
    assert.deepEqual(f.wrongViews, []);
    assert.deepEqual(f.leaks, []);
  });
}
