// GET /api/openapi.json: the BFF's routes for merchants on other stacks. Request bodies come from
// the very zod schemas that validate them, so the description cannot drift from the checks; the
// answers are every status a route, its middleware (app.ts) and the JSON error mechanism
// (json-errors.ts) can give, each with its body and headers. `redocly lint` passes it
// (test/build/openapi.test.ts), and Prism checks real answers against it (test/server/api-conformance.test.ts).
import { Hono } from 'hono';
import { z } from 'zod';
import { createBillBody } from '../../domain/create/request.js';
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
});
const createdBill = billView.extend({ token: z.string().describe('Reads, watches and cancels this bill (the `token` query parameter)') });
const localState = z.object({
  outcome,
  notified: z.boolean().describe('Every merchant notice of this bill was delivered'),
  orderId: z.string().nullable(),
  orderAmount: z.string().nullable().describe("The order's amount as the merchant resolved it"),
  duplicatePayment: z.boolean().describe('Paid while another bill of the same order was already paid: refund one'),
}).nullable().describe("The BFF's own record of the bill; null when it is not one of ours");
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
const boundCustomer = z.object({
  customerId: z.string().describe("The service's customer identifier (data[BILL_BIND_ID_FIELD])"),
  data: z.record(z.string(), z.unknown()).describe("The whole `data` of the service's answer"),
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

type Header = 'CacheControl' | 'ServerTime' | 'RetryAfter' | 'WwwAuthenticate' | 'StartedCookie';
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
  CacheControl: 'Cache-Control', ServerTime: 'X-Server-Time', RetryAfter: 'Retry-After', WwwAuthenticate: 'WWW-Authenticate',
  StartedCookie: 'Set-Cookie',
};

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const headers = (...names: Header[]) => Object.fromEntries(names.map((n) => [HEADER_NAMES[n], { $ref: `#/components/headers/${n}` }]));
/** An answer under /api: JSON, `Cache-Control: no-store` and `X-Server-Time`. */
const api = (description: string, schema: SchemaName, ...extra: Header[]) => ({
  description,
  headers: headers('CacheControl', 'ServerTime', ...extra),
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
      { name: 'meta', description: 'Health and this description' },
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
          },
        },
      },
      '/api/bills/{billId}': {
        get: {
          operationId: 'getBill',
          tags: ['bills'],
          summary: 'The bill as last requeried (asked again at most once per REFRESH_WINDOW_MS)',
          security: billToken,
          parameters: [billId],
          responses: { 200: api('The bill', 'BillView'), 404: noSuchBill, 500: internal },
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
            503: error('MAX_SSE_CONNECTIONS streams are open (too_many_streams): poll GET /api/bills/{billId} instead', 'RetryAfter'),
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
          summary: "Bind a customer: the body, the customer's information, is passed to the service as it is",
          security: adminToken,
          requestBody: { required: true, content: { 'application/json': { schema: ref('BindCustomer') } } },
          responses: {
            200: api('The customer as the service bound it', 'BoundCustomer'),
            400: error('Not JSON (invalid_json), not an object, or refused by the service as invalid (invalid_request)'),
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
            200: api('Handled: the requeried status is stored', 'Ok'),
            400: error('The body names another bill (bill_mismatch)'),
            404: error('No such bill, or a wrong token: nothing was requeried (not_found)'),
            413: tooLarge,
            500: internal,
            503: error('Not handled, call again: the store does not answer (store_unavailable), the bill is still being created (not_ready), or the requery failed (not_confirmed)'),
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
