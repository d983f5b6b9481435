import { Hono } from 'hono';
import { z } from 'zod';
import { returnToken } from '../../domain/create/hook-urls.js';
import { isServiceId } from '../../../contract/ids.js';
import { constantTimeEqual } from '../constant-time.js';
import type { Outcome } from '../../../contract/bill-view.js';
import type { StoredBill } from '../../store/types.js';
import { stampPageSecurity } from '../middleware/security-headers.js';
import { headerLanguage } from '../../../contract/languages.js';
import { STORE_RETRY_AFTER_SECONDS } from '../json-errors.js';
import { returnPage } from '../return-page.js';
import { StoreUnavailableError } from '../../store/errors.js';
import type { Services } from '../services.js';
import { STARTED_COOKIE, startedHere } from '../started-here.js';

const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
  '<title>Not found</title><p>This payment link is not valid.</p></html>';

const WAIT_PAGE =
  '<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
  `<meta http-equiv="refresh" content="${STORE_RETRY_AFTER_SECONDS}"><title>One moment</title>` +
  '<p>We are confirming your payment. This page will try again in a few seconds.</p></html>';

/** The return's URL: the bill's merchantReference and its return token (checked before anything else). */
export const returnParams = z.object({
  ref: z.string().describe("The bill's merchantReference"),
  returnToken: z.string().describe("The bill's return token"),
});
/** The mark of the browser that started the bill (started-here.ts). */
export const returnCookies = z.object({
  [STARTED_COOKIE]: z.enum(['1']).optional().describe("Set by the create, the bill's read, its pay link or its status page: this browser started the bill, or was shown it"),
});

/** Bills whose return asked the service lately, and when: kept to one window, at most this many. */
const MAX_REMEMBERED = 10_000;

/**
 * The customer's return from the pay page: news like the callback (the payment may just have
 * landed, so it asks the service even if a poll did a moment ago), but a hint anyone can repeat: it
 * asks at most once per bill per refresh window (however often the URL is opened) and never retries
 * on its own behalf. Then, with the outcome it knows: the browser that started the bill (its
 * cookie, started-here.ts: it created the bill or was shown it) on to RETURN_URL; another device
 * to RETURN_OTHER_DEVICE_URL, or a page of ours that says what happened (return-page.ts).
 */
export function returnRoutes(s: Services): Hono {
  const app = new Hono();
  const askedAt = new Map<string, number>();

  /** Whether this return may ask the service now; remembers that it did. */
  function mayAsk(billId: string): boolean {
    const now = s.now();
    const last = askedAt.get(billId);
    if (last !== undefined && now - last < s.config.refreshWindowMs) return false;
    if (askedAt.size >= MAX_REMEMBERED) {
      for (const [id, at] of askedAt) if (now - at >= s.config.refreshWindowMs) askedAt.delete(id);
      // 10,000 bills returning within one window: the oldest is forgotten.
      if (askedAt.size >= MAX_REMEMBERED) askedAt.delete(askedAt.keys().next().value!);
    }
    askedAt.delete(billId);
    askedAt.set(billId, now);
    return true;
  }

  app.get('/:ref/:returnToken', async (c) => {
    const { ref, returnToken: given } = c.req.param();
    let bill: StoredBill | null;
    try {
      bill = isServiceId(ref) ? await s.store.getByReference(ref) : null;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      // A customer back from paying while the database is out of reach: a page, not JSON, that
      // comes back by itself once the outage is over (the payment is found then, never lost).
      s.log.warn('return: the store does not answer; the customer is asked to wait', { error });
      c.header('Cache-Control', 'no-store');
      c.header('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
      return c.html(WAIT_PAGE, 503);
    }
    if (!bill || !constantTimeEqual(given, await returnToken(bill.hookToken))) return c.html(NOT_FOUND_PAGE, 404);
    const started = startedHere(c);
    // Development: the bill was shown on another loopback name than PUBLIC_URL's, where its mark is.
    // Once, before asking the service: the return there decides, and goes no farther.
    const there = started ? null : s.started.elsewhere(c, bill.merchantReference);
    if (there !== null) {
      c.header('Cache-Control', 'no-store');
      return c.redirect(there, 303);
    }
    let outcome: Outcome = 'pending';
    let known: StoredBill = bill;
    if (bill.billId !== null) {
      const billId = bill.billId;
      // News, within the return's own limit: once per bill per refresh window, never retried.
      const ask = (id: string) => (mayAsk(id)
        ? s.refresher.news(id, { retry: false, reason: 'return' })
        : s.refresher.read(id, undefined, undefined, { retry: false, reason: 'return' }));
      const result = await ask(billId).catch((error: unknown) => {
        s.log.warn('return: refresh failed', { billId: bill.billId, error });
        return null;
      });
      // Back from paying, and the service does not say so yet: asked again soon, within the same limit.
      if (!result?.bill.isFinal) s.followUps.afterNews(billId, async (id) => (await ask(id))?.bill ?? null);
      if (result?.confirmed) {
        outcome = result.bill.outcome;
        known = result.bill;
      }
    }
    c.header('Cache-Control', 'no-store');
    const params: [string, string][] = [];
    if (bill.billId !== null) params.push(['billId', bill.billId]);
    if (bill.orderId !== null) params.push(['orderId', bill.orderId]);
    params.push(['outcome', outcome]);
    if (started) return c.redirect(withParams(s.started.returnUrl(c), params), 303);
    // Another device (a phone that scanned the QR code): the merchant's page for it, or ours. Never
    // the merchant's checkout page, which would greet it with a fresh cart.
    if (s.config.returnOtherDeviceUrl !== null) {
      return c.redirect(withParams(s.config.returnOtherDeviceUrl, [...params, ['device', 'other']]), 303);
    }
    const page = await returnPage({
      outcome,
      amount: known.amount,
      currency: known.currency,
      merchantReference: known.merchantReference,
      language: headerLanguage(c.req.header('accept-language')),
      testMode: s.config.embeddedSandbox,
    });
    stampPageSecurity(c);
    c.header('Content-Security-Policy', page.csp);
    c.header('X-Frame-Options', 'DENY');
    return c.html(page.html, 200);
  });

  return app;
}

function withParams(url: string, params: [string, string][]): string {
  const target = new URL(url);
  for (const [name, value] of params) target.searchParams.set(name, value);
  return target.toString();
}
