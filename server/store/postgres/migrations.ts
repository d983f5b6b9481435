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
  {
    version: 5,
    name: 'one round trip per status change and per batch of notice attempts',
    // Each function is one statement from the client: what used to be a transaction of five to
    // eight round trips (lock, read, update, history, notices) is one, and a batch of delivery-log
    // entries is one. They run the same steps in the same order as before; each statement inside
    // sees rows committed before it (READ COMMITTED), as separate ones did. No NOTIFY in here: a
    // transaction that notifies holds the database's notify lock through its commit's WAL flush,
    // so commits would wait for each other's flush instead of sharing one (see store.ts).
    sql: `
      -- A status the service gave for a bill: stored unless final already, or older than the stored
      -- one while still pending. A first payment of an order is the payment; a later one is a
      -- duplicate. A change is kept in the history.
      CREATE FUNCTION bc_apply_status(
        p_bill_id TEXT, p_status INTEGER, p_status_name TEXT, p_outcome TEXT, p_date_time BIGINT,
        p_checked_at BIGINT, p_reason TEXT, p_notice_ids TEXT[], p_notice_channels TEXT[]
      ) RETURNS TABLE (bill JSONB, changed BOOLEAN, became_final BOOLEAN) LANGUAGE plpgsql AS $fn$
      DECLARE
        b bills%ROWTYPE;
        v_final BOOLEAN := p_outcome <> 'pending';
        v_changed BOOLEAN;
        v_duplicate BOOLEAN := FALSE;
      BEGIN
        SELECT * INTO b FROM bills WHERE bill_id = p_bill_id FOR UPDATE;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'No bill with bill_id "%"', p_bill_id USING ERRCODE = 'no_data_found';
        END IF;
        IF b.is_final THEN
          RETURN QUERY SELECT to_jsonb(b), FALSE, FALSE;
          RETURN;
        END IF;
        IF NOT v_final AND b.date_time IS NOT NULL AND p_date_time < b.date_time THEN
          UPDATE bills SET checked_at = p_checked_at WHERE bill_id = p_bill_id RETURNING * INTO b;
          RETURN QUERY SELECT to_jsonb(b), FALSE, FALSE;
          RETURN;
        END IF;
        v_changed := b.status IS DISTINCT FROM p_status OR b.outcome <> p_outcome OR b.is_final <> v_final;
        -- The order's lock makes two of its bills that become paid at once see each other.
        IF p_outcome = 'paid' AND b.order_id IS NOT NULL THEN
          PERFORM pg_advisory_xact_lock(hashtextextended('order:' || b.order_id, 1));
          v_duplicate := EXISTS (SELECT 1 FROM bills
            WHERE order_id = b.order_id AND outcome = 'paid' AND bill_id <> p_bill_id);
        END IF;
        UPDATE bills SET status = p_status, status_name = p_status_name, is_final = v_final, outcome = p_outcome,
            date_time = p_date_time, checked_at = p_checked_at,
            updated_at = CASE WHEN v_changed THEN p_checked_at ELSE updated_at END,
            duplicate_payment = duplicate_payment OR v_duplicate,
            final_reason = CASE WHEN v_final THEN p_reason END,
            final_at = CASE WHEN v_final THEN p_checked_at END
          WHERE bill_id = p_bill_id RETURNING * INTO b;
        IF v_changed THEN
          INSERT INTO bill_events (merchant_reference, at, kind, reason, status, status_name, outcome)
            VALUES (b.merchant_reference, p_checked_at, 'status', p_reason, p_status, p_status_name, p_outcome);
        END IF;
        IF v_final THEN
          INSERT INTO notices (id, channel, bill_id, attempts, next_attempt_at, created_at)
            SELECT n.id, n.channel, p_bill_id, 0, p_checked_at, p_checked_at
            FROM unnest(p_notice_ids, p_notice_channels) AS n (id, channel)
            ON CONFLICT (bill_id, channel) DO NOTHING;
        END IF;
        RETURN QUERY SELECT to_jsonb(b), v_changed, v_final;
      END
      $fn$;

      -- Attempts of claimed notices (a JSON array, in notice id order so that two batches lock
      -- alike): each is numbered after the notice's last and recorded with what follows, as one
      -- finish did: ok → delivered; a failed scheduled try → pending at next_attempt_at, or failed
      -- when that is null; a replay leaves the schedule. Clears the lease (and the replay).
      CREATE FUNCTION bc_finish_notice_attempts(p_attempts JSONB)
      RETURNS TABLE (ord INTEGER, attempt JSONB) LANGUAGE plpgsql AS $fn$
      DECLARE
        a RECORD;
        v_number INTEGER;
        r notice_attempts%ROWTYPE;
      BEGIN
        FOR a IN SELECT * FROM jsonb_to_recordset(p_attempts) AS x (ord INTEGER, notice_id TEXT, channel TEXT,
            replay BOOLEAN, at BIGINT, duration_ms INTEGER, ok BOOLEAN, http_status INTEGER, response TEXT,
            error TEXT, next_attempt_at BIGINT)
        LOOP
          PERFORM 1 FROM notices WHERE id = a.notice_id FOR UPDATE;
          SELECT COALESCE(MAX(number), 0) + 1 INTO v_number FROM notice_attempts WHERE notice_id = a.notice_id;
          INSERT INTO notice_attempts (notice_id, number, channel, replay, at, duration_ms, ok, http_status, response, error)
            VALUES (a.notice_id, v_number, a.channel, a.replay, a.at, a.duration_ms, a.ok, a.http_status, a.response, a.error)
            RETURNING * INTO r;
          IF a.ok THEN
            UPDATE notices SET state = 'delivered', delivered_at = COALESCE(delivered_at, a.at), lease_until = NULL,
                replay_at = CASE WHEN a.replay THEN NULL ELSE replay_at END
              WHERE id = a.notice_id;
          ELSIF a.replay THEN
            UPDATE notices SET last_error = a.error, lease_until = NULL, replay_at = NULL WHERE id = a.notice_id;
          ELSE
            UPDATE notices SET lease_until = NULL, last_error = a.error,
                state = CASE WHEN state = 'pending' AND a.next_attempt_at IS NULL THEN 'failed' ELSE state END,
                next_attempt_at = COALESCE(a.next_attempt_at, next_attempt_at)
              WHERE id = a.notice_id;
          END IF;
          ord := a.ord;
          attempt := to_jsonb(r);
          RETURN NEXT;
        END LOOP;
      END
      $fn$;
    `,
  },
  {
    version: 6,
    name: 'time and the order: expiry on our clock, early callbacks, one current bill per order',
    // Orders that have several open bills (made before this rule) keep their newest as current;
    // the others are superseded, and still followed until the service calls them final. The
    // unique index is what makes one order one current bill across instances.
    sql: `
      ALTER TABLE bills ADD COLUMN expires_local_at BIGINT;
      ALTER TABLE bills ADD COLUMN early_news_at BIGINT;
      ALTER TABLE bills ADD COLUMN superseded_at BIGINT;
      UPDATE bills b SET superseded_at = b.updated_at
        WHERE b.order_id IS NOT NULL AND b.create_state <> 'failed' AND NOT b.is_final AND EXISTS (
          SELECT 1 FROM bills n WHERE n.order_id = b.order_id AND n.create_state <> 'failed' AND NOT n.is_final
            AND (n.created_at > b.created_at OR (n.created_at = b.created_at AND n.seq > b.seq)));
      CREATE UNIQUE INDEX bills_order_current ON bills (order_id)
        WHERE order_id IS NOT NULL AND create_state <> 'failed' AND NOT is_final AND superseded_at IS NULL;
    `,
  },
  {
    version: 7,
    name: 'creates that always end: orphans kept, withdrawals confirmed, bills lost at the service, which service made a bill',
    // A bill superseded before this step was withdrawn by a cancel the service accepted.
    sql: `
      ALTER TABLE bills ADD COLUMN withdraw_confirmed_at BIGINT;
      ALTER TABLE bills ADD COLUMN orphaned_at BIGINT;
      ALTER TABLE bills ADD COLUMN lost_at BIGINT;
      ALTER TABLE bills ADD COLUMN service_id TEXT;
      UPDATE bills SET withdraw_confirmed_at = superseded_at WHERE superseded_at IS NOT NULL;
      CREATE INDEX bills_withdrawing ON bills (superseded_at)
        WHERE create_state = 'created' AND NOT is_final AND superseded_at IS NOT NULL AND withdraw_confirmed_at IS NULL;

      CREATE OR REPLACE FUNCTION bc_apply_status(
        p_bill_id TEXT, p_status INTEGER, p_status_name TEXT, p_outcome TEXT, p_date_time BIGINT,
        p_checked_at BIGINT, p_reason TEXT, p_notice_ids TEXT[], p_notice_channels TEXT[]
      ) RETURNS TABLE (bill JSONB, changed BOOLEAN, became_final BOOLEAN) LANGUAGE plpgsql AS $fn$
      DECLARE
        b bills%ROWTYPE;
        v_final BOOLEAN := p_outcome <> 'pending';
        v_changed BOOLEAN;
        v_duplicate BOOLEAN := FALSE;
      BEGIN
        SELECT * INTO b FROM bills WHERE bill_id = p_bill_id FOR UPDATE;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'No bill with bill_id "%"', p_bill_id USING ERRCODE = 'no_data_found';
        END IF;
        IF b.is_final THEN
          RETURN QUERY SELECT to_jsonb(b), FALSE, FALSE;
          RETURN;
        END IF;
        IF NOT v_final AND b.date_time IS NOT NULL AND p_date_time < b.date_time THEN
          UPDATE bills SET checked_at = p_checked_at WHERE bill_id = p_bill_id RETURNING * INTO b;
          RETURN QUERY SELECT to_jsonb(b), FALSE, FALSE;
          RETURN;
        END IF;
        v_changed := b.status IS DISTINCT FROM p_status OR b.outcome <> p_outcome OR b.is_final <> v_final;
        -- The order's lock makes two of its bills that become paid at once see each other.
        IF p_outcome = 'paid' AND b.order_id IS NOT NULL THEN
          PERFORM pg_advisory_xact_lock(hashtextextended('order:' || b.order_id, 1));
          v_duplicate := EXISTS (SELECT 1 FROM bills
            WHERE order_id = b.order_id AND outcome = 'paid' AND bill_id <> p_bill_id);
        END IF;
        -- An orphan was never shown to a customer: its payment is one the merchant did not ask for.
        IF p_outcome = 'paid' AND b.orphaned_at IS NOT NULL THEN
          v_duplicate := TRUE;
        END IF;
        UPDATE bills SET status = p_status, status_name = p_status_name, is_final = v_final, outcome = p_outcome,
            date_time = p_date_time, checked_at = p_checked_at,
            updated_at = CASE WHEN v_changed THEN p_checked_at ELSE updated_at END,
            duplicate_payment = duplicate_payment OR v_duplicate,
            final_reason = CASE WHEN v_final THEN p_reason END,
            final_at = CASE WHEN v_final THEN p_checked_at END
          WHERE bill_id = p_bill_id RETURNING * INTO b;
        IF v_changed THEN
          INSERT INTO bill_events (merchant_reference, at, kind, reason, status, status_name, outcome)
            VALUES (b.merchant_reference, p_checked_at, 'status', p_reason, p_status, p_status_name, p_outcome);
        END IF;
        IF v_final THEN
          INSERT INTO notices (id, channel, bill_id, attempts, next_attempt_at, created_at)
            SELECT n.id, n.channel, p_bill_id, 0, p_checked_at, p_checked_at
            FROM unnest(p_notice_ids, p_notice_channels) AS n (id, channel)
            ON CONFLICT (bill_id, channel) DO NOTHING;
        END IF;
        RETURN QUERY SELECT to_jsonb(b), v_changed, v_final;
      END
      $fn$;
    `,
  },
  {
    version: 8,
    name: "the reconciler's order: the pending bills closest to their expiry first, paged by key",
    // The expressions are those of listPending's ORDER BY (postgres/bills.ts, URGENCY_ORDER), as an index on expressions requires.
    sql: `
      CREATE INDEX bills_reconcile ON bills (
        (COALESCE(expires_local_at, 9007199254740991)), (COALESCE(checked_at, -1)), created_at, merchant_reference
      ) WHERE create_state = 'created' AND NOT is_final;
    `,
  },
  {
    version: 9,
    name: 'status changes that arrive together in one statement and one commit',
    // Group commit of applyStatus (postgres/apply-batch.ts): the statuses one instance stores in the
    // same moment are one call, one transaction, one WAL flush. Each item is exactly one call of
    // bc_apply_status (whatever a later migration makes of it), in the order the client sent them
    // (by bill_id, so two instances' batches lock bills alike). A bill that is not there is an
    // answer (bill NULL), not an error: one unknown bill must not undo the others' statuses.
    // No NOTIFY in here either (migration 5 says why): the batch's changes are announced after it.
    sql: `
      CREATE FUNCTION bc_apply_statuses(p_items JSONB)
      RETURNS TABLE (ord INTEGER, bill JSONB, changed BOOLEAN, became_final BOOLEAN) LANGUAGE plpgsql AS $fn$
      DECLARE
        a RECORD;
      BEGIN
        FOR a IN SELECT * FROM jsonb_to_recordset(p_items) AS x (ord INTEGER, bill_id TEXT, status INTEGER,
            status_name TEXT, outcome TEXT, date_time BIGINT, checked_at BIGINT, reason TEXT,
            notice_ids TEXT[], notice_channels TEXT[])
        LOOP
          ord := a.ord;
          bill := NULL;
          changed := FALSE;
          became_final := FALSE;
          IF EXISTS (SELECT 1 FROM bills b WHERE b.bill_id = a.bill_id) THEN
            SELECT s.bill, s.changed, s.became_final INTO bill, changed, became_final
              FROM bc_apply_status(a.bill_id, a.status, a.status_name, a.outcome, a.date_time, a.checked_at, a.reason,
                a.notice_ids, a.notice_channels) s;
          END IF;
          RETURN NEXT;
        END LOOP;
      END
      $fn$;
    `,
  },
  {
    version: 10,
    name: "when each bill's status last moved, on the database's clock, for the shared hub's catch-up sweep",
    // A status change is announced to the other instances only after its commit (migration 5): an
    // instance killed in between announces nothing. The others' hubs therefore also sweep, every few
    // seconds, the bills whose status moved since their last sweep (postgres/events.ts,
    // statusChangesSince). The moment is stamped by the trigger that moves status_version (migration
    // 3), so every path that changes a status stamps it (code of before in a rolling upgrade too), and
    // on the database's clock at the UPDATE, not the instance's checkedAt taken before its batch
    // queued: a sweep's window then only has to cover the tail of a transaction after its UPDATE.
    // Bills whose status moved before this step have none (NULL): no sweep reaches that far back.
    sql: `
      ALTER TABLE bills ADD COLUMN status_changed_at BIGINT;
      CREATE OR REPLACE FUNCTION bills_status_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.status_version := OLD.status_version + 1;
        NEW.status_changed_at := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
        RETURN NEW;
      END $$;
      CREATE INDEX bills_status_changed ON bills (status_changed_at) WHERE status_changed_at IS NOT NULL;
    `,
  },
  {
    version: 11,
    name: 'the instances alive on this database, for a limit of the service shared among them',
    // BILL_API_SHARED_MAX_RPS: each instance stamps its row every few seconds on the database's clock
    // and divides the service's limit by the rows stamped lately (postgres/events.ts, instanceBeat);
    // a clean stop deletes its row, a dead instance's row ages out.
    sql: `
      CREATE TABLE bc_instances (
        instance_id TEXT PRIMARY KEY,
        seen_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 12,
    name: "each instance's LISTEN session, so that a dead instance is counted out at the others' next beat",
    // PostgreSQL ends a session as soon as its client's socket closes: an instance whose session is
    // gone from pg_stat_activity is dead, however fresh its seen_at (postgres/events.ts, instanceBeat).
    sql: `
      ALTER TABLE bc_instances ADD COLUMN session_pid INTEGER;
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
