// SQL fragments both stores build the same way (server/store/sql.ts), each with its own placeholders.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { containsPattern, noticeFilter } from '../../../server/store/sql.js';

test('containsPattern finds the text anywhere, its own %, _ and \\ taken literally', () => {
  assert.equal(containsPattern('order-1'), '%order-1%');
  assert.equal(containsPattern(''), '%%');
  assert.equal(containsPattern('50%_off'), '%50\\%\\_off%');
  assert.equal(containsPattern('a\\b'), '%a\\\\b%');
  assert.equal(containsPattern('%%'), '%\\%\\%%');
});

test('noticeFilter: no condition, no WHERE', () => {
  assert.deepEqual(noticeFilter({ limit: 10 }, () => '?'), { where: '', args: [] });
});

test('noticeFilter: the given conditions in a fixed order, numbered for PostgreSQL, ? for SQLite', () => {
  const query = { to: 200, billId: 'B1', state: 'failed', from: 100, channel: 'webhook', limit: 5 } as const;
  assert.deepEqual(noticeFilter(query, (n) => `$${n}`), {
    where: 'WHERE state = $1 AND channel = $2 AND bill_id = $3 AND created_at >= $4 AND created_at < $5',
    args: ['failed', 'webhook', 'B1', 100, 200],
  });
  assert.deepEqual(noticeFilter(query, () => '?').where,
    'WHERE state = ? AND channel = ? AND bill_id = ? AND created_at >= ? AND created_at < ?');
});

test('noticeFilter: only what is given, numbered without gaps; 0 is given, undefined is not', () => {
  assert.deepEqual(noticeFilter({ channel: 'hook', from: 0, to: undefined, limit: 1 }, (n) => `$${n}`), {
    where: 'WHERE channel = $1 AND created_at >= $2',
    args: ['hook', 0],
  });
  assert.deepEqual(noticeFilter({ billId: '', limit: 1 }, (n) => `$${n}`), { where: 'WHERE bill_id = $1', args: [''] });
});
