// What one delivery attempt of a notice comes to (server/domain/notify/delivery-outcome.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deliveryOutcome, describe, logDelivery } from '../../../../server/domain/notify/delivery-outcome.js';
import { WebhookRefused } from '../../../../server/domain/notify/webhook-post.js';
import { logLines } from '../../support/unit.js';

const NOW = 1_000_000;
const scheduled = { channel: 'webhook' as const, replay: false, attempts: 2 };
const schedule = (attempt: number) => [5_000, 300_000, 1_800_000][attempt - 1] ?? null;

test('delivered: no error, nothing due again', () => {
  assert.deepEqual(deliveryOutcome(scheduled, null, { httpStatus: 200, response: 'ok' }, schedule, NOW),
    { result: 'delivered', gone: false, error: null, nextAttemptAt: null });
});

test('a scheduled try that failed is due again after its step of the schedule; past its end, never', () => {
  const refused = new WebhookRefused({ httpStatus: 500, response: 'oops' });
  assert.deepEqual(deliveryOutcome(scheduled, refused, refused.posted, schedule, NOW),
    { result: 'failed', gone: false, error: 'HTTP 500', nextAttemptAt: NOW + 300_000 });
  assert.equal(deliveryOutcome({ ...scheduled, attempts: 9 }, refused, refused.posted, schedule, NOW).nextAttemptAt, null);
  assert.equal(deliveryOutcome(scheduled, refused, refused.posted, () => -5, NOW).nextAttemptAt, NOW, 'never in the past');
});

test('a replay that failed leaves the schedule as it was', () => {
  let asked = false;
  const outcome = deliveryOutcome({ ...scheduled, replay: true }, new Error('down'), null, () => ((asked = true), 1), NOW);
  assert.deepEqual([outcome.result, outcome.nextAttemptAt, asked], ['failed', null, false]);
});

test('a 410 from the webhook endpoint: gone, and the notice waits, due now, for the endpoint to be re-enabled', () => {
  const gone = new WebhookRefused({ httpStatus: 410, response: null });
  assert.deepEqual(deliveryOutcome(scheduled, gone, gone.posted, schedule, NOW), { result: 'gone', gone: true, error: 'HTTP 410', nextAttemptAt: NOW });
  assert.equal(deliveryOutcome({ ...scheduled, channel: 'hook' }, gone, gone.posted, schedule, NOW).gone, false, 'only the webhook channel');
});

test('errors are described with their name and cause', () => {
  assert.equal(describe(new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') })), 'TypeError: fetch failed: ECONNREFUSED');
  assert.equal(describe(new Error('plain')), 'Error: plain');
  assert.equal(describe('a string'), 'a string');
  assert.equal(deliveryOutcome(scheduled, new Error('bill not found'), null, schedule, NOW).error, 'Error: bill not found');
});

test('the log: delivered at info, failed at warn with when it is due again, the last failure at error saying to replay', () => {
  const { log, lines } = logLines();
  const fields = { noticeId: 'n1' };
  logDelivery(log, fields, scheduled, deliveryOutcome(scheduled, null, null, schedule, NOW), 3);
  const failed = deliveryOutcome(scheduled, new Error('x'), null, schedule, NOW);
  logDelivery(log, fields, scheduled, failed, 4);
  logDelivery(log, fields, scheduled, deliveryOutcome({ ...scheduled, attempts: 9 }, new Error('x'), null, schedule, NOW), 5);
  const replay = { ...scheduled, replay: true };
  logDelivery(log, fields, replay, deliveryOutcome(replay, new Error('x'), null, schedule, NOW), 6);
  assert.deepEqual(lines.map((l) => [l.level, l.msg]), [
    ['info', 'merchant notice delivered'],
    ['warn', 'merchant notice failed'],
    ['error', 'merchant notice failed for the last time: replay it from the admin'],
    ['warn', 'merchant notice failed'],
  ]);
  assert.deepEqual([lines[0]!.noticeId, lines[0]!.number], ['n1', 3]);
  assert.equal(lines[1]!.nextAttemptAt, new Date(NOW + 300_000).toISOString());
  assert.equal(lines[1]!.error, 'Error: x');
  assert.equal('nextAttemptAt' in lines[3]!, false, 'a failed replay is not rescheduled');
});
