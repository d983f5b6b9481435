// The stores' drivers are optional peer dependencies imported at run time (server/store/optional-peer.ts):
// a missing one is told apart from a driver that fails for another reason, and said as what to install.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importPeer, isMissingPackage, missingPeer } from '../../../../server/store/optional-peer.js';
import { loadPg } from '../../../../server/store/postgres/driver.js';

test('a package that is not installed: recognised by name, and said as what to install', async () => {
  const error = await importPeer('bill-checkout-no-such-driver').then(() => assert.fail('imported'), (e: unknown) => e);
  assert.equal(isMissingPackage(error, 'bill-checkout-no-such-driver'), true);
  // Another package's absence (a driver's own dependency) is not this one's.
  assert.equal(isMissingPackage(error, 'pg'), false);
  assert.equal(isMissingPackage(new Error('connect ECONNREFUSED 127.0.0.1:5432'), 'pg'), false);
  // Deno's words for it.
  assert.equal(isMissingPackage(new Error('Could not find package \'pg\' from referrer'), 'pg'), true);
  assert.equal(isMissingPackage(new Error('Import "pg" not a dependency and not in import map'), 'pg'), true);

  const said = missingPeer('pg', 'PostgreSQL', error);
  assert.equal(said.message, 'PostgreSQL needs the pg package, which bill-checkout does not install by itself: npm install pg');
  assert.equal(said.cause, error);
});

test('pg, where it is installed: its CommonJS exports, as its declarations type them', async () => {
  const pg = await loadPg();
  assert.equal(typeof pg.Pool, 'function');
  assert.equal(typeof pg.Client, 'function');
  assert.equal(pg.escapeIdentifier('bill_status'), '"bill_status"');
});
