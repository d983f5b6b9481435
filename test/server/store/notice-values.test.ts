// What both stores write of a notice the same way (server/store/notice-values.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_ERROR_LENGTH, attemptRecord, clipError, noticeId } from '../../../server/store/notice-values.js';

test('the notice id is the webhook-id: one per bill and channel, the webhook\'s without a suffix', () => {
  assert.equal(noticeId('B1', 'webhook'), 'msg_B1');
  assert.equal(noticeId('B1', 'hook'), 'msg_B1_hook');
  assert.notEqual(noticeId('B1', 'hook'), noticeId('B2', 'hook'));
});

test('an error text is kept to MAX_ERROR_LENGTH characters', () => {
  assert.equal(MAX_ERROR_LENGTH, 500);
  assert.equal(clipError('short'), 'short');
  assert.equal(clipError('x'.repeat(500)), 'x'.repeat(500));
  assert.equal(clipError('x'.repeat(501)), 'x'.repeat(500));
  assert.equal(clipError(''), '');
});

test('an attempt record: whole non-negative milliseconds, the error clipped, the notice\'s own replay flag', () => {
  const notice = { id: 'msg_B1', channel: 'webhook', replay: true } as const;
  const attempt = { at: 1000, durationMs: 12.6, ok: false, replay: false, httpStatus: 500, response: 'nope', error: 'e'.repeat(600) };
  assert.deepEqual(attemptRecord(notice, attempt), {
    notice_id: 'msg_B1', channel: 'webhook', replay: true, at: 1000, duration_ms: 13, ok: false,
    http_status: 500, response: 'nope', error: 'e'.repeat(500),
  });
  const ok = attemptRecord({ ...notice, replay: false }, { ...attempt, durationMs: -3, ok: true, httpStatus: 204, response: null, error: null });
  assert.equal(ok.duration_ms, 0, 'a clock step back is not a negative duration');
  assert.equal(ok.replay, false);
  assert.equal(ok.ok, true);
  assert.equal(ok.error, null);
  assert.equal(attemptRecord(notice, { ...attempt, durationMs: 2.5 }).duration_ms, 3);
});
