// createSandbox: a faithful simulation of the bill payment service as one Hono app.
import zlib from 'node:zlib';
import { Hono } from 'hono';
import { SANDBOX_DEMO_KEY, SANDBOX_DEMO_SECRET } from './credentials.js';
import { isDecimal } from '../contract/decimal.js';
import { BillBook, statusRecord } from './bills.js';
import { CallbackSender } from './callbacks.js';
import { MAX_CLOCK_OFFSET_MS, SandboxClock, parseClockOffset } from './clock.js';
import { controlRoutes } from './control.js';
import type { Core } from './core.js';
import { CustomerBook } from './customers.js';
import { resolveDialect } from './dialect.js';
import { failFrom } from './envelope.js';
import { mergeFaults, noFaults, parseFaults, shiftDateTime } from './faults.js';
import { payRoutes } from './pay-routes.js';
import { RateLimiter } from './rate-limit.js';
import { serviceRoutes } from './service-routes.js';
import { snapAuth } from './snap.js';
import { TimerSet } from './timers.js';
import { OPS, type Faults, type Op, type Sandbox, type SandboxOptions, type SandboxStats } from './types.js';

export {
  DEFAULT_DIALECT, SANDBOX_SIGNERS, resolveDialect, type Dialect, type DialectOptions, type SandboxSigner, type SignInput,
  type StatusCodes, type StatusKey,
} from './dialect.js';
export { rsaSha256Verifier } from './signature.js';
export { SNAP_TOKEN_PATH, type SnapMode } from './snap.js';
/** The header @hono/node-server reads as "answered already" (the connection-reset fault's Response). */
const ALREADY_SENT = 'x-hono-already-sent';

function compressed(plain: Uint8Array, coding: 'gzip' | 'deflate' | 'br'): ArrayBuffer {
  const bytes = coding === 'gzip' ? zlib.gzipSync(plain) : coding === 'deflate' ? zlib.deflateSync(plain) : zlib.brotliCompressSync(plain);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

export type {
  CallbackAttempt, Faults, LedgerEntry, Lie, Op, Refusal, Sandbox, SandboxClockState, SandboxOptions, SandboxStats, StatusRecordWire,
} from './types.js';

function perOp(): Record<Op, number> {
  return Object.fromEntries(OPS.map((op) => [op, 0])) as Record<Op, number>;
}

function emptyStats(): SandboxStats {
  return { calls: perOp(), throttled: perOp(), requeryByBill: {}, callbacks: [], tokensGranted: 0 };
}

/** The option's offset; a TypeError, as for the other malformed options. */
function initialOffset(ms: number | undefined): number {
  if (ms === undefined) return 0;
  if (!Number.isSafeInteger(ms) || Math.abs(ms) > MAX_CLOCK_OFFSET_MS) {
    throw new TypeError(`clockOffsetMs must be a whole number of milliseconds from -${MAX_CLOCK_OFFSET_MS} to ${MAX_CLOCK_OFFSET_MS}, got ${ms}`);
  }
  return ms;
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const startOffsetMs = initialOffset(options.clockOffsetMs);
  const clock = new SandboxClock(options.now ?? (() => Date.now()), startOffsetMs);
  const { now } = clock;
  const random = options.random ?? Math.random;
  const gcRate = options.gcRate ?? '0.0125';
  if (!isDecimal(gcRate)) throw new TypeError(`gcRate must be decimal text, got "${gcRate}"`);
  const snap = options.snap ? snapAuth(options.snap) : null;
  const dialect = resolveDialect(snap ? { ...options.dialect, sign: snap.verify, signHeader: 'X-SIGNATURE' } : options.dialect);
  const initialFaults = options.faults ? parseFaults(options.faults) : {};
  let faults: Faults = mergeFaults(noFaults(), initialFaults);
  let stats = emptyStats();
  const limiter = new RateLimiter(now);
  const events = new EventTarget();

  const callbacks = new CallbackSender({
    now,
    random,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    retryDelayMs: options.callbackRetryDelayMs ?? 1000,
    faults: () => faults,
    report: (attempt) => {
      stats.callbacks.push(attempt);
      events.dispatchEvent(new CustomEvent('callback', { detail: attempt }));
    },
  });

  const book = new BillBook({
    now,
    random,
    lifetimeMs: options.billLifetimeMs ?? 15 * 60_000,
    currency: options.currency ?? 'USD',
    gcRate,
    statusNames: dialect.statusNames,
    processingStep: () => faults.processingStep,
    onFinal: (bill) => callbacks.send(bill.callbackUrl, shiftDateTime(statusRecord(bill, dialect), faults.recordDateTimeOffsetMs)),
  });

  const customers = new CustomerBook();
  const responseTimers = new TimerSet();
  const core: Core = {
    key: options.key ?? SANDBOX_DEMO_KEY,
    secret: options.secret ?? SANDBOX_DEMO_SECRET,
    publicUrl: options.publicUrl?.replace(/\/+$/, '') ?? null,
    pageBase: options.pageBase ?? 1,
    dialect,
    now,
    random,
    book,
    customers,
    faults: () => faults,
    takeRefusal: (op) => {
      const [first, ...rest] = faults.refusals[op] ?? [];
      if (first) faults = { ...faults, refusals: { ...faults.refusals, [op]: rest } };
      return first;
    },
    takeCreateReset: () => {
      if (faults.createResetAfterMade <= 0) return false;
      faults = { ...faults, createResetAfterMade: faults.createResetAfterMade - 1 };
      return true;
    },
    get stats() {
      return stats;
    },
    limiter,
    timers: responseTimers,
    callbacks,
    createIds: snap ? { header: 'x-external-id', billIds: new Map() } : null,
  };

  const sweepMs = options.sweepIntervalMs ?? 1000;
  const sweepTimer = sweepMs > 0 ? setInterval(() => book.sweep(), sweepMs) : null;
  // Do not keep a Node process alive for the sweep alone (a no-op elsewhere).
  (sweepTimer as { unref?: () => void } | null)?.unref?.();

  const sandbox: Omit<Sandbox, 'app'> = {
    pay: (billId) => statusRecord(book.pay(billId), dialect),
    confirm: (billId) => statusRecord(book.confirm(billId), dialect),
    decline: (billId) => statusRecord(book.decline(billId), dialect),
    expire: (billId) => statusRecord(book.expire(billId), dialect),
    sweep: () => book.sweep(),
    setFaults: (f) => {
      faults = mergeFaults(faults, parseFaults(f));
    },
    resetFaults: () => {
      faults = noFaults();
    },
    faults: () => structuredClone(faults),
    stats: () => structuredClone(stats),
    clock: () => ({ now: now(), offsetMs: clock.offsetMs }),
    setClockOffset: (ms) => {
      clock.offsetMs = parseClockOffset(ms);
    },
    reset: () => {
      callbacks.stop();
      responseTimers.clear();
      book.clear();
      customers.clear();
      faults = noFaults();
      stats = emptyStats();
      limiter.clear();
      snap?.clear();
      core.createIds?.billIds.clear();
      clock.offsetMs = startOffsetMs;
    },
    forget: () => {
      // Every callback under way is of a forgotten bill.
      callbacks.stop();
      book.clear();
    },
    ledger: () => book.all().map((bill) => ({
      billId: bill.billId, merchantReference: bill.merchantReference, amount: bill.amount, createdAt: bill.createdAt, expiredOn: bill.expiredOn,
      history: bill.history.map((state) => ({ status: state.status, at: state.updatedAt })),
    })),
    events,
    idle: () => callbacks.idle(),
    close: () => {
      if (sweepTimer !== null) clearInterval(sweepTimer);
      callbacks.stop();
      responseTimers.clear();
    },
  };

  const app = new Hono();
  // Every answer is dated by the sandbox's clock, not by Node's (which adds the real time only
  // when a response has no Date of its own); dateHeaderOffsetMs makes the header alone wrong.
  app.use(async (c, next) => {
    await next();
    const date = new Date(now() + faults.dateHeaderOffsetMs).toUTCString();
    try {
      c.res.headers.set('date', date);
    } catch {
      // Immutable headers (e.g. Response.redirect): the same answer with copied headers.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set('date', date);
    }
  });
  // An edge that compresses whatever the client asked (the `compress` fault): the service's operations only.
  app.use('/v1/*', async (c, next) => {
    await next();
    const coding = faults.compress;
    if (coding === null || c.res.headers.has('content-encoding') || c.res.headers.has(ALREADY_SENT)) return;
    const plain = new Uint8Array(await c.res.arrayBuffer());
    if (plain.length === 0) return;
    const headers = new Headers(c.res.headers);
    headers.set('content-encoding', coding);
    headers.delete('content-length');
    c.res = new Response(compressed(plain, coding), { status: c.res.status, headers });
  });
  if (snap) {
    app.post(snap.tokenPath, async (c) => {
      const answer = await snap.token(c, core);
      if (answer.status === 200) stats.tokensGranted++;
      return answer;
    });
  }
  app.route('/', serviceRoutes(core));
  app.route('/pay', payRoutes(core));
  // Controls pay any bill without its page: only where the sandbox is a development tool.
  if (options.controls ?? true) app.route('/_control', controlRoutes(sandbox));
  // The sandbox's own refusals (a bad control body, an unknown bill) keep their code; anything else is internal.
  app.onError((err) => failFrom(err));

  return { ...sandbox, app };
}
