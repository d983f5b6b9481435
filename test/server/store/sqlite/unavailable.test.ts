// SQLite's failures told apart (server/store/sqlite/unavailable.ts): which are "the store is out of
// reach, try again" (StoreUnavailableError, with the operator's fix), which are not. PostgreSQL's
// classifier has its cases in db-outage.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StoreUnavailableError } from '../../../../server/store/errors.js';
import { sqliteUnavailable } from '../../../../server/store/sqlite/unavailable.js';

const sqliteError = (code: string) => Object.assign(new Error(code), { code });

test('locked, unopenable, failing, full and read-only files are outages, each with its fix; the cause is kept', () => {
  const cases: [string, RegExp][] = [
    ['SQLITE_BUSY', /locked by another connection longer than busy_timeout \(5000 ms, SQLITE_BUSY\)/],
    ['SQLITE_BUSY_SNAPSHOT', /busy_timeout \(5000 ms, SQLITE_BUSY_SNAPSHOT\).*one BFF process per SQLite file/],
    ['SQLITE_CANTOPEN', /cannot open its file \(SQLITE_CANTOPEN\).*may read and write both/],
    ['SQLITE_IOERR_FSYNC', /failed a read or a write \(SQLITE_IOERR_FSYNC\)/],
    ['SQLITE_FULL', /is full \(SQLITE_FULL\)/],
    ['SQLITE_READONLY_DBMOVED', /cannot be written \(SQLITE_READONLY_DBMOVED\)/],
  ];
  for (const [code, fix] of cases) {
    const error = sqliteError(code);
    const classified = sqliteUnavailable(error);
    assert.ok(classified instanceof StoreUnavailableError, code);
    assert.match(classified.message, fix);
    assert.equal(classified.cause, error);
  }
  assert.match(sqliteUnavailable(sqliteError('SQLITE_BUSY'), 20)?.message ?? '', /\(20 ms, SQLITE_BUSY\)/);
});

test('a closed connection is an outage: the BFF is shutting down', () => {
  assert.match(sqliteUnavailable(new TypeError('The database connection is not open'))?.message ?? '', /shutting down/);
  assert.equal(sqliteUnavailable(new TypeError('something else')), null);
});

test('a query\'s own failure, or anything that is not a SQLite error, is not an outage', () => {
  for (const error of [sqliteError('SQLITE_CONSTRAINT_UNIQUE'), sqliteError('SQLITE_ERROR'), sqliteError('SQLITE_FULLX'),
    Object.assign(new Error('x'), { code: 42 }), new Error('boom'), null, undefined, 'text']) {
    assert.equal(sqliteUnavailable(error), null, String(error));
  }
});
