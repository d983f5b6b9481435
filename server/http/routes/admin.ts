import { Hono } from 'hono';
import { z } from 'zod';
import { toBillView } from '../../domain/bill-view.js';
import { adminAuth } from '../middleware/admin-auth.js';
import { ApiError } from '../errors.js';
import { BillApiRejectedError } from '../../upstream/errors.js';
import type { ListBillsInput } from '../../upstream/types.js';
import { jsonBody } from '../bill-access.js';
import type { Services } from '../services.js';

export const listBillsBody = z.object({
  filters: z.array(z.object({
    name: z.string().min(1).max(64),
    value: z.string().max(256),
    matchType: z.enum(['like', 'equal']),
  })).max(20).optional(),
  /** `index` is 1-based here, always; BILL_PAGE_BASE translates it for the service. */
  paging: z.object({ index: z.number().int().min(1), size: z.number().int().min(1).max(100) }).optional(),
  sort: z.object({ name: z.string().min(1).max(64), order: z.union([z.literal(1), z.literal(-1)]) }).optional(),
});

export const bindCustomerBody = z.record(z.string(), z.unknown());

function invalid(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  return new ApiError(400, 'invalid_request', `${where}${issue?.message ?? 'invalid body'}`);
}

/** The merchant's own tools: the service's list with our local state, customer binding, cancel. */
export function adminRoutes(s: Services): Hono {
  const app = new Hono();
  app.use('*', adminAuth({ token: s.config.adminToken }));

  // The service's own words help the merchant, but a service may echo what it was sent: masked.
  const said = (error: BillApiRejectedError) => `code ${error.code}, "${s.redact(error.serviceMessage)}"`;
  function upstreamError(error: unknown): never {
    // The service called the request itself invalid (a filter or customer field it does not take):
    // the caller's to fix, so a 400, not a 5xx.
    if (error instanceof BillApiRejectedError && (error.httpStatus === 400 || error.httpStatus === 422)) {
      throw new ApiError(400, 'invalid_request', `The payment service refused the request: ${said(error)}.`);
    }
    if (error instanceof BillApiRejectedError) throw new ApiError(502, 'upstream_rejected', `The payment service refused: ${said(error)}.`);
    throw new ApiError(502, 'upstream_unavailable', 'The payment service is unavailable; try again shortly.');
  }

  app.post('/bills', async (c) => {
    const parsed = listBillsBody.safeParse(await jsonBody(c));
    if (!parsed.success) throw invalid(parsed.error);
    const { filters, paging, sort } = parsed.data;
    const input: ListBillsInput = {};
    if (filters) input.filters = filters;
    if (paging) input.paging = { index: paging.index - 1 + s.config.pageBase, size: paging.size };
    if (sort) input.sort = sort;
    const result = await s.upstream.listBills(input).catch(upstreamError);
    const ids = result.lists.map((r) => r.billId);
    const notices = await s.store.noticesFor(ids);
    const lists = await Promise.all(result.lists.map(async (row) => {
      const bill = await s.store.getByBillId(row.billId);
      const mine = notices.filter((n) => n.billId === row.billId);
      return {
        ...row,
        local: bill
          ? {
            outcome: bill.outcome,
            notified: mine.length > 0 && mine.every((n) => n.deliveredAt !== null),
            orderId: bill.orderId,
            orderAmount: bill.orderAmount,
            duplicatePayment: bill.duplicatePayment,
          }
          : null,
      };
    }));
    return c.json({ lists, total: result.total, paging: paging ?? null });
  });

  app.post('/customers', async (c) => {
    const parsed = bindCustomerBody.safeParse(await jsonBody(c));
    if (!parsed.success) throw invalid(parsed.error);
    const result = await s.upstream.bindCustomer(parsed.data).catch(upstreamError);
    return c.json(result);
  });

  app.post('/bills/:billId/cancel', async (c) => {
    const billId = c.req.param('billId');
    try {
      await s.upstream.cancelBill(billId);
    } catch (error) {
      if (error instanceof BillApiRejectedError && error.httpStatus === 404) {
        throw new ApiError(404, 'not_found', 'The payment service knows no such bill.');
      }
      if (error instanceof BillApiRejectedError) {
        await s.refresher.news(billId);
        throw new ApiError(409, 'not_cancellable', `The payment service refused: ${said(error)}.`);
      }
      upstreamError(error);
    }
    const after = await s.refresher.news(billId);
    return c.json({ cancelled: true, bill: after ? toBillView(after.bill) : null });
  });

  return app;
}
