import { Hono } from 'hono';
import { returnToken } from '../create/hook-urls.js';
import { constantTimeEqual } from '../middleware/constant-time.js';
import type { Outcome } from '../../widget/bill-view.js';
import type { Services } from './services.js';

const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
  '<title>Not found</title><p>This payment link is not valid.</p></html>';

/** The customer's return from the pay page: a hint to requery, then on to RETURN_URL. */
export function returnRoutes(s: Services): Hono {
  const app = new Hono();

  app.get('/:ref/:returnToken', async (c) => {
    const { ref, returnToken: given } = c.req.param();
    const bill = await s.store.getByReference(ref);
    if (!bill || !constantTimeEqual(given, await returnToken(bill.hookToken))) return c.html(NOT_FOUND_PAGE, 404);
    let outcome: Outcome = 'pending';
    if (bill.billId !== null) {
      const result = await s.refresher.news(bill.billId).catch((error: unknown) => {
        s.log.warn('return: refresh failed', { billId: bill.billId, error });
        return null;
      });
      if (result?.confirmed) outcome = result.bill.outcome;
    }
    const target = new URL(s.config.returnUrl);
    if (bill.billId !== null) target.searchParams.set('billId', bill.billId);
    target.searchParams.set('outcome', outcome);
    c.header('Cache-Control', 'no-store');
    return c.redirect(target.toString(), 303);
  });

  return app;
}
