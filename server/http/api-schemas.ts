// The bodies the BFF answers with, as zod schemas: the OpenAPI description publishes them
// (routes/openapi.ts), and the types the routes answer with are checked to be exactly their
// inferred types (the checks at the end), so neither can change without the other. The wire
// contract's interfaces (contract/) stay plain TypeScript: the element and the demo import them,
// and neither may pull zod into a page. Nothing here runs on a request: no answer is parsed.
import { z } from 'zod';
import type { AmountDisplay, BillView, CreatedBillView, ErrorBody, Outcome } from '../../contract/bill-view.js';
import { REQUERY_REASONS } from '../../contract/admin.js';
import type {
  AdminBillDetail, AdminBillList, BillEventView, BoundCustomerView, CustomerList, LocalBill, NoticeAttemptView, NoticeList,
  NoticeReplayed, NoticesReplayed, NoticeView, ServiceBillRecord, WebhookEndpointView,
} from '../../contract/admin.js';

export const outcome = z.enum(['pending', 'paid', 'failed', 'cancelled', 'expired']);
const amountDisplay = z.object({
  locale: z.string().describe('The canonical BCP 47 tag of the first language of the request\'s Accept-Language'),
  billAmount: z.string(),
  requireGCAmount: z.string().nullable(),
});
export const billView = z.object({
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
  processing: z.boolean().optional()
    .describe("True while the status is one of BILL_PROCESSING_STATUSES (none by default): the customer has paid and the service is confirming. Never final: `outcome` stays pending, the bill is not withdrawn at its expiry, and the element shows it as being confirmed. Always sent by the BFF"),
  dateTime: z.number().nullable().describe('Time of the last status update, unix milliseconds (service clock); null until known'),
  display: amountDisplay.optional()
    .describe('The amounts as text in that language (money with its currency), on the answers to a create and a read whose request has an Accept-Language'),
});
export const createdBill = billView.extend({ token: z.string().describe('Reads, watches and cancels this bill (the `token` query parameter)') });

const requeryReason = z.enum(REQUERY_REASONS)
  .describe("Why the service was asked: a widget's poll or stream, the service's callback, the customer's return, the reconciler, a cancel, a create reusing an open bill, a follow-up of news not yet confirmed");
const noticeState = z.enum(['pending', 'delivered', 'failed'])
  .describe('pending: tried again at nextAttemptAt; delivered: answered 2xx; failed: the retry schedule (about 3 days) ran out, only a replay sends it');
const ms = (what: string) => z.number().describe(`${what}, unix milliseconds (the BFF's clock)`);

export const localBill = z.object({
  outcome,
  notified: z.boolean().describe('Every merchant notice of this bill was delivered (false while none was sent)'),
  notice: z.union([noticeState, z.literal('none')]).describe("The webhook notice's state (the hook's without a webhook); none while pending or with no channel configured"),
  orderId: z.string().nullable(),
  orderAmount: z.string().nullable().describe("The order's amount as the merchant resolved it"),
  orderCurrency: z.string().nullable(),
  duplicatePayment: z.boolean().describe('Paid while another bill of the same order was already paid: refund one'),
  orphanedAt: ms("When the BFF learned the service made this bill for a create whose answer never arrived (never shown to a customer; withdrawn)").nullable(),
  lostAt: ms('When the service answered "not found" for this bill (lost at the service: never used again)').nullable(),
  finalReason: requeryReason.nullable().describe('How the final status was learned; null while pending'),
  finalAt: ms('When the bill became final').nullable(),
  createdAt: ms('When the create started'),
});
export const noticeAttempt = z.object({
  number: z.number().describe('1, 2, … over every attempt, replays included'),
  replay: z.boolean(),
  at: ms('When it started'),
  durationMs: z.number(),
  ok: z.boolean(),
  httpStatus: z.number().nullable().describe("The merchant's HTTP status; null for the hook or when no answer came"),
  response: z.string().nullable().describe("The first 200 bytes of the merchant's answer"),
  error: z.string().nullable(),
});
export const noticeView = z.object({
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
export const webhookEndpoint = z.object({
  url: z.string().describe('MERCHANT_WEBHOOK_URL without userinfo'),
  enabled: z.boolean().describe('False after the endpoint answered 410 Gone, until re-enabled'),
  disabledAt: ms('When it was disabled').nullable(),
  disabledReason: z.string().nullable(),
  secrets: z.number().describe('How many secrets of MERCHANT_WEBHOOK_SECRET sign each notice'),
});
export const noticeList = z.object({
  notices: z.array(noticeView).describe('Newest first'),
  webhook: webhookEndpoint.nullable().describe('null: no MERCHANT_WEBHOOK_URL'),
});
export const billEvent = z.object({
  at: ms('When'),
  kind: z.enum(['created', 'create_failed', 'status']).describe('created: the service answered the create; create_failed: it refused it; status: a requery changed the status'),
  reason: requeryReason.nullable(),
  status: z.number().nullable(),
  statusName: z.string().nullable(),
  outcome: outcome.nullable(),
});
export const adminBillDetail = z.object({
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
export const noticeReplayed = z.object({
  notice: noticeView.describe('After the replay was tried (its log has the attempt), or still queued (replayAt) when another instance took it'),
});
export const noticesReplayed = z.object({ replayed: z.number().describe('Notices queued for a replay') });
export const customerList = z.object({
  customers: z.array(z.object({ customerKey: z.string(), customerId: z.string(), boundAt: ms('When it was bound') })).describe('Newest first'),
});
const serviceBillRecord = z.object({
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
});
export const adminBillRow = serviceBillRecord.extend({
  local: localBill.nullable().describe("The BFF's own record of the bill; null when it is not one of ours"),
}).describe("A status record of the service's list, with the BFF's own record of the bill");
export const adminBillList = z.object({
  lists: z.array(adminBillRow),
  total: z.number().describe('Bills that match the filters, over all pages'),
  paging: z.object({ index: z.number(), size: z.number() }).nullable().describe('The paging asked for (index 1-based); null when none was'),
});
export const adminCancelled = z.object({
  cancelled: z.literal(true),
  bill: billView.nullable().describe('The bill as requeried after the cancel; null when it is not one of ours'),
});
export const boundCustomer = z.object({
  customerKey: z.string().nullable().describe("The merchant's key for the customer; null when the bind named none (then nothing is remembered)"),
  customerId: z.string().describe("The service's customer identifier (data[BILL_BIND_ID_FIELD])"),
  bound: z.enum(['new', 'existing']).describe('new: the service was called now; existing: the key was bound before, the service was not called'),
  boundAt: ms('When the key was bound').nullable(),
});
export const ok = z.object({ ok: z.literal(true) });
export const errorBody = z.object({
  error: z.object({
    code: z.string().describe('Stable, machine-readable: e.g. invalid_request, order_ticket_invalid, not_found, rate_limited'),
    message: z.string().describe('Safe to show; never a stack'),
  }),
});

/** `{"cancelled": true, bill}`: POST /api/admin/bills/:billId/cancel. */
export type AdminCancelled = z.infer<typeof adminCancelled>;
/** `{"ok": true}`: the callback's acknowledgement, /healthz and /readyz. */
export type Ok = z.infer<typeof ok>;

// Each schema's type is exactly the interface the routes answer with: a field added, dropped,
// renamed, made optional or nullable on one side only fails the type check (npm run typecheck).
/** T with every intersection flattened, so that equal shapes compare equal however they are written. */
type Shape<T> = T extends readonly (infer E)[] ? Shape<E>[] : T extends object ? { [K in keyof T]: Shape<T[K]> } : T;
type Same<A, B> = (<T>() => T extends Shape<A> ? 1 : 2) extends (<T>() => T extends Shape<B> ? 1 : 2) ? true : false;
type Exactly<Schema extends z.ZodType, T> = Same<z.infer<Schema>, T>;
const exact: [
  Exactly<typeof outcome, Outcome>,
  Exactly<typeof amountDisplay, AmountDisplay>,
  Exactly<typeof billView, BillView>,
  Exactly<typeof createdBill, CreatedBillView>,
  Exactly<typeof localBill, LocalBill>,
  Exactly<typeof noticeAttempt, NoticeAttemptView>,
  Exactly<typeof noticeView, NoticeView>,
  Exactly<typeof webhookEndpoint, WebhookEndpointView>,
  Exactly<typeof noticeList, NoticeList>,
  Exactly<typeof billEvent, BillEventView>,
  Exactly<typeof adminBillDetail, AdminBillDetail>,
  Exactly<typeof noticeReplayed, NoticeReplayed>,
  Exactly<typeof noticesReplayed, NoticesReplayed>,
  Exactly<typeof customerList, CustomerList>,
  Exactly<typeof serviceBillRecord, ServiceBillRecord>,
  Exactly<typeof adminBillList, AdminBillList>,
  Exactly<typeof boundCustomer, BoundCustomerView>,
  Exactly<typeof errorBody, ErrorBody>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true];
void exact;
