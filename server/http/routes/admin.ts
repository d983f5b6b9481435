import { Hono } from 'hono';
import { z } from 'zod';
import type {
  AdminBillDetail, AdminBillList, BoundCustomerView, CustomerList, LocalBill, NoticeList, NoticeReplayed, NoticesReplayed,
  NoticeView, WebhookEndpointView,
} from '../../../contract/admin.js';
import type { AdminCancelled } from '../api-schemas.js';
import { compareDecimal } from '../../../contract/decimal.js';
import { toBillView } from '../../domain/bill-view.js';
import { CheckoutError } from '../../domain/errors.js';
import { withoutUserinfo } from '../../config.js';
import { adminAuth } from '../middleware/admin-auth.js';
import type { Notice, NoticeAttempt, StoredBill } from '../../store/types.js';
import { BillApiRejectedError } from '../../upstream/errors.js';
import type { ListBillsInput, StatusRecord } from '../../upstream/types.js';
import { jsonBody } from '../bill-access.js';
import { MAX_ID_LENGTH, SERVICE_ID, isServiceId } from '../../../contract/ids.js';
import { issueMessage } from '../../domain/issue-message.js';
import type { Services } from '../services.js';

/** No control character: what reaches the store or the service as text (PostgreSQL refuses a NUL). */
const printable = (max: number) => z.string().max(max).regex(/^[^\p{Cc}]*$/u, 'no control characters');

export const listBillsBody = z.object({
  filters: z.array(z.object({
    name: printable(64).min(1),
    value: printable(256),
    matchType: z.enum(['like', 'equal']),
  })).max(20).optional(),
  /** `index` is 1-based here, always; BILL_PAGE_BASE translates it for the service. */
  paging: z.object({ index: z.number().int().min(1), size: z.number().int().min(1).max(100) }).optional(),
  sort: z.object({ name: printable(64).min(1), order: z.union([z.literal(1), z.literal(-1)]) }).optional(),
});

/** The customer's information goes to the service as given, but for `customerKey`: the merchant's own key, kept here. */
export const bindCustomerBody = z.record(z.string(), z.unknown()).and(z.object({
  customerKey: z.string().trim().min(1).max(200).regex(/^[^\p{Cc}]+$/u, 'no control characters').optional(),
}));

/** A time in a query: unix milliseconds, or an ISO 8601 date-time. */
const instant = (what: string) => z.string().trim().transform((text, ctx) => {
  const ms = /^\d{1,15}$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(ms)) {
    ctx.addIssue({ code: 'custom', message: 'must be unix milliseconds or an ISO 8601 date-time' });
    return z.NEVER;
  }
  return ms;
}).describe(`${what}: unix milliseconds or an ISO 8601 date-time`);
const limit = z.coerce.number().int().min(1).max(500).default(100).describe('At most this many (default 100)');
const channel = z.enum(['hook', 'webhook']);

// The queries and paths below are what the routes parse and read; the OpenAPI description
// (routes/openapi.ts) publishes them as they are, descriptions included.
export const noticeListQuery = z.object({
  state: z.enum(['pending', 'delivered', 'failed']).optional(),
  channel: channel.optional(),
  billId: z.string().regex(SERVICE_ID, `1 to ${MAX_ID_LENGTH} printable characters`).optional(),
  from: instant('Notices queued at or after this time').optional(),
  to: instant('Notices queued before this time').optional(),
  limit,
});

export const replayRangeQuery = z.object({
  from: instant('Notices queued at or after this time'),
  to: instant('Notices queued before this time (default: now)').optional(),
  channel: channel.optional().describe('Default: every configured channel'),
});

export const customerListQuery = z.object({
  limit,
  before: z.coerce.number().int().min(0).optional().describe('Only customers bound before this time (unix ms): the next page'),
});

/** Any text is taken: an id no notice can have answers 404 as an unknown one does. */
export const noticePath = z.object({ noticeId: z.string().describe('The notice id (its webhook-id)') });

/** Most bills of matching orders an `orderId` filter looks up at the service. */
const ORDER_SEARCH_LIMIT = 50;

function noticeView(notice: Notice, attempts: NoticeAttempt[]): NoticeView {
  return {
    id: notice.id,
    channel: notice.channel,
    billId: notice.billId,
    state: notice.state,
    attempts: notice.attempts,
    nextAttemptAt: notice.state === 'pending' ? notice.nextAttemptAt : null,
    deliveredAt: notice.deliveredAt,
    lastError: notice.lastError,
    replayAt: notice.replayAt,
    createdAt: notice.createdAt,
    log: attempts.filter((a) => a.noticeId === notice.id).map((a) => ({
      number: a.number, replay: a.replay, at: a.at, durationMs: a.durationMs, ok: a.ok,
      httpStatus: a.httpStatus, response: a.response, error: a.error,
    })),
  };
}

function localBill(bill: StoredBill, notices: Notice[]): LocalBill {
  const mine = notices.filter((n) => n.billId === bill.billId);
  // The webhook is what the merchant's backend sees; the in-process hook stands in without one.
  const shown = mine.find((n) => n.channel === 'webhook') ?? mine[0];
  return {
    outcome: bill.outcome,
    notified: mine.length > 0 && mine.every((n) => n.state === 'delivered'),
    notice: shown?.state ?? 'none',
    orderId: bill.orderId,
    orderAmount: bill.orderAmount,
    orderCurrency: bill.orderCurrency,
    duplicatePayment: bill.duplicatePayment,
    orphanedAt: bill.orphanedAt,
    lostAt: bill.lostAt,
    finalReason: bill.finalReason,
    finalAt: bill.finalAt,
    createdAt: bill.createdAt,
  };
}

type Filter = NonNullable<ListBillsInput['filters']>[number];

/** A filter of the service's list applied here, to records fetched by reference: equal as text (amounts as decimals), like as a case-insensitive part. */
function matches(record: StatusRecord, filter: Filter): boolean {
  const value = (record as unknown as Record<string, unknown>)[filter.name];
  if (value === undefined || value === null) return false;
  const text = String(value);
  if (filter.matchType === 'like') return text.toLowerCase().includes(filter.value.toLowerCase());
  if (filter.name === 'billAmount') {
    try {
      return compareDecimal(text, filter.value) === 0;
    } catch {
      return false;
    }
  }
  return text === filter.value;
}

function compareField(a: StatusRecord, b: StatusRecord, name: string): number {
  const x = (a as unknown as Record<string, unknown>)[name];
  const y = (b as unknown as Record<string, unknown>)[name];
  if (name === 'billAmount' && typeof x === 'string' && typeof y === 'string') return compareDecimal(x, y);
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  return String(x ?? '').localeCompare(String(y ?? ''));
}

function invalid(error: z.ZodError): CheckoutError {
  return new CheckoutError('invalid', 'invalid_request', issueMessage(error));
}


/** The merchant's own tools: the service's list with our local state, customer binding, cancel. */
export function adminRoutes(s: Services): Hono {
  const app = new Hono();
  app.use('*', adminAuth({ token: s.config.adminToken, clientKey: s.clientKey, now: s.now, log: s.log }));

  // The service's own words help the merchant, but a service may echo what it was sent: masked.
  const said = (error: BillApiRejectedError) => `code ${error.code}, "${s.redact(error.serviceMessage)}"`;
  function upstreamError(error: unknown): never {
    // The service called the request itself invalid (a filter or customer field it does not take):
    // the caller's to fix, so a 400, not a 5xx.
    if (error instanceof BillApiRejectedError && (error.httpStatus === 400 || error.httpStatus === 422)) {
      throw new CheckoutError('invalid', 'invalid_request', `The payment service refused the request: ${said(error)}.`);
    }
    if (error instanceof BillApiRejectedError) throw new CheckoutError('upstream', 'upstream_rejected', `The payment service refused: ${said(error)}.`);
    throw new CheckoutError('upstream', 'upstream_unavailable', 'The payment service is unavailable; try again shortly.');
  }

  /** The service's rows of our bills of matching orders: one lookup per reference (the service knows no order ids). */
  async function orderRows(order: Filter, others: Filter[], sort: ListBillsInput['sort']): Promise<StatusRecord[]> {
    const bills = (await s.store.findBillsByOrder(order.value, order.matchType, ORDER_SEARCH_LIMIT)).filter((b) => b.billId !== null);
    const found: StatusRecord[] = [];
    for (let i = 0; i < bills.length; i += 4) {
      const batch = await Promise.all(bills.slice(i, i + 4).map((b) => s.upstream.findByMerchantReference(b.merchantReference).catch(upstreamError)));
      for (const records of batch) found.push(...records.filter((r) => others.every((f) => matches(r, f))));
    }
    const unique = [...new Map(found.map((r) => [r.billId, r])).values()];
    const by = sort ?? { name: 'dateTime', order: -1 };
    return unique.sort((a, b) => by.order * compareField(a, b, by.name));
  }

  app.post('/bills', async (c) => {
    const parsed = listBillsBody.safeParse(await jsonBody(c));
    if (!parsed.success) throw invalid(parsed.error);
    const { filters = [], paging, sort } = parsed.data;
    const orderFilters = filters.filter((f) => f.name === 'orderId');
    if (orderFilters.length > 1) throw new CheckoutError('invalid', 'invalid_request', 'filters: give at most one orderId filter.');
    let rows: StatusRecord[];
    let total: number;
    if (orderFilters[0]) {
      const all = await orderRows(orderFilters[0], filters.filter((f) => f.name !== 'orderId'), sort);
      const size = paging?.size ?? all.length;
      const index = paging?.index ?? 1;
      rows = all.slice((index - 1) * size, index * size);
      total = all.length;
    } else {
      const input: ListBillsInput = {};
      if (filters.length) input.filters = filters;
      if (paging) input.paging = { index: paging.index - 1 + s.config.pageBase, size: paging.size };
      if (sort) input.sort = sort;
      const result = await s.upstream.listBills(input).catch(upstreamError);
      rows = result.lists;
      total = result.total;
    }
    const notices = await s.store.noticesFor(rows.map((r) => r.billId));
    const lists = await Promise.all(rows.map(async (row) => {
      const bill = await s.store.getByBillId(row.billId);
      return { ...row, local: bill ? localBill(bill, notices) : null };
    }));
    const answer: AdminBillList = { lists, total, paging: paging ?? null };
    return c.json(answer);
  });

  app.get('/bills/:billId', async (c) => {
    const billId = c.req.param('billId');
    const bill = isServiceId(billId) ? await s.store.getByBillId(billId) : null;
    if (!bill?.billId) throw new CheckoutError('not_found', 'not_found', 'This BFF has no such bill.');
    const [history, notices] = await Promise.all([s.store.billHistory(bill.merchantReference), s.store.noticesFor([bill.billId])]);
    const attempts = await s.store.noticeAttempts(notices.map((n) => n.id));
    const detail: AdminBillDetail = {
      bill: {
        billId: bill.billId, merchantReference: bill.merchantReference, billAmount: bill.amount, currency: bill.currency,
        status: bill.status, statusName: bill.statusName, isFinal: bill.isFinal, dateTime: bill.dateTime,
        expiredOn: bill.expiredOn, checkedAt: bill.checkedAt,
      },
      local: localBill(bill, notices),
      history,
      notices: notices.map((n) => noticeView(n, attempts)),
    };
    return c.json(detail);
  });

  async function endpointView(): Promise<WebhookEndpointView | null> {
    const webhook = s.config.webhook;
    if (!webhook) return null;
    const state = await s.store.webhookEndpoint(webhook.url);
    return {
      url: withoutUserinfo(webhook.url),
      enabled: state.disabledAt === null,
      disabledAt: state.disabledAt,
      disabledReason: state.disabledReason,
      secrets: webhook.secrets?.length ?? 1,
    };
  }

  async function withLogs(notices: Notice[]): Promise<NoticeView[]> {
    const attempts = await s.store.noticeAttempts(notices.map((n) => n.id));
    return notices.map((n) => noticeView(n, attempts));
  }

  app.get('/notices', async (c) => {
    const parsed = noticeListQuery.safeParse(c.req.query());
    if (!parsed.success) throw invalid(parsed.error);
    const notices = await s.store.listNotices(parsed.data);
    const answer: NoticeList = { notices: await withLogs(notices), webhook: await endpointView() };
    return c.json(answer);
  });

  /** Replays go nowhere while their channel is off or its endpoint disabled: say so rather than queue them. */
  async function refuseClosed(channel: Notice['channel']): Promise<void> {
    if (!s.channels.includes(channel)) {
      throw new CheckoutError('conflict', 'channel_off', channel === 'webhook'
        ? 'No webhook is configured (MERCHANT_WEBHOOK_URL): there is nowhere to send the notice.'
        : 'No onFinal hook is installed in this process.');
    }
    if (channel === 'webhook' && !(await endpointView())?.enabled) {
      throw new CheckoutError('conflict', 'endpoint_disabled', 'The webhook endpoint is disabled (it answered 410 Gone); re-enable it first.');
    }
  }

  app.post('/notices/replay', async (c) => {
    const parsed = replayRangeQuery.safeParse(c.req.query());
    if (!parsed.success) throw invalid(parsed.error);
    const { from, to = s.now() + 1, channel } = parsed.data;
    if (to <= from) throw new CheckoutError('invalid', 'invalid_request', 'to: must be after from.');
    const channels = channel ? [channel] : s.channels;
    for (const ch of channels) await refuseClosed(ch);
    let replayed = 0;
    for (const ch of channels) replayed += await s.store.replayFailedNotices(ch, from, to, s.now());
    if (replayed > 0) s.noticeWorker.kick();
    s.log.info('admin: failed notices replayed', { from, to, replayed });
    const answer: NoticesReplayed = { replayed };
    return c.json(answer);
  });

  app.post('/notices/:noticeId/replay', async (c) => {
    const id = c.req.param('noticeId');
    const notice = isServiceId(id) ? await s.store.getNotice(id) : null;
    if (!notice) throw new CheckoutError('not_found', 'not_found', 'No such notice.');
    await refuseClosed(notice.channel);
    await s.store.replayNotice(id, s.now());
    s.log.info('admin: notice replayed', { noticeId: id });
    // Tried at once here, so the answer shows the attempt; another instance may have taken it first.
    await s.noticeWorker.runOnce();
    const after = (await s.store.getNotice(id))!;
    const answer: NoticeReplayed = { notice: (await withLogs([after]))[0]! };
    return c.json(answer);
  });

  app.get('/webhook', async (c) => c.json(await endpointView()));

  app.post('/webhook/enable', async (c) => {
    const webhook = s.config.webhook;
    if (!webhook) throw new CheckoutError('not_found', 'not_found', 'No webhook is configured (MERCHANT_WEBHOOK_URL).');
    const resumed = await s.store.enableWebhookEndpoint(webhook.url, s.now());
    // A pass that reads the endpoint again: this instance's copy of its state says disabled.
    s.noticeWorker.runOnce().catch((error: unknown) => s.log.error('notice pass after re-enabling failed', { error }));
    s.log.info('admin: webhook endpoint enabled', { resumed });
    return c.json(await endpointView());
  });

  app.post('/customers', async (c) => {
    const parsed = bindCustomerBody.safeParse(await jsonBody(c));
    if (!parsed.success) throw invalid(parsed.error);
    const { customerKey, ...customer } = parsed.data;
    let answer: BoundCustomerView;
    if (customerKey === undefined) {
      // No key, nothing to remember it by: each such bind reaches the service.
      const result = await s.upstream.bindCustomer(customer).catch(upstreamError);
      answer = { customerKey: null, customerId: result.customerId, bound: 'new', boundAt: null };
    } else {
      const result = await s.customers.bind(customerKey, customer).catch((error: unknown) => {
        if (error instanceof CheckoutError) throw error;
        return upstreamError(error);
      });
      answer = {
        customerKey, customerId: result.customer.customerId, bound: result.calledService ? 'new' : 'existing', boundAt: result.customer.boundAt,
      };
    }
    return c.json(answer);
  });

  app.get('/customers', async (c) => {
    const parsed = customerListQuery.safeParse(c.req.query());
    if (!parsed.success) throw invalid(parsed.error);
    const answer: CustomerList = { customers: await s.store.listCustomers(parsed.data.limit, parsed.data.before) };
    return c.json(answer);
  });

  app.post('/bills/:billId/cancel', async (c) => {
    const billId = c.req.param('billId');
    if (!isServiceId(billId)) throw new CheckoutError('not_found', 'not_found', 'The payment service knows no such bill.');
    try {
      await s.upstream.cancelBill(billId);
    } catch (error) {
      if (error instanceof BillApiRejectedError && error.httpStatus === 404) {
        throw new CheckoutError('not_found', 'not_found', 'The payment service knows no such bill.');
      }
      if (error instanceof BillApiRejectedError) {
        await s.refresher.news(billId, { reason: 'cancel' });
        throw new CheckoutError('conflict', 'not_cancellable', `The payment service refused: ${said(error)}.`);
      }
      upstreamError(error);
    }
    const after = await s.refresher.news(billId, { reason: 'cancel' });
    const answer: AdminCancelled = { cancelled: true, bill: after ? toBillView(after.bill, s.config.statuses.processing) : null };
    return c.json(answer);
  });

  return app;
}
