// GET /api/openapi.json: the BFF's routes for merchants on other stacks. Request bodies come from
// the very zod schemas that validate them, so the description cannot drift from the checks; the
// answers are every status a route, its middleware (app.ts) and the JSON error mechanism
// (json-errors.ts) can give, each with its body and headers. `redocly lint` passes it
// (test/build/openapi.test.ts), and Prism checks real answers against it (test/server/api-conformance.test.ts).
import { Hono } from 'hono';
import { z } from 'zod';
import { REQUERY_REASONS } from '../../../contract/admin.js';
import { createBillBody } from '../../domain/create/request.js';
import type {
  AdminBillDetail, BillEventView, BoundCustomerView, CustomerList, LocalBill, NoticeAttemptView, NoticeList, NoticeReplayed,
  NoticesReplayed, NoticeView, WebhookEndpointView,
} from '../../../contract/admin.js';
import { bindCustomerBody, listBillsBody } from './admin.js';

const outcome = z.enum(['pending', 'paid', 'failed', 'cancelled', 'expired']);
const billView = z.object({
  billId: z.string(),
  merchantReference: z.string(),
  billUrl: z.string(),
  billAmount: z.string().describe('Exact decimal text'),
  currency: z.string(),
  requireGCAmount: z.string().nullable().describe('Exact decimal text'),
  expiredOn: z.number().describe('Unix milliseconds, service clock'),
  status: z.number().nullable().describe("The service's status code; null until the first requery"),
  statusName: z.string(),
  isFinal: z.boolean(),
  outcome,
  dateTime: z.number().nullable().describe('Time of the last status update, unix milliseconds (service clock); null until known'),
  display: z.object({
    locale: z.string().describe('The canonical BCP 47 tag of the first language of the request\'s Accept-Language'),
    billAmount: z.string(),
    requireGCAmount: z.string().nullable(),
  }).optional().describe('The amounts as text in that language (money with its currency), on the answers to a create and a read whose request has an Accept-Language'),
});
const createdBill = billView.extend({ token: z.string().describe('Reads, watches and cancels this bill (the `token` query parameter)') });
const requeryReason = z.enum(REQUERY_REASONS)
  .describe("Why the service was asked: a widget's poll or stream, the service's callback, the customer's return, the reconciler, a cancel, a create reusing an open bill, a follow-up of news not yet confirmed");
const noticeState = z.enum(['pending', 'delivered', 'failed'])
  .describe('pending: tried again at nextAttemptAt; delivered: answered 2xx; failed: the retry schedule (about 3 days) ran out, only a replay sends it');
const ms = (what: string) => z.number().describe(`${what}, unix milliseconds (the BFF's clock)`);
const localBill: z.ZodType<LocalBill> = z.object({
  outcome,
  notified: z.boolean().describe('Every merchant notice of this bill was delivered (false while none was sent)'),
  notice: z.union([noticeState, z.literal('none')]).describe("The webhook notice's state (the hook's without a webhook); none while pending or with no channel configured"),
  orderId: z.string().nullable(),
  orderAmount: z.string().nullable().describe("The order's amount as the merchant resolved it"),
  orderCurrency: z.string().nullable(),
  duplicatePayment: z.boolean().describe('Paid while another bill of the same order was already paid: refund one'),
  finalReason: requeryReason.nullable().describe('How the final status was learned; null while pending'),
  finalAt: ms('When the bill became final').nullable(),
  createdAt: ms('When the create started'),
});
const localState = localBill.nullable().describe("The BFF's own record of the bill; null when it is not one of ours");
const noticeAttempt: z.ZodType<NoticeAttemptView> = z.object({
  number: z.number().describe('1, 2, … over every attempt, replays included'),
  replay: z.boolean(),
  at: ms('When it started'),
  durationMs: z.number(),
  ok: z.boolean(),
  httpStatus: z.number().nullable().describe("The merchant's HTTP status; null for the hook or when no answer came"),
  response: z.string().nullable().describe("The first 200 bytes of the merchant's answer"),
  error: z.string().nullable(),
});
const noticeView: z.ZodType<NoticeView> = z.object({
  id: z.string().describe('The Standard Webhooks webhook-id: the same on every retry and replay'),
  channel: z.enum(['hook', 'webhook']),
  billId: z.string(),
  state: noticeState,
  attempts: z.number().describe('Scheduled attempts made (replays not counted)'),
  nextAttemptAt: ms('The next scheduled attempt (pending only)').nullable(),
  deliveredAt: ms('The first delivery').nullable(),
  lastError: z.string().nullable(),
  replayAt: ms('A replay queued for this time').nullable(),
  createdAt: ms('When the bill became final and the notice was queued'),
  log: z.array(noticeAttempt).describe('The delivery log, oldest first'),
});
const webhookEndpoint: z.ZodType<WebhookEndpointView> = z.object({
  url: z.string().describe('MERCHANT_WEBHOOK_URL without userinfo'),
  enabled: z.boolean().describe('False after the endpoint answered 410 Gone, until re-enabled'),
  disabledAt: ms('When it was disabled').nullable(),
  disabledReason: z.string().nullable(),
  secrets: z.number().describe('How many secrets of MERCHANT_WEBHOOK_SECRET sign each notice'),
});
const noticeList: z.ZodType<NoticeList> = z.object({
  notices: z.array(noticeView).describe('Newest first'),
  webhook: webhookEndpoint.nullable().describe('null: no MERCHANT_WEBHOOK_URL'),
});
const billEvent: z.ZodType<BillEventView> = z.object({
  at: ms('When'),
  kind: z.enum(['created', 'create_failed', 'status']).describe('created: the service answered the create; create_failed: it refused it; status: a requery changed the status'),
  reason: requeryReason.nullable(),
  status: z.number().nullable(),
  statusName: z.string().nullable(),
  outcome: outcome.nullable(),
});
const adminBillDetail: z.ZodType<AdminBillDetail> = z.object({
  bill: z.object({
    billId: z.string(),
    merchantReference: z.string(),
    billAmount: z.string().describe('Exact decimal text'),
    currency: z.string().nullable(),
    status: z.number().nullable(),
    statusName: z.string(),
    isFinal: z.boolean(),
    dateTime: z.number().nullable().describe("The service's time of the status (service clock)"),
    expiredOn: z.number().nullable(),
    checkedAt: ms('When a requery last confirmed the status').nullable(),
  }),
  local: localBill,
  history: z.array(billEvent).describe("The bill's steps in the BFF, oldest first"),
  notices: z.array(noticeView),
});
const noticeReplayed: z.ZodType<NoticeReplayed> = z.object({
  notice: noticeView.describe('After the replay was tried (its log has the attempt), or still queued (replayAt) when another instance took it'),
});
const noticesReplayed: z.ZodType<NoticesReplayed> = z.object({ replayed: z.number().describe('Notices queued for a replay') });
const customerList: z.ZodType<CustomerList> = z.object({
  customers: z.array(z.object({ customerKey: z.string(), customerId: z.string(), boundAt: ms('When it was bound') })).describe('Newest first'),
});
const adminBillRow = z.object({
  billId: z.string(),
  merchantReference: z.string(),
  requestReference: z.string().nullable(),
  paymentReference: z.string().nullable(),
  billAmount: z.string().describe('Exact decimal text'),
  currency: z.string(),
  status: z.number(),
  statusName: z.string(),
  isFinal: z.boolean(),
  dateTime: z.number(),
  local: localState,
}).describe("A status record of the service's list, with the BFF's own record of the bill");
const adminBillList = z.object({
  lists: z.array(adminBillRow),
  total: z.number().describe('Bills that match the filters, over all pages'),
  paging: z.object({ index: z.number(), size: z.number() }).nullable().describe('The paging asked for (index 1-based); null when none was'),
});
const adminCancelled = z.object({
  cancelled: z.literal(true),
  bill: billView.nullable().describe('The bill as requeried after the cancel; null when it is not one of ours'),
});
const boundCustomer: z.ZodType<BoundCustomerView> = z.object({
  customerKey: z.string().nullable().describe("The merchant's key for the customer; null when the bind named none (then nothing is remembered)"),
  customerId: z.string().describe("The service's customer identifier (data[BILL_BIND_ID_FIELD])"),
  bound: z.enum(['new', 'existing']).describe('new: the service was called now; existing: the key was bound before, the service was not called'),
  boundAt: ms('When the key was bound').nullable(),
});
const callbackHint = z.looseObject({
  billId: z.union([z.string(), z.number()]).optional().describe('When present and not the bill of this URL, the callback is refused (400)'),
}).describe('Whatever the service sends (a status record, in the spec). It is a hint that triggers a requery and never sets a status: only `billId` is read, leniently; a body that is not JSON is ignored');
const ok = z.object({ ok: z.literal(true) });
const errorBody = z.object({
  error: z.object({
    code: z.string().describe('Stable, machine-readable: e.g. invalid_request, order_ticket_invalid, not_found, rate_limited'),
    message: z.string().describe('Safe to show; never a stack'),
  }),
});

/** Every named schema; requests from the route's own zod schemas, nested ones by reference. */
const SCHEMAS = {
  CreateBill: createBillBody,
  ListBills: listBillsBody,
  BindCustomer: bindCustomerBody,
  CallbackHint: callbackHint,
  BillView: billView,
  CreatedBill: createdBill,
  AdminBillList: adminBillList,
  AdminBillRow: adminBillRow,
  AdminCancelled: adminCancelled,
  BoundCustomer: boundCustomer,
  CustomerList: customerList,
  LocalBill: localBill,
  AdminBillDetail: adminBillDetail,
  BillEvent: billEvent,
  Notice: noticeView,
  NoticeAttempt: noticeAttempt,
  NoticeList: noticeList,
  NoticeReplayed: noticeReplayed,
  NoticesReplayed: noticesReplayed,
  WebhookEndpoint: webhookEndpoint,
  Ok: ok,
  Error: errorBody,
} satisfies Record<string, z.ZodType>;
type SchemaName = keyof typeof SCHEMAS;

function componentSchemas(): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(SCHEMAS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { io: 'input', uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => {
    const { $schema: _s, $id: _i, ...rest } = schema as Record<string, unknown>;
    return [id, rest];
  }));
}

type Header = 'CacheControl' | 'ServerTime' | 'ServiceTime' | 'RetryAfter' | 'WwwAuthenticate' | 'StartedCookie';
const HEADERS = {
  CacheControl: {
    description: 'No cache may keep an answer of the API: it may carry a capability token or a status that changes',
    required: true,
    schema: { type: 'string', enum: ['no-store'] },
  },
  ServerTime: {
    description: "The BFF's clock, unix milliseconds: widgets correct their countdown for a skewed device clock",
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  ServiceTime: {
    description: "The payment service's clock as the BFF estimates it from the Date headers of the service's answers, unix milliseconds: " +
      "expiredOn is on this clock, so widgets count down by it (preferred to X-Server-Time)",
    required: false,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  RetryAfter: { description: 'Seconds to wait before trying again', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
  WwwAuthenticate: { description: 'Bearer realm="admin"', required: true, schema: { type: 'string' } },
  StartedCookie: {
    description: "Marks the browser that created the bill, for that bill's return only: `bc_started=1; Path=/api/hooks/return/{merchantReference}; " +
      'Max-Age=…; HttpOnly; SameSite=Lax` (and `Secure` when PUBLIC_URL is https). It holds no secret. Its return then goes on to RETURN_URL; ' +
      "a return without it is another device's (a phone that scanned the QR code). Send the create with credentials to keep it from another origin",
    required: true,
    schema: { type: 'string', pattern: '^bc_started=1; Path=' },
  },
} satisfies Record<Header, unknown>;

const HEADER_NAMES: Record<Header, string> = {
  CacheControl: 'Cache-Control', ServerTime: 'X-Server-Time', ServiceTime: 'X-Service-Time', RetryAfter: 'Retry-After', WwwAuthenticate: 'WWW-Authenticate',
  StartedCookie: 'Set-Cookie',
};

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const headers = (...names: Header[]) => Object.fromEntries(names.map((n) => [HEADER_NAMES[n], { $ref: `#/components/headers/${n}` }]));
/** An answer under /api: JSON, `Cache-Control: no-store` and `X-Server-Time`. */
const api = (description: string, schema: SchemaName, ...extra: Header[]) => ({
  description,
  headers: headers('CacheControl', 'ServerTime', 'ServiceTime', ...extra),
  content: { 'application/json': { schema: ref(schema) } },
});
const error = (description: string, ...extra: Header[]) => api(description, 'Error', ...extra);

// Answers of the middleware that app.ts puts in front of the routes, and of the error mechanism.
const tooLarge = error('The body is larger than BODY_LIMIT_BYTES (payload_too_large)');
const internal = error('Something failed on our side (internal_error); nothing is shown of it');
const notJson = error('Not sent with Content-Type: application/json (unsupported_media_type). Every POST under /api but the callback needs it, a bodiless one too: a form or a text/plain fetch from another site needs no CORS preflight');
const foreignOrigin = error('The browser named an Origin that is neither ALLOWED_ORIGINS nor the BFF\'s own (origin_not_allowed)');
const unauthorized = error('No valid admin Bearer token (unauthorized)', 'WwwAuthenticate');
const adminOff = 'ADMIN_TOKEN is not set: the admin routes do not exist (not_found)';
const upstream = error('The payment service refused (upstream_rejected) or is unavailable (upstream_unavailable)');
const noSuchBill = error('No such bill, or a missing or wrong token: the same answer (not_found)');
const billId = { name: 'billId', in: 'path', required: true, description: "The service's bill id", schema: { type: 'string' } };
/** The body of a POST that takes none: the cross-site guard still wants it sent as JSON. */
const emptyJson = {
  required: false,
  description: 'Ignored. Send the request with Content-Type: application/json all the same (a body of {} will do): anything else answers 415',
  content: { 'application/json': { schema: { type: 'object' } } },
};
const limitParam = { name: 'limit', in: 'query', required: false, description: 'At most this many (default 100)', schema: { type: 'integer', minimum: 1, maximum: 500 } };
const instantParam = (name: string, description: string, required: boolean) => ({
  name, in: 'query', required, description: `${description}: unix milliseconds or an ISO 8601 date-time`, schema: { type: 'string' },
});
const billToken = [{ billToken: [] }];
const adminToken = [{ adminToken: [] }];
const open: never[] = [];

export function describeApi(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'bill-checkout BFF',
      version: '1',
      summary: 'Creates bills with the payment service and serves their requeried status to <bill-checkout> widgets.',
      description: 'The backend-for-frontend of bill-checkout. Browsers create a bill (POST /api/bills) and read, watch and cancel it with its `token`; ' +
        'the merchant lists, cancels and binds with the admin Bearer token; the payment service calls back on the URL registered at create. ' +
        'Errors are `{"error": {"code", "message"}}`. Every answer under /api carries `Cache-Control: no-store` (the event stream `no-cache`), ' +
        '`X-Content-Type-Options: nosniff` and `X-Server-Time`; the browser routes (/api/bills…) answer CORS for ALLOWED_ORIGINS.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'The BFF itself: PUBLIC_URL' }],
    tags: [
      { name: 'bills', description: 'Called by the <bill-checkout> element from the merchant\'s page (CORS for ALLOWED_ORIGINS)' },
      { name: 'admin', description: "The merchant's tools, behind the ADMIN_TOKEN Bearer token; off (404) without it" },
      { name: 'hooks', description: "Registered with the service at create, per bill: its callback and the customer's return from the pay page. Each URL carries an unguessable per-bill token, checked before anything else" },
      { name: 'meta', description: 'Health, readiness, metrics and this description' },
    ],
    paths: {
      '/api/bills': {
        post: {
          operationId: 'createBill',
          tags: ['bills'],
          summary: 'Create a bill (or answer the same one: Idempotency-Key, or the open bill of the same orderId while its amount holds)',
          description: "An orderId needs the orderTicket that the merchant's server minted for it (when ORDER_TICKET_SECRET is set). " +
            'An order is paid once: a create for an order that already has a paid bill answers that bill with 200. ' +
            'A browser amount is taken only within CLIENT_AMOUNT_MIN/MAX.',
          security: open,
          parameters: [{
            name: 'Idempotency-Key', in: 'header', required: false, description: 'The same key and body answer the same bill',
            schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
          }],
          requestBody: { required: true, content: { 'application/json': { schema: ref('CreateBill') } } },
          responses: {
            200: api("The order's paid bill and its token: the order is paid already", 'CreatedBill', 'StartedCookie'),
            201: api('The bill and its token', 'CreatedBill', 'StartedCookie'),
            400: error('Not JSON (invalid_json), an invalid body (invalid_request), Idempotency-Key (invalid_idempotency_key), or an amount the BFF does not take (amount_required, invalid_amount, amount_out_of_range, amount_not_allowed, order_id_required)'),
            403: error("No valid, unexpired order ticket for this orderId (order_ticket_invalid), the merchant's resolveOrder refused this caller, or an Origin not allowed (origin_not_allowed)"),
            404: error('No such order (order_not_found)'),
            409: error('A create with this Idempotency-Key is still running (create_in_progress)', 'RetryAfter'),
            413: tooLarge,
            415: notJson,
            422: error('Idempotency-Key used with another request (idempotency_key_reused)'),
            429: error('CREATE_RATE_LIMIT_PER_MINUTE reached for this client (rate_limited)', 'RetryAfter'),
            500: internal,
            502: error('The payment service or the order lookup refused or failed (upstream_rejected, upstream_unavailable, create_failed, order_lookup_failed), or the service answered a bill other than the one asked for (upstream_mismatch: it was withdrawn)'),
            503: error('The store does not answer (store_unavailable), or the payment service asked for fewer requests and no turn came within BILL_API_TIMEOUT_MS (upstream_busy): nothing was created', 'RetryAfter'),
          },
        },
      },
      '/api/bills/{billId}': {
        get: {
          operationId: 'getBill',
          tags: ['bills'],
          summary: 'The bill as stored, at once; when its status is older than REFRESH_WINDOW_MS a requery starts behind the answer (the next read or the stream shows it)',
          security: billToken,
          parameters: [billId],
          responses: {
            200: api('The bill (during a store outage: as this instance last saw it)', 'BillView'),
            404: noSuchBill,
            500: internal,
            503: error('The store does not answer and this instance has not seen the bill (store_unavailable)', 'RetryAfter'),
          },
        },
      },
      '/api/bills/{billId}/events': {
        get: {
          operationId: 'watchBill',
          tags: ['bills'],
          summary: 'Server-Sent Events of the bill: `event: status`, data a BillView; at once, on every change, closed after the final one',
          description: "Each status frame's `id:` is the bill's status version, a whole number that grows with every change of its status, the same on every " +
            'instance; the first frame also carries `retry:` (3000 ms). A reconnect that names the final status\'s id (the `Last-Event-ID` an EventSource ' +
            'sends by itself) is answered 204, on which an EventSource stops reconnecting; any other id streams as usual.',
          security: billToken,
          parameters: [
            billId,
            {
              name: 'Last-Event-ID', in: 'header', required: false,
              description: 'The `id:` of the last status frame received (an EventSource sends it when it reconnects)',
              schema: { type: 'string' },
            },
            {
              name: 'lastEventId', in: 'query', required: false,
              description: 'The same as Last-Event-ID, for EventSource polyfills that cannot set headers; the header wins',
              schema: { type: 'string' },
            },
          ],
          responses: {
            200: {
              description: 'An event stream: `event: status` frames (`id:` the status version, `data` a BillView; `retry:` in the first), and comment lines that keep it open. It ends after the final status',
              headers: {
                'Cache-Control': { description: 'A stream is never cached either', required: true, schema: { type: 'string', enum: ['no-cache'] } },
                'X-Server-Time': { $ref: '#/components/headers/ServerTime' },
              },
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
            204: {
              description: 'Last-Event-ID (or lastEventId) names the final status: the client has it all, and an EventSource stops reconnecting',
              headers: headers('CacheControl', 'ServerTime'),
            },
            404: noSuchBill,
            429: error('This client holds MAX_SSE_PER_CLIENT streams already (too_many_streams_for_client): poll GET /api/bills/{billId} instead', 'RetryAfter'),
            500: internal,
            503: error('MAX_SSE_CONNECTIONS streams are open (too_many_streams): poll GET /api/bills/{billId} instead; or the store does not answer and this instance has not seen the bill (store_unavailable)', 'RetryAfter'),
          },
        },
      },
      '/api/bills/{billId}/cancel': {
        post: {
          operationId: 'cancelBill',
          tags: ['bills'],
          summary: 'Cancel the bill while it is pending',
          security: billToken,
          parameters: [billId],
          requestBody: emptyJson,
          responses: {
            200: api('The bill after cancelling, as requeried', 'BillView'),
            403: foreignOrigin,
            404: noSuchBill,
            409: error('Not pending any more, or the service says it can no longer be cancelled (not_cancellable)'),
            413: tooLarge,
            415: notJson,
            500: internal,
            502: error('The payment service is unavailable (upstream_unavailable)'),
            503: error('The payment service asked for fewer requests (upstream_busy), or the store does not answer (store_unavailable)', 'RetryAfter'),
          },
        },
      },
      '/api/admin/bills': {
        post: {
          operationId: 'listBills',
          tags: ['admin'],
          summary: "The service's list of bills, each with the BFF's own record (`local`): outcome, notified, order, duplicate payment",
          security: adminToken,
          requestBody: { required: false, description: 'An empty body lists the first page', content: { 'application/json': { schema: ref('ListBills') } } },
          responses: {
            200: api('One page of bills', 'AdminBillList'),
            400: error('Not JSON (invalid_json), an invalid body, or one the service refused as invalid (invalid_request)'),
            401: unauthorized,
            403: foreignOrigin,
            404: error(adminOff),
            413: tooLarge,
            415: notJson,
            500: internal,
            502: upstream,
          },
        },
      },
      '/api/admin/bills/{billId}/cancel': {
        post: {
          operationId: 'adminCancelBill',
          tags: ['admin'],
          summary: 'Cancel any pending bill of the account, then requery it',
          security: adminToken,
          parameters: [billId],
          requestBody: emptyJson,
          responses: {
            200: api('Cancelled', 'AdminCancelled'),
            401: unauthorized,
            403: foreignOrigin,
            404: error(`The payment service knows no such bill, or ${adminOff}`),
            409: error('The payment service refused the cancel: the bill is not pending (not_cancellable)'),
            413: tooLarge,
            415: notJson,
            500: internal,
            502: upstream,
          },
        },
      },
      '/api/admin/customers': {
        post: {
          operationId: 'bindCustomer',
          tags: ['admin'],
          summary: 'Bind a customer once: under the same `customerKey` the stored id is answered without calling the service',
          description: "The body is the customer's information, passed to the service as it is but for `customerKey`, the merchant's own key for " +
            'the customer, which the BFF keeps with the id the service answers. Concurrent binds of one key call the service once. Without a ' +
            '`customerKey` nothing is remembered and every bind reaches the service.',
          security: adminToken,
          requestBody: { required: true, content: { 'application/json': { schema: ref('BindCustomer') } } },
          responses: {
            200: api('The customer as the service bound it, now or before', 'BoundCustomer'),
            400: error('Not JSON (invalid_json), not an object, an empty customerKey, or refused by the service as invalid (invalid_request)'),
            401: unauthorized,
            403: foreignOrigin,
            404: error(adminOff),
            409: error('Another request is binding this key right now (bind_in_progress)', 'RetryAfter'),
            413: tooLarge,
            415: notJson,
            500: internal,
            502: upstream,
          },
        },
        get: {
          operationId: 'listCustomers',
          tags: ['admin'],
          summary: 'Customers bound under a key, newest first',
          security: adminToken,
          parameters: [
            limitParam,
            { name: 'before', in: 'query', required: false, description: 'Only customers bound before this time (unix ms): the next page', schema: { type: 'integer', minimum: 0 } },
          ],
          responses: {
            200: api('Bound customers', 'CustomerList'),
            400: error('An invalid query (invalid_request)'),
            401: unauthorized,
            404: error(adminOff),
            500: internal,
          },
        },
      },
      '/api/admin/bills/{billId}': {
        get: {
          operationId: 'adminBill',
          tags: ['admin'],
          summary: "One of the BFF's bills: its stored status, how the final status was learned, its history and its notices with their delivery logs",
          security: adminToken,
          parameters: [billId],
          responses: {
            200: api('The bill', 'AdminBillDetail'),
            401: unauthorized,
            404: error(`This BFF has no such bill, or ${adminOff}`),
            500: internal,
          },
        },
      },
      '/api/admin/notices': {
        get: {
          operationId: 'listNotices',
          tags: ['admin'],
          summary: 'Merchant notices, newest first, each with its delivery log; and the webhook endpoint state',
          security: adminToken,
          parameters: [
            { name: 'state', in: 'query', required: false, schema: { type: 'string', enum: ['pending', 'delivered', 'failed'] } },
            { name: 'channel', in: 'query', required: false, schema: { type: 'string', enum: ['hook', 'webhook'] } },
            { name: 'billId', in: 'query', required: false, schema: { type: 'string' } },
            instantParam('from', 'Notices queued at or after this time', false),
            instantParam('to', 'Notices queued before this time', false),
            limitParam,
          ],
          responses: {
            200: api('Notices', 'NoticeList'),
            400: error('An invalid query (invalid_request)'),
            401: unauthorized,
            404: error(adminOff),
            500: internal,
          },
        },
      },
      '/api/admin/notices/{noticeId}/replay': {
        post: {
          operationId: 'replayNotice',
          tags: ['admin'],
          summary: 'Send one notice again, with the same webhook-id, signed afresh; the answer shows the attempt',
          description: 'A replay is one attempt outside the retry schedule (it does not count in `attempts`); a delivered notice may be replayed too. ' +
            'It is tried at once by this instance; when another took it first, the answer shows it queued (`replayAt`).',
          security: adminToken,
          parameters: [{ name: 'noticeId', in: 'path', required: true, description: 'The notice id (its webhook-id)', schema: { type: 'string' } }],
          requestBody: emptyJson,
          responses: {
            200: api('The notice after the replay', 'NoticeReplayed'),
            401: unauthorized,
            403: foreignOrigin,
            404: error(`No such notice, or ${adminOff}`),
            409: error("The notice's channel is not configured (channel_off) or the webhook endpoint is disabled (endpoint_disabled)"),
            413: tooLarge,
            415: notJson,
            500: internal,
          },
        },
      },
      '/api/admin/notices/replay': {
        post: {
          operationId: 'replayFailedNotices',
          tags: ['admin'],
          summary: 'Send again every notice queued in [from, to) that is not delivered and has failed at least once, with the same webhook-ids',
          security: adminToken,
          parameters: [
            instantParam('from', 'Notices queued at or after this time', true),
            instantParam('to', 'Notices queued before this time (default: now)', false),
            { name: 'channel', in: 'query', required: false, description: 'Default: every configured channel', schema: { type: 'string', enum: ['hook', 'webhook'] } },
          ],
          requestBody: emptyJson,
          responses: {
            200: api('How many were queued for a replay (they go at once, in the background)', 'NoticesReplayed'),
            400: error('from missing or invalid, or to not after from (invalid_request)'),
            401: unauthorized,
            403: foreignOrigin,
            404: error(adminOff),
            409: error('A channel is not configured (channel_off) or the webhook endpoint is disabled (endpoint_disabled)'),
            413: tooLarge,
            415: notJson,
            500: internal,
          },
        },
      },
      '/api/admin/webhook': {
        get: {
          operationId: 'webhookEndpoint',
          tags: ['admin'],
          summary: "The merchant's webhook endpoint: enabled, or disabled by a 410 Gone; null when MERCHANT_WEBHOOK_URL is unset",
          security: adminToken,
          responses: {
            200: {
              description: 'The endpoint, or null',
              headers: headers('CacheControl', 'ServerTime'),
              content: { 'application/json': { schema: { anyOf: [ref('WebhookEndpoint'), { type: 'null' }] } } },
            },
            401: unauthorized,
            404: error(adminOff),
            500: internal,
          },
        },
      },
      '/api/admin/webhook/enable': {
        post: {
          operationId: 'enableWebhookEndpoint',
          tags: ['admin'],
          summary: 'Deliver to the endpoint again after a 410 Gone: its waiting notices go at once',
          security: adminToken,
          requestBody: emptyJson,
          responses: {
            200: api('The endpoint, enabled', 'WebhookEndpoint'),
            401: unauthorized,
            403: foreignOrigin,
            404: error(`MERCHANT_WEBHOOK_URL is unset, or ${adminOff}`),
            413: tooLarge,
            415: notJson,
            500: internal,
          },
        },
      },

      '/api/hooks/callback/{ref}/{hookToken}': {
        post: {
          operationId: 'serviceCallback',
          tags: ['hooks'],
          summary: "The service's callback: news of the bill, which the BFF requeries; its body never sets a status",
          description: 'Registered as `callbackUrl` at create; only the service knows it. Answered 200 once the requeried status is durably stored ' +
            '(and its merchant notices queued); any other answer asks the service to call again.',
          security: open,
          parameters: [
            { name: 'ref', in: 'path', required: true, description: "The bill's merchantReference", schema: { type: 'string' } },
            { name: 'hookToken', in: 'path', required: true, description: "The bill's callback token", schema: { type: 'string' } },
          ],
          requestBody: { required: false, content: { 'application/json': { schema: ref('CallbackHint') } } },
          responses: {
            200: api('Handled: the requeried status is stored, or (its create answer not in yet) the callback is kept as news, asked about once the bill is created', 'Ok'),
            400: error('The body names another bill (bill_mismatch)'),
            404: error('No such bill, or a wrong token: nothing was requeried (not_found)'),
            413: tooLarge,
            500: internal,
            503: error('Not handled, call again: the store does not answer (store_unavailable), or the requery failed (not_confirmed)'),
          },
        },
      },
      '/api/hooks/return/{ref}/{returnToken}': {
        get: {
          operationId: 'customerReturn',
          tags: ['hooks'],
          summary: "The customer's return from the pay page: a requery (at most one per bill per REFRESH_WINDOW_MS), then on to RETURN_URL, or for another device a page that says the outcome",
          description: 'Registered as `redirectUrl` at create. Its token is derived one way from the callback token, so a customer who reads it cannot call the callback. Its query string, whatever it says, is ignored. ' +
            "The browser that created the bill (it carries the create's `bc_started` cookie) goes on to RETURN_URL. Another device (a phone that scanned the QR code) " +
            'goes to RETURN_OTHER_DEVICE_URL when it is set, else it is shown a page of the BFF that says the outcome in its language.',
          security: open,
          parameters: [
            { name: 'ref', in: 'path', required: true, description: "The bill's merchantReference", schema: { type: 'string' } },
            { name: 'returnToken', in: 'path', required: true, description: "The bill's return token", schema: { type: 'string' } },
            { name: 'bc_started', in: 'cookie', required: false, description: 'Set by the create: this browser started the bill', schema: { type: 'string', enum: ['1'] } },
          ],
          responses: {
            200: {
              description: 'Another device, RETURN_OTHER_DEVICE_URL unset: a page in the language of Accept-Language (en, id, ms, th, vi, zh-CN; English otherwise) with the outcome, ' +
                'the amount and the reference, and that the checkout goes on where it started. No script; it reloads itself every 5 s while the outcome is pending',
              headers: {
                ...headers('CacheControl', 'ServerTime'),
                'Content-Security-Policy': { description: "`default-src 'none'`, its one inline style by hash", required: true, schema: { type: 'string' } },
              },
              content: { 'text/html': { schema: { type: 'string' } } },
            },
            303: {
              description: 'To RETURN_URL (the browser that started the bill) or RETURN_OTHER_DEVICE_URL (another device, with `device=other`), its query string kept, ' +
                'with `billId`, `orderId` (an order\'s bill) and the `outcome` the BFF knows (`pending` when the service could not say)',
              headers: {
                Location: { description: 'RETURN_URL or RETURN_OTHER_DEVICE_URL with billId, orderId and outcome (and device=other)', required: true, schema: { type: 'string' } },
                ...headers('CacheControl', 'ServerTime'),
              },
            },
            404: {
              description: 'No such bill, or a wrong token: a page for the customer, nothing was requeried',
              headers: headers('CacheControl', 'ServerTime'),
              content: { 'text/html': { schema: { type: 'string' } } },
            },
            500: internal,
          },
        },
      },
      '/api/openapi.json': {
        get: {
          operationId: 'getOpenApi',
          tags: ['meta'],
          summary: 'This description',
          security: open,
          responses: {
            200: {
              description: 'The OpenAPI 3.1 document',
              headers: headers('CacheControl', 'ServerTime'),
              content: { 'application/json': { schema: { type: 'object' } } },
            },
          },
        },
      },
      '/healthz': {
        get: {
          operationId: 'health',
          tags: ['meta'],
          summary: 'Health: whether the store answers',
          security: open,
          responses: {
            200: { description: 'The store answers', headers: headers('CacheControl'), content: { 'application/json': { schema: ref('Ok') } } },
            503: {
              description: 'The store does not answer, or refuses writes after a failed flush to disk (store_unavailable)',
              headers: headers('CacheControl'),
              content: { 'application/json': { schema: ref('Error') } },
            },
          },
        },
      },
      '/readyz': {
        get: {
          operationId: 'ready',
          tags: ['meta'],
          summary: 'Readiness: the store answers and the payment service was reachable on the last call',
          description: 'For a load balancer or an orchestrator: 503 while the store does not answer, or for 30 s after a call to the service ' +
            'got no answer (a network error or a timeout) unless a later call got one. An error answer of the service counts as reachable',
          security: open,
          responses: {
            200: { description: 'Ready', headers: headers('CacheControl'), content: { 'application/json': { schema: ref('Ok') } } },
            503: {
              description: 'The store does not answer (store_unavailable), or the last call to the service failed for a network reason within 30 s (upstream_unreachable)',
              headers: headers('CacheControl'),
              content: { 'application/json': { schema: ref('Error') } },
            },
          },
        },
      },
      '/metrics': {
        get: {
          operationId: 'metrics',
          tags: ['meta'],
          summary: 'Prometheus metrics (text exposition format 0.0.4)',
          description: 'Off (404) unless METRICS_TOKEN is set. METRICS_PORT also serves it, without a token, on a port of its own (README, "Metrics")',
          security: [{ metricsToken: [] }],
          responses: {
            200: {
              description: 'The metrics, `bill_checkout_*` (and the process\'s own with `npm start`)',
              headers: headers('CacheControl', 'ServerTime'),
              content: { 'text/plain': { schema: { type: 'string' } } },
            },
            401: {
              ...error('No valid metrics Bearer token (unauthorized)'),
              headers: {
                ...headers('CacheControl', 'ServerTime'),
                'WWW-Authenticate': { description: 'Bearer realm="metrics"', required: true, schema: { type: 'string' } },
              },
            },
            404: error('METRICS_TOKEN is not set: /metrics does not exist (not_found)'),
          },
        },
      },
    },
    components: {
      schemas: componentSchemas(),
      headers: HEADERS,
      securitySchemes: {
        billToken: {
          type: 'apiKey', in: 'query', name: 'token',
          description: "The bill's `token` from the create answer: it reads, watches and cancels that bill only. A missing or wrong one answers 404, as for no bill",
        },
        adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN (at least 32 characters)' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN (at least 32 characters)' },
      },
    },
  };
}

export function openApiRoutes(): Hono {
  const app = new Hono();
  const document = describeApi();
  app.get('/openapi.json', (c) => c.json(document));
  return app;
}
