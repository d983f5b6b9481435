// Asking the service about one bill (server/domain/status/ask-service.ts): an answer about another
// bill is not applied; a bill overdue and still pending is cancelled at the service and asked about
// again, and a payment that landed meanwhile is what comes back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAlerts, type AlertKind } from '../../../../server/domain/alerts.js';
import { askService, cancelOverdue, isFresh, type AskDeps } from '../../../../server/domain/status/ask-service.js';
import { BillApiNetworkError, BillApiRejectedError, BillApiThrottledError } from '../../../../server/upstream/errors.js';
import type { StatusRecord } from '../../../../server/upstream/types.js';
import { logLines, storedBill } from '../../support/unit.js';

const bill = storedBill({ billId: 'B1', merchantReference: 'ref-1', amount: '10', currency: 'USD' }) as ReturnType<typeof storedBill> & { billId: string };
const record = (over: Partial<StatusRecord> = {}): StatusRecord => ({
  billId: 'B1', merchantReference: 'ref-1', requestReference: null, paymentReference: null, billAmount: '10.00', currency: 'USD',
  status: 1, statusName: 'Pending Payment', isFinal: false, dateTime: 0, ...over,
});
const news = () => 'news' as const;

function deps(answers: (StatusRecord | Error)[], cancel?: Error) {
  const { log, lines } = logLines();
  const raised: AlertKind[] = [];
  const calls: string[] = [];
  const d: AskDeps = {
    upstream: {
      requeryBill: async (billId, options) => {
        calls.push(`requery ${billId} retry=${options?.retry} priority=${typeof options?.priority === 'function' ? options.priority() : options?.priority}`);
        const next = answers.shift();
        if (!next || next instanceof Error) throw next ?? new Error('no answer');
        return next;
      },
      cancelBill: async (billId) => {
        calls.push(`cancel ${billId}`);
        if (cancel) throw cancel;
      },
    },
    alerts: createAlerts(log, (kind) => raised.push(kind)),
    log,
  };
  return { deps: d, calls, lines, raised };
}

test('a stored status is served without asking while final or checked within the window', () => {
  assert.equal(isFresh({ isFinal: true, checkedAt: null }, 1_000, 99_999), true);
  assert.equal(isFresh({ isFinal: false, checkedAt: 9_500 }, 1_000, 10_000), true);
  assert.equal(isFresh({ isFinal: false, checkedAt: 9_000 }, 1_000, 10_000), false, 'exactly the window old: asked again');
  assert.equal(isFresh({ isFinal: false, checkedAt: null }, 1_000, 10_000), false, 'never checked');
});

test('the service\'s answer about the bill is returned; retry and priority go with the call', async () => {
  const { deps: d, calls } = deps([record({ status: 2, statusName: 'Paid', isFinal: true })]);
  assert.equal((await askService(bill, false, news, d) as StatusRecord).statusName, 'Paid');
  assert.deepEqual(calls, ['requery B1 retry=false priority=news']);
});

test('a requery that fails: `failed`, logged, the stored status served', async () => {
  const { deps: d, lines } = deps([new BillApiNetworkError('down', { operation: 'requery', retryable: true })]);
  assert.equal(await askService(bill, true, news, d), 'failed');
  assert.deepEqual([lines[0]!.level, lines[0]!.msg, lines[0]!.billId], ['warn', 'requery failed; serving the stored status', 'B1']);
});

test('an answer about another bill, reference, amount or currency: `mismatch`, raised as an alert, not applied', async () => {
  for (const [over, field] of [[{ billId: 'B2' }, 'billId'], [{ merchantReference: 'ref-2' }, 'merchantReference'], [{ billAmount: '1000' }, 'billAmount'], [{ currency: 'EUR' }, 'currency']] as const) {
    const { deps: d, raised, lines } = deps([record(over)]);
    assert.equal(await askService(bill, true, news, d), 'mismatch', field);
    assert.deepEqual(raised, ['requery_answer_mismatch']);
    assert.equal(lines[0]!.field, field);
    assert.equal(lines[0]!.msg, 'alert: a requery answer does not match the stored bill; not applied');
  }
});

test('overdue and still pending: cancelled at the service, then asked again once, without retries: its word is returned', async () => {
  const { deps: d, calls, lines } = deps([record({ status: 3, statusName: 'Cancelled', isFinal: true })]);
  const after = await cancelOverdue(bill, record(), news, d);
  assert.equal(after.statusName, 'Cancelled');
  assert.deepEqual(calls, ['cancel B1', 'requery B1 retry=false priority=news']);
  assert.equal(lines[0]!.msg, 'bill past expiredOn and grace, still pending: cancelled at the service');
});

test('the cancel refused as not pending (paid at the last second): the requery brings the payment', async () => {
  const notPending = new BillApiRejectedError('refused', { operation: 'cancel', retryable: false, code: 2001, serviceMessage: 'not pending', httpStatus: 200 });
  const { deps: d } = deps([record({ status: 2, statusName: 'Paid', isFinal: true })], notPending);
  assert.equal((await cancelOverdue(bill, record(), news, d)).statusName, 'Paid');
});

test('a cancel that fails (out of reach, refused for load): still pending, asked again later, nothing concluded', async () => {
  for (const failure of [
    new BillApiNetworkError('down', { operation: 'cancel', retryable: true }),
    new BillApiThrottledError('slow', { operation: 'cancel', retryable: true, retryAfterMs: 1_000 }),
  ]) {
    const pending = record();
    const { deps: d, calls, lines } = deps([], failure);
    assert.equal(await cancelOverdue(bill, pending, news, d), pending);
    assert.deepEqual(calls, ['cancel B1']);
    assert.equal(lines[0]!.msg, 'bill past expiredOn and grace, still pending: the cancel failed; asking again later');
  }
});

test('cancelled but the requery after it fails or answers another bill: the pending answer stands', async () => {
  const pending = record();
  assert.equal(await cancelOverdue(bill, pending, news, deps([new Error('down')]).deps), pending);
  assert.equal(await cancelOverdue(bill, pending, news, deps([record({ billId: 'B9', isFinal: true })]).deps), pending);
});
