// What a leased claim finds (server/store/leases.ts): the right to requery a bill, and what a claim
// to bind a customer key finds in its row. store-postgres.test.ts runs the requery claim on both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { customerClaimOf, mayClaimRefresh } from '../../../server/store/leases.js';

const T0 = 1_800_000_000_000;

test('a requery claim: none for a bill missing or final', () => {
  assert.equal(mayClaimRefresh(null, T0, 1000, undefined), false);
  assert.equal(mayClaimRefresh({ isFinal: true, checkedAt: null }, T0, 0, undefined), false);
  assert.equal(mayClaimRefresh({ isFinal: false, checkedAt: null }, T0, 1000, undefined), true, 'never checked');
});

test('a requery claim: none while the last check is younger than maxAgeMs; news (0) whatever its age', () => {
  const bill = { isFinal: false, checkedAt: T0 };
  assert.equal(mayClaimRefresh(bill, T0 + 999, 1000, undefined), false);
  assert.equal(mayClaimRefresh(bill, T0 + 1000, 1000, undefined), true, 'exactly maxAgeMs old');
  assert.equal(mayClaimRefresh(bill, T0 + 1, 0, undefined), true);
  assert.equal(mayClaimRefresh(bill, T0 + 1, -5, undefined), true, 'a negative age counts as news');
});

test('a requery claim: none while another claim\'s lease runs; an expired lease is taken over', () => {
  const bill = { isFinal: false, checkedAt: null };
  assert.equal(mayClaimRefresh(bill, T0, 0, T0 + 1), false);
  assert.equal(mayClaimRefresh(bill, T0, 0, T0), true, 'a lease ends at its time');
  assert.equal(mayClaimRefresh(bill, T0, 0, T0 - 1), true);
  // A final bill stays unclaimable whatever the lease.
  assert.equal(mayClaimRefresh({ isFinal: true, checkedAt: null }, T0, 0, T0 - 1), false);
});

test('a customer claim: a bound key answers its customer; a running lease is busy; otherwise the key is free', () => {
  assert.equal(customerClaimOf(undefined, T0), null, 'no row');
  assert.deepEqual(customerClaimOf({ customer_key: 'k', customer_id: 'c', bound_at: T0 - 5, lease_until: null }, T0),
    { kind: 'bound', customer: { customerKey: 'k', customerId: 'c', boundAt: T0 - 5 } });
  // Bound wins over a lease left behind.
  assert.equal(customerClaimOf({ customer_key: 'k', customer_id: 'c', bound_at: T0 - 5, lease_until: T0 + 100 }, T0)?.kind, 'bound');
  assert.deepEqual(customerClaimOf({ customer_key: 'k', customer_id: null, bound_at: null, lease_until: T0 + 1 }, T0), { kind: 'busy' });
  assert.equal(customerClaimOf({ customer_key: 'k', customer_id: null, bound_at: null, lease_until: T0 }, T0), null, 'a lease ends at its time');
  assert.equal(customerClaimOf({ customer_key: 'k', customer_id: null, bound_at: null, lease_until: null }, T0), null);
});
