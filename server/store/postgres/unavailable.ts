// The pg (and Node socket) errors that mean "the store is out of reach, try again", told from every
// other one: the classifier store.ts gives classifyFailures (../unavailable.ts). Pure, and free
// of pg itself: tests call it as it is.

import { StoreUnavailableError } from '../errors.js';
import { errorChain } from '../unavailable.js';

const RECONNECTS = 'Nothing needs a restart: the store connects again by itself on its next call.';

/**
 * What a pg (or Node socket) error says about reaching PostgreSQL, as an operator's fix: a
 * StoreUnavailableError for a connection that was refused, cut, timed out or ended by a shutdown
 * or restart (SQLSTATE 57P01/57P02/57P03, class 08, 53300); null for anything else (a query's own
 * error, a constraint, a wrong password: those are not outages).
 */
export function pgUnavailable(error: unknown, poolSize = 10): StoreUnavailableError | null {
  for (const e of errorChain(error)) {
    const code = (e as { code?: unknown }).code;
    const syscall = (e as { syscall?: unknown }).syscall;
    const message = e instanceof Error ? e.message : '';
    const because = (what: string, then = RECONNECTS) => new StoreUnavailableError(`${what} ${then}`, { cause: error });
    if (code === 'ECONNREFUSED' || (code === 'ENOENT' && syscall === 'connect')) {
      return because(`PostgreSQL refused the connection (${code}): the database server is not running or not listening at DATABASE_URL's host and port; start it, or fix DATABASE_URL.`);
    }
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
      return because(`PostgreSQL's host cannot be reached (${code}): check DATABASE_URL's host name, DNS and the network between the BFF and the database.`);
    }
    if (code === 'ETIMEDOUT' || /^timeout exceeded when trying to connect$|connection timeout|^timeout expired$|^Query read timeout$/.test(message)) {
      return because(`PostgreSQL did not answer in time (${typeof code === 'string' ? code : message}): the server is overloaded or out of reach, or all ${poolSize} connections of this BFF's pool are busy; check the database's load and the network.`);
    }
    if (code === 'ECONNRESET' || code === 'EPIPE' || /^Connection terminated|^Client has encountered a connection error|^Client was closed/.test(message)) {
      return because(`The connection to PostgreSQL was cut (${typeof code === 'string' ? code : message}): the server restarted or crashed, or a proxy or firewall dropped the connection; check the database server's log.`);
    }
    if (code === '57P01') {
      return because('PostgreSQL ended the session (57P01 admin_shutdown): the server is shutting down or restarting, or an administrator terminated the backend; it works again once the server is back.');
    }
    if (code === '57P02') {
      return because("PostgreSQL ended the session because another of its processes crashed (57P02 crash_shutdown) and it is restarting; check the database server's log for the crash.");
    }
    if (code === '57P03') {
      return because('PostgreSQL takes no connections now (57P03 cannot_connect_now): it is starting up, shutting down or in recovery; wait for it, or check why it stays in recovery.');
    }
    if (typeof code === 'string' && /^08[0-9A-Z]{3}$/.test(code)) {
      return because(`PostgreSQL reported a connection failure (SQLSTATE ${code}): check the network to the database and the database server's log.`);
    }
    if (code === '53300') {
      return because(`PostgreSQL has no free connection slot (53300 too_many_connections): raise its max_connections above the instances' pools together (${poolSize} per instance here), or lower the number of instances.`);
    }
    if (message === 'Cannot use a pool after calling end on the pool') {
      return because('The PostgreSQL pool is closed:', 'this BFF is shutting down.');
    }
  }
  return null;
}
