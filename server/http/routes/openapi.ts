// GET /api/openapi.json: the BFF's routes for merchants on other stacks. Request bodies come from
// the very zod schemas that validate them, so the description cannot drift from the checks.
import { Hono } from 'hono';
import { z } from 'zod';
import { createBillBody } from '../../domain/create/request.js';
import { bindCustomerBody, listBillsBody } from './admin.js';

const billView = z.object({
  billId: z.string(),
  merchantReference: z.string(),
  billUrl: z.string(),
  billAmount: z.string().describe('Exact decimal text'),
  currency: z.string(),
  requireGCAmount: z.string().nullable().describe('Exact decimal text'),
  expiredOn: z.number().describe('Unix milliseconds, service clock'),
  status: z.number().nullable(),
  statusName: z.string(),
  isFinal: z.boolean(),
  outcome: z.enum(['pending', 'paid', 'failed', 'cancelled', 'expired']),
  dateTime: z.number().nullable(),
});
const createdBill = billView.extend({ token: z.string().describe('Reads, watches and cancels this bill') });
const localState = z.object({
  outcome: billView.shape.outcome,
  notified: z.boolean().describe('Every merchant notice of this bill was delivered'),
  orderId: z.string().nullable(),
  orderAmount: z.string().nullable().describe("The order's amount as the merchant resolved it"),
  duplicatePayment: z.boolean().describe('Paid while another bill of the same order was already paid: refund one'),
}).nullable().describe("The BFF's own record of the bill; null when it is not one of ours");
const errorBody = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

function schema(s: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(s, { io: 'input' }) as Record<string, unknown>;
  return rest;
}

const json = (ref: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } });
const error = (description: string) => ({ description, content: json('Error') });
const billId = { name: 'billId', in: 'path', required: true, schema: { type: 'string' } };
const token = { name: 'token', in: 'query', required: true, schema: { type: 'string' }, description: 'The token of the create response' };
const adminSecurity = [{ adminToken: [] }];
const crossSite = {
  403: error('An Origin not in ALLOWED_ORIGINS (origin_not_allowed)'),
  415: error('Not Content-Type: application/json (unsupported_media_type)'),
};

export function describeApi(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'bill-checkout BFF',
      version: '1',
      description: 'Creates bills with the payment service and serves their requeried status. Errors are {"error": {"code", "message"}}.',
    },
    paths: {
      '/api/bills': {
        post: {
          summary: 'Create a bill (or return the same one: Idempotency-Key, or the open bill of the same orderId while its amount holds)',
          description: 'An orderId needs the orderTicket that the merchant\'s server minted for it (when ORDER_TICKET_SECRET is set). ' +
            'An order is paid once: a create for an order that already has a paid bill answers that bill with 200.',
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
          requestBody: { required: true, content: json('CreateBill') },
          responses: {
            200: { description: "The order's paid bill and its token: the order is paid already", content: json('CreatedBill') },
            201: { description: 'The bill and its token', content: json('CreatedBill') },
            400: error('Invalid body, or an amount the BFF does not take from a browser'),
            403: error('No valid order ticket for this orderId (order_ticket_invalid), or an Origin not allowed (origin_not_allowed)'),
            404: error('No such order'),
            415: crossSite[415],
            422: error('Idempotency-Key reused with another request'),
            429: error('Too many creates from this client'),
            502: error('The payment service refused or is unavailable, or answered a bill other than the one asked for (upstream_mismatch)'),
          },
        },
      },
      '/api/bills/{billId}': {
        get: {
          summary: 'The bill as last requeried',
          parameters: [billId, token],
          responses: { 200: { description: 'The bill', content: json('BillView') }, 404: error('No such bill, or a wrong token') },
        },
      },
      '/api/bills/{billId}/events': {
        get: {
          summary: 'Server-Sent Events: `event: status`, data a BillView; at once, on every change, closed after the final one',
          parameters: [billId, token],
          responses: {
            200: { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
            404: error('No such bill, or a wrong token'),
            429: error('This client holds MAX_SSE_PER_CLIENT streams already: poll GET /api/bills/{billId} instead'),
            503: error('Too many streams: poll GET /api/bills/{billId} instead'),
          },
        },
      },
      '/api/bills/{billId}/cancel': {
        post: {
          summary: 'Cancel while pending',
          parameters: [billId, token],
          responses: {
            200: { description: 'The bill after cancelling', content: json('BillView') },
            ...crossSite,
            404: error('No such bill, or a wrong token'),
            409: error('Not pending any more'),
          },
        },
      },
      '/api/admin/bills': {
        post: {
          summary: "The service's list of bills, each with the BFF's own record (`local`): outcome, notified, order, duplicate payment",
          security: adminSecurity,
          requestBody: { required: false, content: json('ListBills') },
          responses: {
            200: { description: 'lists (each with `local`), total, paging', content: json('AdminBillList') },
            400: error('Invalid body'), 401: error('Missing or wrong admin token'), ...crossSite,
          },
        },
      },
      '/api/admin/bills/{billId}/cancel': {
        post: {
          summary: 'Cancel any pending bill',
          security: adminSecurity,
          parameters: [billId],
          responses: { 200: { description: 'Cancelled' }, 401: error('Missing or wrong admin token'), ...crossSite, 409: error('Not pending') },
        },
      },
      '/api/admin/customers': {
        post: {
          summary: 'Bind a customer (the body is passed to the service as is)',
          security: adminSecurity,
          requestBody: { required: true, content: json('BindCustomer') },
          responses: { 200: { description: '{customerId, data}' }, 401: error('Missing or wrong admin token'), ...crossSite },
        },
      },
      '/healthz': { get: { summary: 'Health', responses: { 200: { description: 'The store answers' }, 503: { description: 'It does not' } } } },
    },
    components: {
      schemas: {
        CreateBill: schema(createBillBody),
        ListBills: schema(listBillsBody),
        BindCustomer: schema(bindCustomerBody),
        BillView: schema(billView),
        CreatedBill: schema(createdBill),
        AdminBillList: schema(z.object({
          lists: z.array(z.looseObject({ billId: z.string(), local: localState })),
          total: z.number(),
          paging: z.object({ index: z.number(), size: z.number() }).nullable(),
        })),
        Error: schema(errorBody),
      },
      securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' } },
    },
  };
}

export function openApiRoutes(): Hono {
  const app = new Hono();
  const document = describeApi();
  app.get('/openapi.json', (c) => c.json(document));
  return app;
}
