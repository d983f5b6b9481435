import { Hono } from 'hono';
import { z } from 'zod';
import { isServiceId } from '../../../contract/ids.js';
import { StoreUnavailableError } from '../../store/errors.js';
import { constantTimeEqual } from '../constant-time.js';
import type { Ok } from '../api-schemas.js';
import { CheckoutError } from '../../domain/errors.js';
import type { Services } from '../services.js';
import { adoptCalledBack } from '../../domain/create/create-outcome.js';

const OK: Ok = { ok: true };

/** The callback's URL: the bill's merchantReference and its callback token (checked before anything else). */
export const callbackPath = z.object({
  ref: z.string().describe("The bill's merchantReference"),
  hookToken: z.string().describe("The bill's callback token"),
});

/** What the route reads of a callback's body: only `billId`. */
export const callbackHint = z.looseObject({
  billId: z.union([z.string(), z.number()]).optional().describe('When present and not the bill of this URL, the callback is refused (400)'),
}).describe('Whatever the service sends (a status record, in the spec). It is a hint that triggers a requery and never sets a status: only `billId` is read, leniently; a body that is not JSON is ignored');

/** The billId a callback body claims, if any: the body is only a hint, read leniently. */
function claimedBillId(text: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: still news.
    return null;
  }
  // Not an object, or a billId of another type: no claim, and still news.
  const hint = callbackHint.safeParse(body);
  return hint.success && hint.data.billId !== undefined ? String(hint.data.billId) : null;
}

/** The service's callback: news that triggers a requery; its body never sets a status. */
export function callbackRoutes(s: Services): Hono {
  const app = new Hono();

  /** The store out of reach: the service is asked to try again (any other failure is the app's own 500). */
  const unavailable = (error: unknown): never => {
    if (!(error instanceof StoreUnavailableError)) throw error;
    s.log.error('callback: store unavailable', { error });
    s.metrics.callback('store_unavailable');
    throw new CheckoutError('busy', 'store_unavailable', 'Try again later.');
  };

  app.post('/:ref/:hookToken', async (c) => {
    const { ref, hookToken } = c.req.param();
    const forged = () => {
      s.metrics.callback('refused_forged');
      return new CheckoutError('not_found', 'not_found', 'No such bill.');
    };
    if (!isServiceId(ref)) throw forged();
    let bill = await s.store.getByReference(ref).catch(unavailable);
    if (!bill || !constantTimeEqual(hookToken, bill.hookToken)) throw forged();
    const claimed = claimedBillId(await c.req.text().catch(() => ''));
    // A bill under our reference that we do not hold there: an orphan of a create that ended
    // without its answer, or a second bill of one create. Kept once the service confirms it.
    if (claimed !== null && (bill.createState === 'failed' || (bill.billId !== null && claimed !== bill.billId))) {
      const adopted = await adoptCalledBack(ref, claimed, { upstream: s.upstream, store: s.store, alerts: s.alerts, now: s.now, log: s.log })
        .catch(unavailable);
      if (!adopted) {
        s.metrics.callback('refused_mismatch');
        throw new CheckoutError('invalid', 'bill_mismatch', 'The callback names another bill.');
      }
      bill = adopted;
    } else if (bill.createState === 'failed') {
      // A create we settled as failed, and the callback names no bill: nothing to learn, stop the retries.
      s.metrics.callback('accepted');
      return c.json(OK);
    }
    if (bill.billId === null) {
      // The service called back before its create answer arrived: kept as news (durably, so the
      // process that gets the answer asks at once, whichever it is), and acknowledged.
      const after = await s.store.recordEarlyNews(ref, s.now()).catch(unavailable);
      if (after?.billId === null || after?.billId === undefined) {
        s.metrics.callback('early');
        s.log.info('callback before the create answer: recorded', { merchantReference: ref });
        return c.json(OK);
      }
      bill = after;
    }
    const billId = bill.billId!;
    if (claimed !== null && claimed !== billId) {
      s.metrics.callback('refused_mismatch');
      throw new CheckoutError('invalid', 'bill_mismatch', 'The callback names another bill.');
    }
    const known = bill;
    const result = await s.refresher.news(billId, { reason: 'callback', known }).catch((error: unknown) => {
      s.log.error('callback: refresh failed', { billId, error });
      return null;
    });
    // The service says final; its requery may not say so yet (a replica behind): asked again soon.
    if (!result?.bill.isFinal) s.followUps.afterNews(billId);
    // Only a status stored durably is acknowledged; anything else makes the service retry.
    if (!result?.confirmed) {
      s.metrics.callback('not_confirmed');
      throw new CheckoutError('busy', 'not_confirmed', 'The bill could not be checked; try again later.');
    }
    s.metrics.callback('accepted');
    s.log.info('callback handled', { billId, outcome: result.bill.outcome });
    return c.json(OK);
  });

  return app;
}
