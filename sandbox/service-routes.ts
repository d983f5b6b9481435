// The service's operations (spec section 4), relative to where the sandbox is mounted.
import { Hono, type Context } from 'hono';
import { type Bill, statusRecord } from './bills.js';
import { resetConnection } from './connection-reset.js';
import type { Core } from './core.js';
import { routePattern } from './dialect.js';
import { parseCreateBody } from './create-input.js';
import { Code, SandboxError, fail, failFrom, jsonResponse, okText } from './envelope.js';
import { lieInCreated, lieInRecord, roll, rollFor, shiftDateTime } from './faults.js';
import { parseListQuery, runListQuery } from './list-query.js';
import { refusalResponse } from './refusals.js';
import { verifyRequest } from './signature.js';
import type { Faults, Op, StatusRecordWire } from './types.js';
import { NumberText } from './wire.js';

const CREATE_PATH = '/v1/bill/create';

function invalid(message: string): never {
  throw new SandboxError(Code.invalidRequest, message);
}

function requireJsonType(req: Request): void {
  const type = (req.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') invalid('Content-Type must be application/json');
}

/** JSON.parse of a POST body; `Content-Type: application/json` is required when there is a body. */
function jsonBody(req: Request, text: string, emptyAs?: unknown): unknown {
  if (text === '' && emptyAs !== undefined) return emptyAs;
  requireJsonType(req);
  try {
    return JSON.parse(text);
  } catch {
    invalid('Body is not valid JSON');
  }
}

function billIdOf(body: unknown): string {
  const id = (body as { billId?: unknown } | null)?.billId;
  if (typeof id !== 'string' || id === '') invalid('billId is required');
  return id;
}

/** Faults, authentication, errors and the envelope around one operation. */
async function operation(core: Core, op: Op, c: Context, run: (body: string, f: Faults) => unknown): Promise<Response> {
  const req = c.req.raw;
  core.stats.calls[op]++;
  const f = core.faults();
  // The limit is the gateway's, in front of everything: a refused request waits for no latency,
  // is not authenticated and does nothing. It counts every request, those refused below too.
  const throttled = core.limiter.refuse(op, f.rateLimit[op]);
  const refusal = core.takeRefusal(op);
  if (refusal) return refusalResponse(refusal);
  if (throttled) {
    core.stats.throttled[op]++;
    const res = fail(Code.rateLimited, `Rate limit exceeded: ${f.rateLimit[op]} ${op} requests per second`);
    res.headers.set('retry-after', String(f.retryAfterS));
    return res;
  }
  if (f.latencyMs > 0) await core.timers.sleep(f.latencyMs);
  if (rollFor(core.random, f.errorRate, op)) return fail(Code.internal, 'Injected error', 500);
  if (rollFor(core.random, f.timeoutRate, op)) {
    await core.timers.sleep(f.hangMs);
    return fail(Code.internal, 'Injected timeout', 503);
  }
  let text: string;
  try {
    // A GET has no body to sign; reading one would make @hono/node-server build a full Request.
    const body = req.method === 'GET' || req.method === 'HEAD' ? '' : await req.text();
    await verifyRequest(req, body, core.key, core.secret, core.dialect.sign, core.now(), core.dialect.signHeader);
    text = okText(await run(body, f), core.dialect.okCode);
  } catch (err) {
    return failFrom(err);
  }
  if (op === 'create' && core.takeCreateReset()) return resetConnection(c);
  if (op === 'create' && roll(core.random, f.createLostResponseRate)) {
    await core.timers.sleep(f.hangMs);
    return fail(Code.internal, 'Injected lost response', 503);
  }
  if (rollFor(core.random, f.malformedRate, op)) return jsonResponse(text.slice(0, Math.floor(text.length / 2)), 200);
  return jsonResponse(text, 200);
}

/** Every operation at its full path (create, list and requery fixed; cancel and bind where the dialect puts them). */
export function serviceRoutes(core: Core): Hono {
  const app = new Hono();
  const { dialect } = core;
  // The service's records, with `dateTime` as far off as the recordDateTimeOffsetMs fault says.
  const stated = (bill: Bill, f: Faults, dateTime?: 'created'): StatusRecordWire =>
    shiftDateTime(statusRecord(bill, dialect, dateTime), f.recordDateTimeOffsetMs);

  app.post(CREATE_PATH, (c) =>
    operation(core, 'create', c, async (body, f) => {
      requireJsonType(c.req.raw);
      // A create sent again under a request id already seen is answered with the bill it made.
      const id = core.createIds ? c.req.header(core.createIds.header) : undefined;
      const madeId = id === undefined ? undefined : core.createIds?.billIds.get(id);
      const bill = madeId === undefined ? core.book.create(parseCreateBody(body)) : core.book.get(madeId);
      if (id !== undefined && madeId === undefined) core.createIds?.billIds.set(id, bill.billId);
      if (f.payOnCreate && madeId === undefined) core.book.pay(bill.billId);
      const url = new URL(c.req.url);
      const base = core.publicUrl ?? url.origin + url.pathname.slice(0, -CREATE_PATH.length);
      // The bill is in the book with its true values whatever the answer says.
      const answer = lieInCreated({
        billId: bill.billId,
        billUrl: `${base}/pay/${encodeURIComponent(bill.billId)}`,
        billAmount: new NumberText(bill.amount),
        requireGCAmount: new NumberText(bill.requireGCAmount),
        currency: bill.currency,
        merchantReference: bill.merchantReference,
        expiredOn: f.expiredOnUnit === 's' ? Math.floor(bill.expiredOn / 1000) : bill.expiredOn,
      }, f.lies.create);
      // The merchant hears of the bill from its callback first. Bounded by hangMs: a bill nobody
      // pays has no callback to wait for.
      if (f.createAnswerAfterCallback) await core.callbacks.deliveryEnded(bill.billId, f.hangMs);
      return answer;
    }),
  );

  app.post('/v1/bills', (c) =>
    operation(core, 'list', c, (body, f) => {
      const query = parseListQuery(jsonBody(c.req.raw, body, {}), core.pageBase, f.maxPageSize, f.listRefusedFilters);
      return runListQuery(core.book.replicaAll(f.replicaLagMs).map((b) => stated(b, f, 'created')), query);
    }),
  );

  app.get('/v1/bill/requery', (c) => {
    const billId = c.req.query('billId');
    if (billId) core.stats.requeryByBill[billId] = (core.stats.requeryByBill[billId] ?? 0) + 1;
    return operation(core, 'requery', c, (_body, f) => {
      if (!billId) invalid('billId is required');
      return lieInRecord(stated(core.book.replica(billId, f.replicaLagMs), f), f.lies.requery, dialect);
    });
  });

  // With {billId} in the path the id comes from there and a body, if any, is only signed.
  const idInPath = dialect.cancel.path.includes('{billId}');
  app.on(dialect.cancel.method, routePattern(dialect.cancel.path), (c) =>
    operation(core, 'cancel', c, (body, f) => {
      const billId = idInPath ? c.req.param('billId') : billIdOf(jsonBody(c.req.raw, body));
      if (!billId) invalid('billId is required');
      // A no-op is refused where a real cancel is (unknown or final bill); otherwise it answers the
      // record as cancelled while the book, and so the callbacks, stay as they were.
      const bill = core.book.pending(billId);
      if (roll(core.random, f.cancelNoOpRate)) return stated({ ...bill, status: 'cancelled', updatedAt: core.now() }, f);
      return stated(core.book.cancel(billId), f);
    }),
  );

  app.on(dialect.bind.method, dialect.bind.path, (c) =>
    operation(core, 'bind', c, (body) => ({ [dialect.bind.idField]: core.customers.bind(jsonBody(c.req.raw, body)) })),
  );

  return app;
}
