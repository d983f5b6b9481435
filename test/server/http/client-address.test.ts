// Whom limits count: the socket's peer, or behind TRUSTED_PROXY_HOPS proxies the address the
// outermost one saw. Unit cases, then the create rate limit through server/main.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientAddress, clientKeyOf } from '../../../server/http/client-address.js';
import { startChildWorld } from '../../reliability/support/child-world.js';

test('with no proxy trusted, X-Forwarded-For is ignored', () => {
  assert.equal(clientAddress('203.0.113.9', '198.51.100.1', 0), '203.0.113.9');
  assert.equal(clientAddress(undefined, '198.51.100.1', 0), 'unknown');
});

test('behind N proxies, the entry the outermost appended: what the client wrote to the left is not believed', () => {
  assert.equal(clientAddress('10.0.0.5', 'spoofed, 198.51.100.7', 1), '198.51.100.7');
  assert.equal(clientAddress('10.0.0.5', 'spoofed, 198.51.100.7, 10.0.0.4', 2), '198.51.100.7');
  assert.equal(clientAddress('10.0.0.5', ' 198.51.100.7 ,  ', 1), '198.51.100.7');
  // Fewer entries than proxies: the farthest one there is.
  assert.equal(clientAddress('10.0.0.5', '198.51.100.7', 3), '198.51.100.7');
  // No header at all: the peer.
  assert.equal(clientAddress('10.0.0.5', undefined, 1), '10.0.0.5');
  assert.equal(clientAddress('10.0.0.5', ' , ', 1), '10.0.0.5');
});

test('limits count an IPv6 client by its /64, an IPv4 one (also IPv4-mapped) by its address', () => {
  const one = clientKeyOf('2001:db8:1:2::1');
  for (const other of ['2001:db8:1:2:ffff:ffff:ffff:ffff', '[2001:DB8:0001:0002::abcd]', '2001:db8:1:2:0:0:0:9%eth0']) assert.equal(clientKeyOf(other), one, other);
  assert.notEqual(clientKeyOf('2001:db8:1:3::1'), one, 'the next /64 is another client');
  assert.equal(clientKeyOf('::ffff:198.51.100.7'), '198.51.100.7');
  assert.equal(clientKeyOf('198.51.100.7'), '198.51.100.7');
  assert.notEqual(clientKeyOf('198.51.100.7'), clientKeyOf('198.51.100.8'));
});

test('npm start behind one proxy limits creates per forwarded client, not per proxy', async (t) => {
  const w = await startChildWorld(t, { CREATE_RATE_LIMIT_PER_MINUTE: '2', TRUSTED_PROXY_HOPS: '1' });
  const create = async (forwardedFor: string) => (await fetch(`${w.base}/api/bills`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': forwardedFor }, body: '{"amount":"2.00"}',
  })).status;
  const statuses = [];
  // One customer, who writes a new address of their own in front each time.
  for (let i = 0; i < 3; i++) statuses.push(await create(`10.1.1.${i}, 198.51.100.1`));
  assert.deepEqual(statuses, [201, 201, 429]);
  // Another customer behind the same proxy is not held back by the first.
  assert.equal(await create('198.51.100.2'), 201);
  // An IPv6 customer who changes the suffix of its address each time is one client.
  const v6 = [];
  for (let i = 1; i <= 3; i++) v6.push(await create(`2001:db8:7:7::${i}`));
  assert.deepEqual(v6, [201, 201, 429]);
});
