// PostgreSQL schema, as an ordered list of migrations. All pending steps run in one transaction
// under a transaction-level advisory lock, so several instances starting at once apply each step
// exactly once (the others wait, then find nothing left to do). DDL is transactional here: a
// failing step leaves nothing behind.

import type { PoolClient } from 'pg';

export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: 'bills and notices',
    // Amounts are TEXT: exactly the decimal text the service sent, never a float.
    // Times are epoch milliseconds (BIGINT), as in the contract.
    sql: `
      CREATE TABLE bills (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
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
        expired_on BIGINT,
        status INTEGER,
        status_name TEXT NOT NULL DEFAULT '',
        is_final BOOLEAN NOT NULL DEFAULT FALSE,
        outcome TEXT NOT NULL DEFAULT 'pending'
          CHECK (outcome IN ('pending', 'paid', 'failed', 'cancelled', 'expired')),
        date_time BIGINT,
        checked_at BIGINT,
        refresh_lease_until BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX bills_order_id ON bills (order_id, created_at) WHERE order_id IS NOT NULL;
      CREATE INDEX bills_pending ON bills (checked_at) WHERE create_state = 'created' AND NOT is_final;
      CREATE INDEX bills_creating ON bills (created_at) WHERE create_state = 'creating';

      CREATE TABLE notices (
        id TEXT NOT NULL UNIQUE,
        channel TEXT NOT NULL,
        bill_id TEXT NOT NULL REFERENCES bills (bill_id),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at BIGINT NOT NULL,
        lease_until BIGINT,
        delivered_at BIGINT,
        last_error TEXT,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (bill_id, channel)
      );
      CREATE INDEX notices_due ON notices (channel, next_attempt_at) WHERE delivered_at IS NULL;
    `,
  },
  {
    version: 2,
    name: 'orders: resolved amount, duplicate payments',
    sql: `
      ALTER TABLE bills ADD COLUMN order_amount TEXT;
      ALTER TABLE bills ADD COLUMN order_currency TEXT;
      ALTER TABLE bills ADD COLUMN duplicate_payment BOOLEAN NOT NULL DEFAULT FALSE;
      CREATE INDEX bills_order_paid ON bills (order_id, updated_at) WHERE outcome = 'paid' AND order_id IS NOT NULL;
    `,
  },
  {
    version: 3,
    name: 'status version',
    // Kept by a trigger, not by the UPDATE that changes the status: an instance still running the
    // code of before (a rolling upgrade) moves it too, so no two shown statuses share a version.
    sql: `
      ALTER TABLE bills ADD COLUMN status_version BIGINT NOT NULL DEFAULT 0;
      UPDATE bills SET status_version = CASE WHEN is_final THEN 2 WHEN status IS NOT NULL THEN 1 ELSE 0 END;
      CREATE FUNCTION bills_status_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.status_version := OLD.status_version + 1;
        RETURN NEW;
      END $$;
      CREATE TRIGGER bills_status_version BEFORE UPDATE OF status, status_name, is_final, outcome, date_time ON bills
        FOR EACH ROW
        WHEN ((OLD.status, OLD.status_name, OLD.is_final, OLD.outcome, OLD.date_time)
          IS DISTINCT FROM (NEW.status, NEW.status_name, NEW.is_final, NEW.outcome, NEW.date_time))
        EXECUTE FUNCTION bills_status_version();
    `,
  },
  {
    version: 4,
    name: "the merchant's operations: history, delivery log, replays, endpoint state, bound customers",
    sql: `
      ALTER TABLE bills ADD COLUMN final_reason TEXT;
      ALTER TABLE bills ADD COLUMN final_at BIGINT;
      UPDATE bills SET final_at = updated_at WHERE is_final;

      ALTER TABLE notices ADD COLUMN state TEXT NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'delivered', 'failed'));
      UPDATE notices SET state = 'delivered' WHERE delivered_at IS NOT NULL;
      ALTER TABLE notices ADD COLUMN replay_at BIGINT;
      DROP INDEX notices_due;
      CREATE INDEX notices_due ON notices (channel, next_attempt_at) WHERE state = 'pending';
      CREATE INDEX notices_replay ON notices (channel, replay_at) WHERE replay_at IS NOT NULL;
      CREATE INDEX notices_created ON notices (created_at);

      CREATE TABLE notice_attempts (
        notice_id TEXT NOT NULL REFERENCES notices (id),
        number INTEGER NOT NULL,
        channel TEXT NOT NULL,
        replay BOOLEAN NOT NULL,
        at BIGINT NOT NULL,
        duration_ms INTEGER NOT NULL,
        ok BOOLEAN NOT NULL,
        http_status INTEGER,
        response TEXT,
        error TEXT,
        PRIMARY KEY (notice_id, number)
      );

      CREATE TABLE bill_events (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        merchant_reference TEXT NOT NULL REFERENCES bills (merchant_reference),
        at BIGINT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('created', 'create_failed', 'status')),
        reason TEXT,
        status INTEGER,
        status_name TEXT,
        outcome TEXT
      );
      CREATE INDEX bill_events_bill ON bill_events (merchant_reference, id);

      CREATE TABLE webhook_endpoints (
        url TEXT PRIMARY KEY,
        disabled_at BIGINT,
        disabled_reason TEXT
      );

      CREATE TABLE customers (
        customer_key TEXT PRIMARY KEY,
        customer_id TEXT,
        lease_until BIGINT,
        bound_at BIGINT
      );
      CREATE INDEX customers_bound ON customers (bound_at) WHERE customer_id IS NOT NULL;
    `,
  },
];

/** Any fixed number: the advisory lock that serializes migrations of this schema. */
const MIGRATION_LOCK = 0x6269_6c6c;

/** Applies every migration not yet applied, in one transaction. Returns the versions applied. */
export async function migratePostgres(
  client: PoolClient, now: number, migrations: readonly PgMigration[] = PG_MIGRATIONS,
): Promise<number[]> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
    const done = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
    );
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, now]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
