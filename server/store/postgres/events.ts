// The PostgreSQL store's messages between instances (StoreEvents): LISTEN on a connection of its
// own per listener, which connects again by itself; NOTIFY through the pool; and the store's own
// announcements of the status changes it commits, several in one NOTIFY (coalesce.ts).

import type { Client, ClientConfig, Pool } from 'pg';
import { coalesce } from '../coalesce.js';
import type { StoreEvents } from '../types.js';
import { named } from './context.js';
import { loadPg } from './driver.js';

const pg = await loadPg();

/** One entry of a status announcement (StoreEvents.statusAnnouncements). */
export interface StatusChange {
  billId: string;
  version: number;
}

const LISTEN_RETRY_MS = 500;
const notifyCall = named('bc_notify', 'SELECT pg_notify($1, $2)');
// The sweep's read (migration 10): the statement's own start on the database's clock, with the bills
// whose status moved since `$1` (none when it is NULL), by the index on status_changed_at.
const statusChangesCall = named('bc_status_changes_since', `
  SELECT (extract(epoch FROM statement_timestamp()) * 1000)::bigint AS at, b.bill_id, b.status_version
  FROM (SELECT 1) AS one
  LEFT JOIN bills b ON b.status_changed_at >= $1 AND b.bill_id IS NOT NULL`);

// The instances' liveness (migration 11): this one's row stamped on the database's clock, in the
// same statement the others seen within $2 ms counted (a CTE's upsert is not visible to the count,
// so this one is counted as the 1), and rows silent for $3 ms removed (instances that died; a row
// another instance holds, its own beat after an outage, is skipped rather than waited for: two
// instances back from one outage would otherwise each wait for the other's row).
const instanceBeatCall = named('bc_instance_beat', `
  WITH clock AS (SELECT (extract(epoch FROM statement_timestamp()) * 1000)::bigint AS at),
  beat AS (
    INSERT INTO bc_instances (instance_id, seen_at, session_pid) SELECT $1::text, at, $4::integer FROM clock
    ON CONFLICT (instance_id) DO UPDATE SET seen_at = EXCLUDED.seen_at, session_pid = EXCLUDED.session_pid
    RETURNING 1),
  gone AS (
    DELETE FROM bc_instances WHERE instance_id IN (
      SELECT instance_id FROM bc_instances WHERE instance_id <> $1 AND seen_at < (SELECT at FROM clock) - $3::bigint
      FOR UPDATE SKIP LOCKED)
    RETURNING 1)
  SELECT 1 + count(*) AS live FROM bc_instances, clock WHERE instance_id <> $1 AND seen_at >= clock.at - $2::bigint
    AND (session_pid IS NULL OR session_pid IN (SELECT pid FROM pg_stat_activity))`);
const instanceLeaveCall = named('bc_instance_leave', 'DELETE FROM bc_instances WHERE instance_id = $1');

export interface PgEvents {
  events: StoreEvents;
  /** Announces a committed status change on the status channel, with the others of the moment. */
  announce(change: StatusChange): Promise<void>;
  /** Stops every listener (the store is closing). */
  stopListening(): Promise<void>;
}

/** `statusChannel`: where this store announces its status changes (StoreEvents.statusAnnouncements). */
export function pgEvents(pool: Pool, clientConfig: ClientConfig, statusChannel: string, onError: (error: unknown) => void): PgEvents {
  const listeners = new Set<() => Promise<void>>();
  const instance = crypto.randomUUID();
  // The server process of this instance's LISTEN session: PostgreSQL ends it as soon as the
  // instance's socket closes (a SIGKILL included), so the others count the instance out at their
  // next beat rather than after three (instanceBeat). Null while no session is connected.
  let sessionPid: number | null = null;

  // Changes announced while a NOTIFY is in flight go together in the next (coalesce.ts); a payload
  // of 50 stays far under NOTIFY's 8,000 bytes.
  const announce = coalesce(async (changes: StatusChange[]) => {
    await pool.query(notifyCall([statusChannel, JSON.stringify({ from: instance, changes })]));
    return changes.map(() => undefined);
  }, 50, setImmediate);

  const events: StoreEvents = {
    statusAnnouncements: { channel: statusChannel, from: instance },
    async notify(channel, payload) {
      await pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async statusChangesSince(since) {
      const { rows } = await pool.query<{ at: string; bill_id: string | null; status_version: string | null }>(
        statusChangesCall([since === null ? null : Math.floor(since)]));
      return {
        at: Number(rows[0]!.at),
        changes: rows.flatMap((r) => (r.bill_id === null ? [] : [{ billId: r.bill_id, version: Number(r.status_version) }])),
      };
    },
    async instanceBeat(withinMs) {
      const within = Math.max(1, Math.ceil(withinMs));
      const { rows } = await pool.query<{ live: string }>(instanceBeatCall([instance, within, Math.max(60_000, 10 * within), sessionPid]));
      return Math.max(1, Number(rows[0]!.live));
    },
    async instanceLeave() {
      await pool.query(instanceLeaveCall([instance]));
    },
    async listen(channel, onMessage, onResumed) {
      let stopped = false;
      let client: Client | null = null;
      // This listener's session, while it is the one sessionPid names.
      let pid: number | null = null;
      const forgetSession = () => {
        if (pid !== null && sessionPid === pid) sessionPid = null;
        pid = null;
      };
      const connect = async (): Promise<void> => {
        const c = new pg.Client(clientConfig);
        c.on('notification', (n) => {
          if (n.channel === channel && n.payload !== undefined) onMessage(n.payload);
        });
        c.on('error', (error) => {
          onError(error);
          void c.end().catch(() => undefined);
          if (client === c) {
            client = null;
            forgetSession();
          }
          if (!stopped) setTimeout(() => void reconnect(), LISTEN_RETRY_MS);
        });
        await c.connect();
        const { pid: backendPid } = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!;
        // Last, so that pg_stat_activity shows the session by what it does (query: LISTEN …).
        await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        pid = backendPid;
        sessionPid = pid;
        client = c;
      };
      const reconnect = async () => {
        if (stopped || client) return;
        try {
          await connect();
        } catch (error) {
          onError(error);
          if (!stopped) setTimeout(() => void reconnect(), LISTEN_RETRY_MS);
          return;
        }
        onResumed?.();
      };
      await connect();
      const stop = async () => {
        stopped = true;
        listeners.delete(stop);
        forgetSession();
        await client?.end().catch(() => undefined);
        client = null;
      };
      listeners.add(stop);
      return stop;
    },
  };

  return {
    events,
    announce,
    async stopListening() {
      await Promise.all([...listeners].map((stop) => stop()));
    },
  };
}
