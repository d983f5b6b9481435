// SQLite schema, as an ordered list of migrations. Each is applied once, in its own IMMEDIATE
// transaction that re-checks `schema_migrations` after taking the write lock, so two processes
// starting at once on one file apply each step exactly once.

import type { SqliteDatabase as Database } from './driver.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'bills and notices',
    // STRICT tables: an amount can only ever be TEXT, never a REAL that lost digits.
    sql: `
      CREATE TABLE bills (
        merchant_reference TEXT PRIMARY KEY,
        bill_id TEXT UNIQUE,
        idempotency_key TEXT UNIQUE,
        order_id TEXT,
        amount TEXT NOT NULL,
        token TEXT NOT NULL,
        hook_token TEXT NOT NULL,
        create_state TEXT NOT NULL DEFAULT 'creating'
          CHECK (create_state IN ('creating', 'created', 'failed')),
        bill_url TEXT,
        currency TEXT,
        require_gc_amount TEXT,
        expired_on INTEGER,
        status INTEGER,
        status_name TEXT NOT NULL DEFAULT '',
        is_final INTEGER NOT NULL DEFAULT 0 CHECK (is_final IN (0, 1)),
        outcome TEXT NOT NULL DEFAULT 'pending'
          CHECK (outcome IN ('pending', 'paid', 'failed', 'cancelled', 'expired')),
        date_time INTEGER,
        checked_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX bills_order_id ON bills (order_id, created_at) WHERE order_id IS NOT NULL;
      CREATE INDEX bills_pending ON bills (checked_at) WHERE create_state = 'created' AND is_final = 0;
      CREATE INDEX bills_creating ON bills (created_at) WHERE create_state = 'creating';

      CREATE TABLE notices (
        id TEXT NOT NULL UNIQUE,
        channel TEXT NOT NULL,
        bill_id TEXT NOT NULL REFERENCES bills (bill_id),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        lease_until INTEGER,
        delivered_at INTEGER,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (bill_id, channel)
      ) STRICT;
      CREATE INDEX notices_due ON notices (channel, next_attempt_at) WHERE delivered_at IS NULL;
    `,
  },
  {
    version: 2,
    name: 'orders: resolved amount, duplicate payments',
    sql: `
      ALTER TABLE bills ADD COLUMN order_amount TEXT;
      ALTER TABLE bills ADD COLUMN order_currency TEXT;
      ALTER TABLE bills ADD COLUMN duplicate_payment INTEGER NOT NULL DEFAULT 0 CHECK (duplicate_payment IN (0, 1));
      CREATE INDEX bills_order_paid ON bills (order_id, updated_at) WHERE outcome = 'paid' AND order_id IS NOT NULL;
    `,
  },
  {
    version: 3,
    name: 'status version',
    // A bill already requeried starts at 1, a final one at 2: above what a stream showed before.
    sql: `
      ALTER TABLE bills ADD COLUMN status_version INTEGER NOT NULL DEFAULT 0;
      UPDATE bills SET status_version = CASE WHEN is_final = 1 THEN 2 WHEN status IS NOT NULL THEN 1 ELSE 0 END;
    `,
  },
  {
    version: 4,
    name: "the merchant's operations: history, delivery log, replays, endpoint state, bound customers",
    // Bills final before this step keep final_reason NULL: how they were learned was not recorded.
    sql: `
      ALTER TABLE bills ADD COLUMN final_reason TEXT;
      ALTER TABLE bills ADD COLUMN final_at INTEGER;
      UPDATE bills SET final_at = updated_at WHERE is_final = 1;

      ALTER TABLE notices ADD COLUMN state TEXT NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'delivered', 'failed'));
      UPDATE notices SET state = 'delivered' WHERE delivered_at IS NOT NULL;
      ALTER TABLE notices ADD COLUMN replay_at INTEGER;
      DROP INDEX notices_due;
      CREATE INDEX notices_due ON notices (channel, next_attempt_at) WHERE state = 'pending';
      CREATE INDEX notices_replay ON notices (channel, replay_at) WHERE replay_at IS NOT NULL;
      CREATE INDEX notices_created ON notices (created_at);

      CREATE TABLE notice_attempts (
        notice_id TEXT NOT NULL REFERENCES notices (id),
        number INTEGER NOT NULL,
        channel TEXT NOT NULL,
        replay INTEGER NOT NULL CHECK (replay IN (0, 1)),
        at INTEGER NOT NULL,
        duration_ms INTEGER NOT NULL,
        ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
        http_status INTEGER,
        response TEXT,
        error TEXT,
        PRIMARY KEY (notice_id, number)
      ) STRICT;

      CREATE TABLE bill_events (
        id INTEGER PRIMARY KEY,
        merchant_reference TEXT NOT NULL REFERENCES bills (merchant_reference),
        at INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('created', 'create_failed', 'status')),
        reason TEXT,
        status INTEGER,
        status_name TEXT,
        outcome TEXT
      ) STRICT;
      CREATE INDEX bill_events_bill ON bill_events (merchant_reference, id);

      CREATE TABLE webhook_endpoints (
        url TEXT PRIMARY KEY,
        disabled_at INTEGER,
        disabled_reason TEXT
      ) STRICT;

      CREATE TABLE customers (
        customer_key TEXT PRIMARY KEY,
        customer_id TEXT,
        lease_until INTEGER,
        bound_at INTEGER
      ) STRICT;
      CREATE INDEX customers_bound ON customers (bound_at) WHERE customer_id IS NOT NULL;
    `,
  },
  {
    version: 5,
    name: 'time and the order: expiry on our clock, early callbacks, one current bill per order',
    // Orders that have several open bills (made before this rule) keep their newest as current;
    // the others are superseded, and still followed until the service calls them final.
    sql: `
      ALTER TABLE bills ADD COLUMN expires_local_at INTEGER;
      ALTER TABLE bills ADD COLUMN early_news_at INTEGER;
      ALTER TABLE bills ADD COLUMN superseded_at INTEGER;
      UPDATE bills SET superseded_at = updated_at
        WHERE order_id IS NOT NULL AND create_state <> 'failed' AND is_final = 0 AND EXISTS (
          SELECT 1 FROM bills n WHERE n.order_id = bills.order_id AND n.create_state <> 'failed' AND n.is_final = 0
            AND (n.created_at > bills.created_at OR (n.created_at = bills.created_at AND n.rowid > bills.rowid)));
      CREATE UNIQUE INDEX bills_order_current ON bills (order_id)
        WHERE order_id IS NOT NULL AND create_state <> 'failed' AND is_final = 0 AND superseded_at IS NULL;
    `,
  },
  {
    version: 6,
    name: 'creates that always end: orphans kept, withdrawals confirmed, bills lost at the service, which service made a bill',
    // A bill superseded before this step was withdrawn by a cancel the service accepted.
    sql: `
      ALTER TABLE bills ADD COLUMN withdraw_confirmed_at INTEGER;
      ALTER TABLE bills ADD COLUMN orphaned_at INTEGER;
      ALTER TABLE bills ADD COLUMN lost_at INTEGER;
      ALTER TABLE bills ADD COLUMN service_id TEXT;
      UPDATE bills SET withdraw_confirmed_at = superseded_at WHERE superseded_at IS NOT NULL;
      CREATE INDEX bills_withdrawing ON bills (superseded_at)
        WHERE create_state = 'created' AND is_final = 0 AND superseded_at IS NOT NULL AND withdraw_confirmed_at IS NULL;
    `,
  },
  {
    version: 7,
    name: "the reconciler's order: the pending bills closest to their expiry first, paged by key",
    // The expressions are those of listPending's ORDER BY (sqlite/bills.ts, URGENCY_ORDER), as an index on expressions requires.
    sql: `
      CREATE INDEX bills_reconcile ON bills (
        COALESCE(expires_local_at, 9007199254740991), COALESCE(checked_at, -1), created_at, merchant_reference
      ) WHERE create_state = 'created' AND is_final = 0;
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/** Applies every migration not yet applied. Returns the versions this call applied. */
export function migrateSqlite(db: Database, now: number, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const latest = migrations.at(-1)?.version ?? 0;
  if ((db.pragma('user_version', { simple: true }) as number) >= latest) return [];

  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`);
  const applied: number[] = [];
  for (const m of migrations) {
    const step = db.transaction(() => {
      if (db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version)) return;
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
        .run(m.version, m.name, now);
      db.pragma(`user_version = ${Math.trunc(m.version)}`);
      applied.push(m.version);
    });
    step.immediate();
  }
  return applied;
}
