// No secret in the built assets (test/reliability/secrets.ts). Every other reliability test scans
// its own responses and log lines.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findLeaks } from '../../reliability/support/record.js';
import { scanBuiltAssets } from '../../reliability/secrets.js';
import { printFigures } from '../../reliability/support/figures.js';

test('the scanner finds a secret in any of its forms', () => {
  const secret = 'whsec_' + Buffer.from('scanner-self-test-secret').toString('base64');
  const key = Buffer.from('scanner-self-test-secret');
  for (const text of [secret, key.toString('hex'), key.toString('base64url'), `x${encodeURIComponent(secret)}y`]) {
    assert.equal(findLeaks([text], [secret]).length > 0, true, text);
  }
  assert.deepEqual(findLeaks(['nothing here'], [secret]), []);
});

test('no byte of a key or secret in the built demo, the element or dist/', async () => {
  const f = await scanBuiltAssets();
  printFigures('secrets-assets', { ...f, leaks: f.leaks.length });
  assert.ok(f.filesScanned > 2);
  assert.deepEqual(f.leaks, []);
});
