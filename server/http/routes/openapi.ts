// GET /api/openapi.json: the BFF's routes for merchants on other stacks, derived from the zod
// schemas the routes work with: the inputs they parse and read (their bodies, queries, paths,
// headers and cookies, exported next to each route) and the answers they are typed by
// (api-schemas.ts, whose types are checked to be exactly the routes' answer types). What is
// written here is only what no schema can say: each operation's words, and every status a route,
// its middleware (app.ts) and the JSON error mechanism (json-errors.ts) can answer, with its
// headers. openapi-from-zod.ts turns it into the document with z.toJSONSchema, registering no
// route: app.ts registers the routes as before, and the status read keeps its synchronous answer.
// `redocly lint` passes it (test/build/openapi.test.ts), and Prism checks real answers against it
// (test/server/http/routes/openapi.conformance.test.ts).
import { Hono } from 'hono';
import { z } from 'zod';
import { createBillBody } from '../../domain/create/request.js';
import {
  adminBillDetail, adminBillList, adminBillRow, adminCancelled, billEvent, billView, boundCustomer, createdBill, customerList, errorBody,
  localBill, noticeAttempt, noticeList, noticeReplayed, noticesReplayed, noticeView, ok, webhookEndpoint,
} from '../api-schemas.js';
import { billPath } from '../bill-access.js';
import { SERVER_TIME_HEADER, SERVICE_TIME_HEADER } from '../middleware/server-time.js';
import { openApiDocument } from '../openapi-from-zod.js';
import type { Answer, DocumentBase, Operation } from '../openapi-from-zod.js';
import { STARTED_COOKIE } from '../started-here.js';
import { bindCustomerBody, customerListQuery, listBillsBody, noticeListQuery, noticePath, replayRangeQuery } from './admin.js';
import { createHeaders } from './bills.js';
import { watchHeaders, watchQuery } from '../sse/watch-bill.js';
import { checkoutQuery } from './checkout.js';
import { callbackHint, callbackPath } from './callback.js';
import { returnCookies, returnParams } from './return.js';

/** The components of the document: each of these schemas is referred to by name wherever it appears. */
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
    description: "The payment service's clock, unix milliseconds, as the BFF judges it: for an answer about one bill (its create, read, " +
      "event stream, checkout page), the clock of that bill's own create exchange (now plus expiredOn minus the bill's expiry on the BFF's clock), " +
      "so that expiredOn minus it is the bill's own time left; otherwise the estimate from the Date headers of the service's answers. " +
      "Widgets count down by it (preferred to X-Server-Time)",
    required: false,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  RetryAfter: { description: 'Seconds to wait before trying again', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
  WwwAuthenticate: { description: 'Bearer realm="admin"', required: true, schema: { type: 'string' } },
  StartedCookie: {
    description: `Marks the browser that created the bill or was shown it (its read, its pay link, its status page), for that bill's return only: ` +
      `\`${STARTED_COOKIE}=1; Path=/api/hooks/return/{merchantReference}; ` +
      'Max-Age=…; HttpOnly; SameSite=Lax` (and `Secure` when PUBLIC_URL is https). It holds no secret. Its return then goes on to RETURN_URL; ' +
      "a return without it is another device's (a phone that scanned the QR code). From another origin a fetch keeps it only when sent with credentials; " +
      'a top-level navigation (the pay link, the status page) keeps it from any site',
    required: true,
    schema: { type: 'string', pattern: `^${STARTED_COOKIE}=1; Path=` },
  },
} satisfies Record<Header, unknown>;

const HEADER_NAMES: Record<Header, string> = {
  CacheControl: 'Cache-Control', ServerTime: SERVER_TIME_HEADER, ServiceTime: SERVICE_TIME_HEADER, RetryAfter: 'Retry-After', WwwAuthenticate: 'WWW-Authenticate',
  StartedCookie: 'Set-Cookie',
};

const headers = (...names: Header[]) => Object.fromEntries(names.map((n) => [HEADER_NAMES[n], { $ref: `#/components/headers/${n}` }]));
/** An answer under /api: JSON, `Cache-Control: no-store` and `X-Server-Time`. */
const api = (description: string, schema: z.ZodType, ...extra: Header[]): Answer => ({
  description,
  headers: headers('CacheControl', 'ServerTime', 'ServiceTime', ...extra),
  content: { 'application/json': schema },
});
const error = (description: string, ...extra: Header[]) => api(description, errorBody, ...extra);
const text = z.string();
const anyObject = z.object({});

// Answers of the middleware that app.ts puts in front of the routes, and of the error mechanism.
const tooLarge = error('The body is larger than BODY_LIMIT_BYTES (payload_too_large)');
const internal = error('Something failed on our side (internal_error); nothing is shown of it');
const notJson = error('Not sent with Content-Type: application/json (unsupported_media_type). Every POST under /api but the callback needs it, a bodiless one too: a form or a text/plain fetch from another site needs no CORS preflight');
const foreignOrigin = error('The browser named an Origin that is neither ALLOWED_ORIGINS nor the BFF\'s own (origin_not_allowed)');
const unauthorized = error('No valid admin Bearer token (unauthorized)', 'WwwAuthenticate');
const adminThrottled = error('Too many refused tokens from this client: every admin request of it is refused until Retry-After, the right token too (too_many_attempts)', 'RetryAfter');
const adminOff = 'ADMIN_TOKEN is not set: the admin routes do not exist (not_found)';
const upstream = error('The payment service refused (upstream_rejected) or is unavailable (upstream_unavailable)');
const noSuchBill = error('No such bill, or a missing or wrong token: the same answer (not_found)');
/** The body of a POST that takes none: the cross-site guard still wants it sent as JSON. */
const emptyJson: Operation['body'] = {
  schema: anyObject,
  required: false,
  description: 'Ignored. Send the request with Content-Type: application/json all the same (a body of {} will do): anything else answers 415',
};
const billToken = [{ billToken: [] }];
const adminToken = [{ adminToken: [] }];
const open: never[] = [];

/** The server-rendered checkout's answers (routes/checkout.ts): pages and images, not JSON. */
const htmlPage = (description: string, ...extra: Header[]): Answer => ({ description, headers: headers('ServerTime', ...extra), content: { 'text/html': text } });
const htmlNotFound = htmlPage('No such bill, or a missing or wrong token: the same HTML page');
const image = (type: 'image/svg+xml' | 'image/png'): Answer => ({
  description: "The QR code of the bill's billUrl, dark on white with a quiet zone; Cache-Control: private, max-age=3600",
  content: { [type]: text },
});
const imageNotFound: Answer = {
  description: "No such bill, a missing or wrong token, or a billUrl that is not safe to show (not_found); a billUrl longer than a QR code " +
    'holds, 2,331 bytes encoded at version 40 level M (qr_too_long: the bill is paid through its link)',
  content: { 'application/json': errorBody },
};
const serverRendered: Operation[] = [
  {
    method: 'get',
    path: '/api/bills/{billId}/checkout.html',
    operationId: 'renderCheckout',
    tags: ['server-rendered'],
    summary: 'The checkout in the first HTML: <bill-checkout bill-id token> with its card in a declarative shadow root, for the merchant\'s page',
    description: "The fragment's Content-Security-Policy names the hash of its one style, for the page's style-src. The same HTML as renderCheckout of bill-checkout/server.",
    security: billToken,
    params: billPath,
    query: checkoutQuery,
    responses: { 200: htmlPage('The fragment'), 404: htmlNotFound, 500: internal },
  },
  {
    method: 'get',
    path: '/api/bills/{billId}/status.html',
    operationId: 'statusPage',
    tags: ['server-rendered'],
    summary: 'What became of the payment, for a customer without JavaScript; it refreshes itself while the bill is pending',
    security: billToken,
    params: billPath,
    responses: { 200: htmlPage('The page; it marks this browser as one that started the bill (its return goes on to RETURN_URL)', 'StartedCookie'), 404: htmlNotFound, 500: internal },
  },
  {
    method: 'get',
    path: '/api/bills/{billId}/pay',
    operationId: 'payBill',
    tags: ['server-rendered'],
    summary: 'The pay link of the server-rendered checkout: marks this browser as one that started the bill, then on to billUrl',
    description: "What checkout.html's pay link (mode=button) opens, with or without JavaScript: the browser is marked (the create's cookie), so that its " +
      'return from the pay page goes on to RETURN_URL whoever made the bill, and it is sent on to billUrl. A bill with nothing left to pay (final, or paid and ' +
      "being confirmed), or whose billUrl is no page to send a browser to (https, or http on a loopback host, only), is answered the bill's status page instead. The QR code says billUrl " +
      'itself: the phone that scans it is not marked.',
    security: billToken,
    params: billPath,
    responses: {
      200: htmlPage("Nothing to pay at billUrl (final, being confirmed, or not a page to send a browser to): the bill's status page, as status.html", 'StartedCookie'),
      303: {
        description: 'To billUrl',
        headers: {
          Location: { description: 'billUrl', required: true, schema: { type: 'string' } },
          ...headers('CacheControl', 'ServerTime', 'StartedCookie'),
        },
      },
      404: htmlNotFound,
      500: internal,
    },
  },
  {
    method: 'get',
    path: '/api/bills/{billId}/qr.svg',
    operationId: 'qrSvg',
    tags: ['server-rendered'],
    summary: 'The QR code of billUrl as SVG',
    security: billToken,
    params: billPath,
    responses: { 200: image('image/svg+xml'), 404: imageNotFound, 500: internal },
  },
  {
    method: 'get',
    path: '/api/bills/{billId}/qr.png',
    operationId: 'qrPng',
    tags: ['server-rendered'],
    summary: 'The QR code of billUrl as PNG, for e-mail clients that block SVG',
    security: billToken,
    params: billPath,
    responses: { 200: image('image/png'), 404: imageNotFound, 500: internal },
  },
];

const OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/api/bills',
    operationId: 'createBill',
    tags: ['bills'],
    summary: 'Create a bill (or answer the same one: Idempotency-Key, or the open bill of the same orderId while its amount holds)',
    description: "An orderId needs the orderTicket that the merchant's server minted for it (when ORDER_TICKET_SECRET is set). " +
      'An order is paid once: a create for an order that already has a paid bill answers that bill with 200. ' +
      'A browser amount is taken only within CLIENT_AMOUNT_MIN/MAX.',
    security: open,
    headers: createHeaders,
    body: { schema: createBillBody, required: true },
    responses: {
      200: api("The order's paid bill and its token: the order is paid already", createdBill, 'StartedCookie'),
      201: api('The bill and its token', createdBill, 'StartedCookie'),
      400: error('Not JSON (invalid_json), an invalid body (invalid_request), Idempotency-Key (invalid_idempotency_key), or an amount the BFF does not take (amount_required, invalid_amount, amount_out_of_range, amount_not_allowed, order_id_required)'),
      403: error("No valid, unexpired order ticket for this orderId (order_ticket_invalid), the merchant's resolveOrder refused this caller, or an Origin not allowed (origin_not_allowed)"),
      404: error('No such order (order_not_found)'),
      409: error('A create with this Idempotency-Key is still running, or its outcome is being settled with the service (create_in_progress): repeat it with the same key after Retry-After', 'RetryAfter'),
      413: tooLarge,
      415: notJson,
      422: error('Idempotency-Key used with another request (idempotency_key_reused)'),
      429: error('CREATE_RATE_LIMIT_PER_MINUTE reached for this client (rate_limited)', 'RetryAfter'),
      500: internal,
      502: error('The payment service or the order lookup refused or failed (upstream_rejected, order_lookup_failed, order_lookup_invalid), the service answered a bill other than the one asked for or with an impossible expiry (upstream_mismatch, upstream_invalid_answer: it was withdrawn), or a key kept by a create that ended before keys were freed (create_failed: use a new Idempotency-Key)'),
      503: error('No bill was made for this call, and the same Idempotency-Key may ask again after Retry-After: the store does not answer (store_unavailable), the payment service refused for load (upstream_busy), failed or was settling a create of unknown outcome (upstream_unavailable), or the order has a bill the service still calls payable that is being withdrawn or created elsewhere (order_bill_pending)', 'RetryAfter'),
    },
  },
  {
    method: 'get',
    path: '/api/bills/{billId}',
    operationId: 'getBill',
    tags: ['bills'],
    summary: 'The bill as stored, at once; when its status is older than REFRESH_WINDOW_MS a requery starts behind the answer (the next read or the stream shows it)',
    security: billToken,
    params: billPath,
    responses: {
      200: api("The bill (during a store outage: as this instance last saw it). It marks this browser as one that started the bill (sent with credentials from another origin)", billView, 'StartedCookie'),
      404: noSuchBill,
      500: internal,
      503: error('The store does not answer and this instance has not seen the bill (store_unavailable)', 'RetryAfter'),
    },
  },
  {
    method: 'get',
    path: '/api/bills/{billId}/events',
    operationId: 'watchBill',
    tags: ['bills'],
    summary: 'Server-Sent Events of the bill: `event: status`, data a BillView; at once, on every change, closed after the final one',
    description: "Each status frame's `id:` is the bill's status version, a whole number that grows with every change of its status, the same on every " +
      'instance; the first frame also carries `retry:` (3000 ms). A reconnect that names the final status\'s id (the `Last-Event-ID` an EventSource ' +
      'sends by itself) is answered 204, on which an EventSource stops reconnecting; any other id streams as usual.',
    security: billToken,
    params: billPath,
    headers: watchHeaders,
    query: watchQuery,
    responses: {
      200: {
        description: 'An event stream: `event: status` frames (`id:` the status version, `data` a BillView; `retry:` in the first), and comment lines that keep it open. It ends after the final status',
        headers: {
          'Cache-Control': { description: 'A stream is never cached either', required: true, schema: { type: 'string', enum: ['no-cache'] } },
          ...headers('ServerTime'),
        },
        content: { 'text/event-stream': text },
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
  {
    method: 'post',
    path: '/api/bills/{billId}/cancel',
    operationId: 'cancelBill',
    tags: ['bills'],
    summary: 'Cancel the bill while it is pending',
    security: billToken,
    params: billPath,
    body: emptyJson,
    responses: {
      200: api('The bill after cancelling, as requeried', billView),
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
  {
    method: 'post',
    path: '/api/admin/bills',
    operationId: 'listBills',
    tags: ['admin'],
    summary: "The service's list of bills, each with the BFF's own record (`local`): outcome, notified, order, duplicate payment",
    security: adminToken,
    body: { schema: listBillsBody, required: false, description: 'An empty body lists the first page' },
    responses: {
      200: api('One page of bills', adminBillList),
      400: error('Not JSON (invalid_json), an invalid body, or one the service refused as invalid (invalid_request)'),
      401: unauthorized,
      429: adminThrottled,
      403: foreignOrigin,
      404: error(adminOff),
      413: tooLarge,
      415: notJson,
      500: internal,
      502: upstream,
    },
  },
  {
    method: 'post',
    path: '/api/admin/bills/{billId}/cancel',
    operationId: 'adminCancelBill',
    tags: ['admin'],
    summary: 'Cancel any pending bill of the account, then requery it',
    security: adminToken,
    params: billPath,
    body: emptyJson,
    responses: {
      200: api('Cancelled', adminCancelled),
      401: unauthorized,
      429: adminThrottled,
      403: foreignOrigin,
      404: error(`The payment service knows no such bill, or ${adminOff}`),
      409: error('The payment service refused the cancel: the bill is not pending (not_cancellable)'),
      413: tooLarge,
      415: notJson,
      500: internal,
      502: upstream,
    },
  },
  {
    method: 'post',
    path: '/api/admin/customers',
    operationId: 'bindCustomer',
    tags: ['admin'],
    summary: 'Bind a customer once: under the same `customerKey` the stored id is answered without calling the service',
    description: "The body is the customer's information, passed to the service as it is but for `customerKey`, the merchant's own key for " +
      'the customer, which the BFF keeps with the id the service answers. Concurrent binds of one key call the service once. Without a ' +
      '`customerKey` nothing is remembered and every bind reaches the service.',
    security: adminToken,
    body: { schema: bindCustomerBody, required: true },
    responses: {
      200: api('The customer as the service bound it, now or before', boundCustomer),
      400: error('Not JSON (invalid_json), not an object, an empty customerKey, or refused by the service as invalid (invalid_request)'),
      401: unauthorized,
      429: adminThrottled,
      403: foreignOrigin,
      404: error(adminOff),
      409: error('Another request is binding this key right now (bind_in_progress)', 'RetryAfter'),
      413: tooLarge,
      415: notJson,
      500: internal,
      502: upstream,
    },
  },
  {
    method: 'get',
    path: '/api/admin/customers',
    operationId: 'listCustomers',
    tags: ['admin'],
    summary: 'Customers bound under a key, newest first',
    security: adminToken,
    query: customerListQuery,
    responses: {
      200: api('Bound customers', customerList),
      400: error('An invalid query (invalid_request)'),
      401: unauthorized,
      429: adminThrottled,
      404: error(adminOff),
      500: internal,
    },
  },
  {
    method: 'get',
    path: '/api/admin/bills/{billId}',
    operationId: 'adminBill',
    tags: ['admin'],
    summary: "One of the BFF's bills: its stored status, how the final status was learned, its history and its notices with their delivery logs",
    security: adminToken,
    params: billPath,
    responses: {
      200: api('The bill', adminBillDetail),
      401: unauthorized,
      429: adminThrottled,
      404: error(`This BFF has no such bill, or ${adminOff}`),
      500: internal,
    },
  },
  {
    method: 'get',
    path: '/api/admin/notices',
    operationId: 'listNotices',
    tags: ['admin'],
    summary: 'Merchant notices, newest first, each with its delivery log; and the webhook endpoint state',
    security: adminToken,
    query: noticeListQuery,
    responses: {
      200: api('Notices', noticeList),
      400: error('An invalid query (invalid_request)'),
      401: unauthorized,
      429: adminThrottled,
      404: error(adminOff),
      500: internal,
    },
  },
  {
    method: 'post',
    path: '/api/admin/notices/{noticeId}/replay',
    operationId: 'replayNotice',
    tags: ['admin'],
    summary: 'Send one notice again, with the same webhook-id, signed afresh; the answer shows the attempt',
    description: 'A replay is one attempt outside the retry schedule (it does not count in `attempts`); a delivered notice may be replayed too. ' +
      'It is tried at once by this instance; when another took it first, the answer shows it queued (`replayAt`).',
    security: adminToken,
    params: noticePath,
    body: emptyJson,
    responses: {
      200: api('The notice after the replay', noticeReplayed),
      401: unauthorized,
      429: adminThrottled,
      403: foreignOrigin,
      404: error(`No such notice, or ${adminOff}`),
      409: error("The notice's channel is not configured (channel_off) or the webhook endpoint is disabled (endpoint_disabled)"),
      413: tooLarge,
      415: notJson,
      500: internal,
    },
  },
  {
    method: 'post',
    path: '/api/admin/notices/replay',
    operationId: 'replayFailedNotices',
    tags: ['admin'],
    summary: 'Send again every notice queued in [from, to) that is not delivered and has failed at least once, with the same webhook-ids',
    security: adminToken,
    query: replayRangeQuery,
    body: emptyJson,
    responses: {
      200: api('How many were queued for a replay (they go at once, in the background)', noticesReplayed),
      400: error('from missing or invalid, or to not after from (invalid_request)'),
      401: unauthorized,
      429: adminThrottled,
      403: foreignOrigin,
      404: error(adminOff),
      409: error('A channel is not configured (channel_off) or the webhook endpoint is disabled (endpoint_disabled)'),
      413: tooLarge,
      415: notJson,
      500: internal,
    },
  },
  {
    method: 'get',
    path: '/api/admin/webhook',
    operationId: 'webhookEndpoint',
    tags: ['admin'],
    summary: "The merchant's webhook endpoint: enabled, or disabled by a 410 Gone; null when MERCHANT_WEBHOOK_URL is unset",
    security: adminToken,
    responses: {
      200: {
        description: 'The endpoint, or null',
        headers: headers('CacheControl', 'ServerTime'),
        content: { 'application/json': webhookEndpoint.nullable() },
      },
      401: unauthorized,
      429: adminThrottled,
      404: error(adminOff),
      500: internal,
    },
  },
  {
    method: 'post',
    path: '/api/admin/webhook/enable',
    operationId: 'enableWebhookEndpoint',
    tags: ['admin'],
    summary: 'Deliver to the endpoint again after a 410 Gone: its waiting notices go at once',
    security: adminToken,
    body: emptyJson,
    responses: {
      200: api('The endpoint, enabled', webhookEndpoint),
      401: unauthorized,
      429: adminThrottled,
      403: foreignOrigin,
      404: error(`MERCHANT_WEBHOOK_URL is unset, or ${adminOff}`),
      413: tooLarge,
      415: notJson,
      500: internal,
    },
  },

  {
    method: 'post',
    path: '/api/hooks/callback/{ref}/{hookToken}',
    operationId: 'serviceCallback',
    tags: ['hooks'],
    summary: "The service's callback: news of the bill, which the BFF requeries; its body never sets a status",
    description: 'Registered as `callbackUrl` at create; only the service knows it. Answered 200 once the requeried status is durably stored ' +
      '(and its merchant notices queued); any other answer asks the service to call again.',
    security: open,
    params: callbackPath,
    body: { schema: callbackHint, required: false },
    responses: {
      200: api('Handled: the requeried status is stored, or (its create answer not in yet) the callback is kept as news, asked about once the bill is created', ok),
      400: error('The body names another bill (bill_mismatch)'),
      404: error('No such bill, or a wrong token: nothing was requeried (not_found)'),
      413: tooLarge,
      500: internal,
      503: error('Not handled, call again: the store does not answer (store_unavailable), or the requery failed (not_confirmed)'),
    },
  },
  {
    method: 'get',
    path: '/api/hooks/return/{ref}/{returnToken}',
    operationId: 'customerReturn',
    tags: ['hooks'],
    summary: "The customer's return from the pay page: a requery (at most one per bill per REFRESH_WINDOW_MS), then on to RETURN_URL, or for another device a page that says the outcome",
    description: 'Registered as `redirectUrl` at create. Its token is derived one way from the callback token, so a customer who reads it cannot call the callback. Its query string, whatever it says, is ignored. ' +
      "The browser that started the bill (it carries the `bc_started` cookie of its create, or of the bill's read, pay link or status page: whoever made the bill) " +
      'goes on to RETURN_URL. Another device (a phone that scanned the QR code) goes to RETURN_OTHER_DEVICE_URL when it is set, else it is shown a page of the ' +
      'BFF that says the outcome in its language. Outside production, localhost and 127.0.0.1 are one host: a return without the cookie, on PUBLIC_URL\'s name, ' +
      'of a bill shown on the other name is sent once to the same return there (303), before the service is asked; answered there, a RETURN_URL on ' +
      "PUBLIC_URL's host goes on with that name.",
    security: open,
    params: returnParams,
    cookies: returnCookies,
    responses: {
      200: {
        description: 'Another device, RETURN_OTHER_DEVICE_URL unset: a page in the language of Accept-Language (en, id, ms, th, vi, zh-CN; English otherwise) with the outcome, ' +
          'the amount and the reference, and that the checkout goes on where it started. No script; it reloads itself every 5 s while the outcome is pending',
        headers: {
          ...headers('CacheControl', 'ServerTime'),
          'Content-Security-Policy': { description: "`default-src 'none'`, its one inline style by hash", required: true, schema: { type: 'string' } },
        },
        content: { 'text/html': text },
      },
      303: {
        description: 'To RETURN_URL (the browser that started the bill) or RETURN_OTHER_DEVICE_URL (another device, with `device=other`), its query string kept, ' +
          'with `billId`, `orderId` (an order\'s bill) and the `outcome` the BFF knows (`pending` when the service could not say); outside production, ' +
          'to this return on the other loopback name, where the bill was shown',
        headers: {
          Location: { description: 'RETURN_URL or RETURN_OTHER_DEVICE_URL with billId, orderId and outcome (and device=other); or this return on the other loopback name', required: true, schema: { type: 'string' } },
          ...headers('CacheControl', 'ServerTime'),
        },
      },
      404: {
        description: 'No such bill, or a wrong token: a page for the customer, nothing was requeried',
        headers: headers('CacheControl', 'ServerTime'),
        content: { 'text/html': text },
      },
      500: internal,
    },
  },
  {
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'getOpenApi',
    tags: ['meta'],
    summary: 'This description',
    security: open,
    responses: {
      200: {
        description: 'The OpenAPI 3.1 document',
        headers: headers('CacheControl', 'ServerTime'),
        content: { 'application/json': anyObject },
      },
    },
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'health',
    tags: ['meta'],
    summary: 'Health: whether the store answers',
    security: open,
    responses: {
      200: { description: 'The store answers', headers: headers('CacheControl'), content: { 'application/json': ok } },
      503: {
        description: 'The store does not answer, or refuses writes after a failed flush to disk (store_unavailable)',
        headers: headers('CacheControl'),
        content: { 'application/json': errorBody },
      },
    },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'ready',
    tags: ['meta'],
    summary: 'Readiness: the store answers and the payment service was reachable on the last call',
    description: 'For a load balancer or an orchestrator: 503 while the store does not answer, or for 30 s after a call to the service ' +
      'got no answer (a network error or a timeout) unless a later call got one. An error answer of the service counts as reachable',
    security: open,
    responses: {
      200: { description: 'Ready', headers: headers('CacheControl'), content: { 'application/json': ok } },
      503: {
        description: 'The store does not answer (store_unavailable), or the last call to the service failed for a network reason within 30 s (upstream_unreachable)',
        headers: headers('CacheControl'),
        content: { 'application/json': errorBody },
      },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    tags: ['meta'],
    summary: 'Prometheus metrics (text exposition format 0.0.4)',
    description: 'Off (404) unless METRICS_TOKEN is set. METRICS_PORT also serves it, without a token, on a port of its own (docs/server.md, "Metrics")',
    security: [{ metricsToken: [] }],
    responses: {
      200: {
        description: 'The metrics, `bill_checkout_*` (and the process\'s own with `npm start`)',
        headers: headers('CacheControl', 'ServerTime'),
        content: { 'text/plain': text },
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
];

const BASE: DocumentBase = {
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
    { name: 'server-rendered', description: "The checkout in the first HTML for the merchant's server (a fragment), its QR code as images, and the status page for a customer without JavaScript" },
    { name: 'admin', description: "The merchant's tools, behind the ADMIN_TOKEN Bearer token; off (404) without it" },
    { name: 'hooks', description: "Registered with the service at create, per bill: its callback and the customer's return from the pay page. Each URL carries an unguessable per-bill token, checked before anything else" },
    { name: 'meta', description: 'Health, readiness, metrics and this description' },
  ],
  components: {
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

export function describeApi(): Record<string, unknown> {
  return openApiDocument(BASE, SCHEMAS, [...OPERATIONS, ...serverRendered]);
}

export function openApiRoutes(): Hono {
  const app = new Hono();
  const document = describeApi();
  app.get('/openapi.json', (c) => c.json(document));
  return app;
}
