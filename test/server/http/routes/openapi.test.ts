import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startHarness } from '../../support/harness.js';

interface Parameter {
  name: string;
  in: string;
  schema: { minLength?: number; maxLength?: number; pattern?: string };
}
interface OpenApi {
  openapi: string;
  paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
  components: { schemas: Record<string, { properties?: Record<string, { pattern?: string }> }> };
}

test('GET /api/openapi.json describes every route, with the schemas that validate requests', async (t) => {
  const h = await startHarness(t, { env: { CLIENT_AMOUNT_MIN: '1', CLIENT_AMOUNT_MAX: '100' } });
  const res = await h.request('/api/openapi.json');
  assert.equal(res.status, 200);
  const doc = (await res.json()) as OpenApi;
  assert.equal(doc.openapi, '3.1.0');
  for (const [path, method] of [
    ['/api/bills', 'post'], ['/api/bills/{billId}', 'get'], ['/api/bills/{billId}/events', 'get'],
    ['/api/bills/{billId}/cancel', 'post'], ['/api/admin/bills', 'post'], ['/api/admin/customers', 'post'], ['/healthz', 'get'],
  ] as const) {
    assert.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path} is described`);
  }

  // The orderId pattern the document publishes is the one the route enforces.
  const pattern = doc.components.schemas.CreateBill?.properties?.orderId?.pattern;
  assert.ok(pattern, 'orderId has a pattern');
  const re = new RegExp(pattern);
  for (const orderId of ['order-1', 'has space', 'a'.repeat(129), 'ok:1.2_3', '..', '.x']) {
    const refused = (await h.request('/api/bills', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ orderId, amount: '5' }),
    })).status === 400;
    assert.equal(refused, !re.test(orderId), `orderId ${JSON.stringify(orderId)}`);
  }
  // The Idempotency-Key the document publishes is the one the create takes: its schema lives beside
  // the route (routes/bills.ts), and the check is the domain's own (parseCreateRequest).
  const header = doc.paths['/api/bills']?.post?.parameters?.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
  assert.ok(header, 'Idempotency-Key is described');
  const { minLength = 0, maxLength = Infinity, pattern: keyPattern = '' } = header.schema;
  const fits = (key: string) => key.length >= minLength && key.length <= maxLength && new RegExp(keyPattern).test(key);
  for (const key of ['key-1', 'a'.repeat(255), 'a'.repeat(256), 'has space', '~!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}', 'tab\there']) {
    const res = await h.request('/api/bills', {
      method: 'POST', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key }, body: JSON.stringify({ amount: '5' }),
    });
    const refused = res.status === 400 && ((await res.json()) as { error: { code: string } }).error.code === 'invalid_idempotency_key';
    assert.equal(refused, !fits(key), `Idempotency-Key ${JSON.stringify(key)}: answered ${res.status}`);
  }
  assert.doesNotMatch(JSON.stringify(doc), new RegExp(h.config.upstream.secret));
});
