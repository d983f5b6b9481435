// Row mapping (server/store/rows.ts, server/store/postgres/rows.ts): SQLite's rows to the store
// contract's types, and PostgreSQL's rows (BIGINT as text, BOOLEAN as boolean) to SQLite's shape first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attemptRow, billRow, noticeRow, num, numOrNull, toBill, toCustomer, toEvent } from '../../../server/store/postgres/rows.js';
import { toBillEvent, toBoundCustomer, toNotice, toNoticeAttempt, toStoredBill } from '../../../server/store/rows.js';
import type { BillRow, NoticeAttemptRow, NoticeRow } from '../../../server/store/rows.js';
import type { StoredBill } from '../../../server/store/types.js';

const T0 = 1_800_000_000_000;

const sqliteBill: BillRow = {
  merchant_reference: 'ref-1', bill_id: 'B1', idempotency_key: 'key-1', order_id: 'order-1', amount: '10.50',
  order_amount: '10.50', order_currency: 'USD', duplicate_payment: 0, token: 'tok', hook_token: 'hook',
  create_state: 'created', bill_url: 'https://pay.example/B1', currency: 'USD', require_gc_amount: '0.35',
  expired_on: T0 + 3_600_000, expires_local_at: T0 + 3_600_001, early_news_at: null, superseded_at: null,
  withdraw_confirmed_at: null, orphaned_at: null, lost_at: null, service_id: 'svc-1',
  status: 2, status_name: 'Paid', is_final: 1, outcome: 'paid', date_time: T0 + 5, status_version: 2,
  checked_at: T0 + 6, final_reason: 'callback', final_at: T0 + 6, created_at: T0, updated_at: T0 + 6,
};

const storedBill: StoredBill = {
  merchantReference: 'ref-1', createState: 'created', billId: 'B1', orderId: 'order-1', idempotencyKey: 'key-1',
  amount: '10.50', orderAmount: '10.50', orderCurrency: 'USD', duplicatePayment: false, token: 'tok', hookToken: 'hook',
  billUrl: 'https://pay.example/B1', currency: 'USD', requireGCAmount: '0.35', expiredOn: T0 + 3_600_000,
  expiresLocalAt: T0 + 3_600_001, earlyNewsAt: null, supersededAt: null,
  withdrawConfirmedAt: null, orphanedAt: null, lostAt: null, serviceId: 'svc-1', status: 2, statusName: 'Paid', isFinal: true,
  outcome: 'paid', dateTime: T0 + 5, statusVersion: 2, checkedAt: T0 + 6, finalReason: 'callback', finalAt: T0 + 6,
  createdAt: T0, updatedAt: T0 + 6,
};

const noticeSqlite: NoticeRow = {
  id: 'msg_B1', channel: 'webhook', bill_id: 'B1', state: 'pending', attempts: 2, next_attempt_at: T0 + 100,
  lease_until: null, delivered_at: null, last_error: 'HTTP 500', replay_at: T0 + 50, created_at: T0,
};

test('a SQLite bill row maps to a StoredBill, its 0/1 columns to booleans', () => {
  assert.deepEqual(toStoredBill(sqliteBill), storedBill);
  const pending = toStoredBill({ ...sqliteBill, is_final: 0, duplicate_payment: 1 });
  assert.equal(pending.isFinal, false);
  assert.equal(pending.duplicatePayment, true);
});

test('columns that older rows lack (undefined) map to null', () => {
  const old = { ...sqliteBill } as Partial<BillRow>;
  delete old.expires_local_at;
  delete old.early_news_at;
  delete old.superseded_at;
  const bill = toStoredBill(old as BillRow);
  assert.equal(bill.expiresLocalAt, null);
  assert.equal(bill.earlyNewsAt, null);
  assert.equal(bill.supersededAt, null);
});

test('a notice is a replay only for the claim that took it once its replay was due', () => {
  const base = {
    id: 'msg_B1', channel: 'webhook', billId: 'B1', state: 'pending', attempts: 2, nextAttemptAt: T0 + 100,
    deliveredAt: null, lastError: 'HTTP 500', replayAt: T0 + 50, createdAt: T0,
  };
  assert.deepEqual(toNotice(noticeSqlite), { ...base, replay: false }, 'read, not claimed');
  assert.equal(toNotice(noticeSqlite, T0 + 49).replay, false, 'claimed before the replay is due');
  assert.equal(toNotice(noticeSqlite, T0 + 50).replay, true, 'claimed when it is due');
  assert.equal(toNotice({ ...noticeSqlite, replay_at: null }, T0 + 1000).replay, false, 'no replay asked');
});

test('an attempt row, a history row and a customer row map to the contract types', () => {
  const attempt: NoticeAttemptRow = {
    notice_id: 'msg_B1', number: 3, channel: 'hook', replay: 1, at: T0, duration_ms: 12, ok: 0,
    http_status: null, response: null, error: 'boom',
  };
  assert.deepEqual(toNoticeAttempt(attempt), {
    noticeId: 'msg_B1', channel: 'hook', number: 3, replay: true, at: T0, durationMs: 12, ok: false,
    httpStatus: null, response: null, error: 'boom',
  });
  assert.deepEqual(
    toBillEvent({ at: T0, kind: 'status', reason: 'poll', status: 1, status_name: 'Pending Payment', outcome: 'pending' }),
    { at: T0, kind: 'status', reason: 'poll', status: 1, statusName: 'Pending Payment', outcome: 'pending' },
  );
  assert.deepEqual(
    toBoundCustomer({ customer_key: 'k', customer_id: 'c', lease_until: null, bound_at: T0 }),
    { customerKey: 'k', customerId: 'c', boundAt: T0 },
  );
});

test('PostgreSQL numbers: BIGINT text to a number, NULL stays null', () => {
  assert.equal(num('1800000000000'), T0);
  assert.equal(num(7), 7);
  assert.equal(numOrNull('42'), 42);
  assert.equal(numOrNull(null), null);
  assert.equal(numOrNull(undefined), null);
  assert.equal(numOrNull('0'), 0);
});

test('a PostgreSQL bill row (BIGINT as text, BOOLEAN as boolean) maps as SQLite\'s does', () => {
  const pgBill = {
    ...sqliteBill, expired_on: String(T0 + 3_600_000), expires_local_at: String(T0 + 3_600_001), status: 2,
    is_final: true, duplicate_payment: false, date_time: String(T0 + 5), status_version: '2', checked_at: String(T0 + 6),
    final_at: String(T0 + 6), created_at: String(T0), updated_at: String(T0 + 6), seq: '17', refresh_lease_until: null,
  };
  assert.deepEqual({ ...billRow(pgBill), seq: undefined, refresh_lease_until: undefined },
    { ...sqliteBill, seq: undefined, refresh_lease_until: undefined });
  assert.deepEqual(toBill(pgBill), storedBill);
  // A bill as JSONB (to_jsonb): numbers already, and a pending, never-checked bill.
  const fresh = toBill({ ...pgBill, is_final: false, duplicate_payment: true, status: null, date_time: null, checked_at: null, final_at: null, status_version: 0 });
  assert.equal(fresh.isFinal, false);
  assert.equal(fresh.duplicatePayment, true);
  assert.equal(fresh.status, null);
  assert.equal(fresh.dateTime, null);
  assert.equal(fresh.checkedAt, null);
  assert.equal(fresh.statusVersion, 0);
});

test('PostgreSQL notice, attempt, history and customer rows map as SQLite\'s do', () => {
  const pgNotice = {
    ...noticeSqlite, attempts: 2, next_attempt_at: String(T0 + 100), lease_until: String(T0 + 60_000),
    delivered_at: null, replay_at: String(T0 + 50), created_at: String(T0),
  };
  assert.deepEqual(noticeRow(pgNotice), { ...noticeSqlite, lease_until: T0 + 60_000 });
  assert.deepEqual(
    attemptRow({ notice_id: 'msg_B1', number: 1, channel: 'webhook', replay: false, at: String(T0), duration_ms: 4, ok: true, http_status: 204, response: '', error: null }),
    { notice_id: 'msg_B1', number: 1, channel: 'webhook', replay: 0, at: T0, duration_ms: 4, ok: 1, http_status: 204, response: '', error: null },
  );
  assert.equal(attemptRow({ replay: true, ok: false, at: '1', duration_ms: '2', http_status: null }).http_status, null);
  assert.deepEqual(
    toEvent({ id: '9', merchant_reference: 'ref-1', at: String(T0), kind: 'created', reason: null, status: null, status_name: null, outcome: null }),
    { at: T0, kind: 'created', reason: null, status: null, statusName: null, outcome: null },
  );
  assert.equal(toEvent({ at: String(T0), kind: 'status', reason: 'callback', status: 2, status_name: 'Paid', outcome: 'paid' }).status, 2);
  assert.deepEqual(toCustomer({ customer_key: 'k', customer_id: 'c', lease_until: null, bound_at: String(T0) }),
    { customerKey: 'k', customerId: 'c', boundAt: T0 });
});
