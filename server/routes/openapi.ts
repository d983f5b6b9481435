// GET /api/openapi.json: the BFF's routes for merchants on other stacks. Request bodies come from
// the very zod schemas that validate them, so the description cannot drift from the checks.
import { Hono } from 'hono';
import { z } from 'zod';
import { createBillBody } from '../create/request.js';
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
          summary: 'Create a bill (or return the same one: Idempotency-Key, or an open bill of the same orderId)',
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
          requestBody: { required: true, content: json('CreateBill') },
          responses: {
            201: { description: 'The bill and its token', content: json('CreatedBill') },
            400: error('Invalid body, or an amount the BFF does not take from a browser'),
            404: error('No such order'),
            422: error('Idempotency-Key reused with another request'),
            429: error('Too many creates from this client'),
            502: error('The payment service refused or is unavailable'),
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
            404: error('No such bill, or a wrong token'),
            409: error('Not pending any more'),
          },
        },
      },
      '/api/admin/bills': {
        post: {
          summary: "The service's list of bills, each with the BFF's stored outcome and whether the merchant was notified",
          security: adminSecurity,
          requestBody: { required: false, content: json('ListBills') },
          responses: { 200: { description: 'lists, total, paging' }, 400: error('Invalid body'), 401: error('Missing or wrong admin token') },
        },
      },
      '/api/admin/bills/{billId}/cancel': {
        post: {
          summary: 'Cancel any pending bill',
          security: adminSecurity,
          parameters: [billId],
          responses: { 200: { description: 'Cancelled' }, 401: error('Missing or wrong admin token'), 409: error('Not pending') },
        },
      },
      '/api/admin/customers': {
        post: {
          summary: 'Bind a customer (the body is passed to the service as is)',
          security: adminSecurity,
          requestBody: { required: true, content: json('BindCustomer') },
          responses: { 200: { description: '{customerId, data}' }, 401: error('Missing or wrong admin token') },
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
