// An operation's documented rate (server/upstream/token-bucket.ts): a tenth of a second's burst,
// then one request per 1/rate s.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bucketBurst, bucketReadyAt, newBucket } from '../../../server/upstream/token-bucket.js';

test('a new bucket lets its burst go at once, then one request per 1/rate seconds', () => {
  const bucket = newBucket(20, 1_000);
  assert.equal(bucket.tokens, 2);
  assert.equal(bucketReadyAt(bucket, 1_000), 1_000);
  bucket.tokens -= 2;
  assert.equal(bucketReadyAt(bucket, 1_000), 1_050, 'the next token in 50 ms');
  assert.equal(bucketReadyAt(bucket, 1_020), 1_050, 'still then, from later');
  assert.equal(bucketReadyAt(bucket, 1_050), 1_050, 'ready now');
});

test('tokens never gather past the burst, however long the bucket waited', () => {
  const bucket = newBucket(5, 0);
  bucket.tokens = 0;
  bucketReadyAt(bucket, 60_000);
  assert.equal(bucket.tokens, bucketBurst(5));
  assert.equal(bucketBurst(5), 1, 'at least one');
  assert.equal(bucketBurst(50), 5);
});
