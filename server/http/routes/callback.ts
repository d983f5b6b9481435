import { Hono } from 'hono';
import { constantTimeEqual } from '../constant-time.js';
import { ApiError } from '../errors.js';
import type { Services } from '../services.js';

/** The billId a callback body claims, if any: the body is only a hint, read leniently. */
function claimedBillId(text: string): string | null {
  try {
    const body = JSON.parse(text) as unknown;
    if (typeof body === 'object' && body !== null && 'billId' in body) {
      const { billId } = body as { billId: unknown };
      if (typeof billId === 'string' || typeof billId === 'number') return String(billId);
    }
  } catch {
    // Not JSON: still news.
  }
  return null;
}

/** The service's callback: news that triggers a requery; its body never sets a status. */
export function callbackRoutes(s: Services): Hono {
  const app = new Hono();

  app.post('/:ref/:hookToken', async (c) => {
    const { ref, hookToken } = c.req.param();
    let bill;
    try {
      bill = await s.store.getByReference(ref);
    } catch (error) {
      s.log.error('callback: store unavailable', { error });
      s.metrics.callback('store_unavailable');
      throw new ApiError(503, 'store_unavailable', 'Try again later.');
    }
    if (!bill || !constantTimeEqual(hookToken, bill.hookToken)) {
      s.metrics.callback('refused_forged');
      throw new ApiError(404, 'not_found', 'No such bill.');
    }
    // A create we settled as failed (its orphan was withdrawn): nothing to learn, stop the retries.
    if (bill.createState === 'failed') {
      s.metrics.callback('accepted');
      return c.json({ ok: true });
    }
    if (bill.billId === null) {
      s.metrics.callback('not_ready');
      throw new ApiError(503, 'not_ready', 'This bill is still being created; try again later.');
    }
    const claimed = claimedBillId(await c.req.text().catch(() => ''));
    if (claimed !== null && claimed !== bill.billId) {
      s.metrics.callback('refused_mismatch');
      throw new ApiError(400, 'bill_mismatch', 'The callback names another bill.');
    }
    const result = await s.refresher.news(bill.billId, { reason: 'callback', known: bill }).catch((error: unknown) => {
      s.log.error('callback: refresh failed', { billId: bill.billId, error });
      return null;
    });
    // Only a status stored durably is acknowledged; anything else makes the service retry.
    if (!result?.confirmed) {
      s.metrics.callback('not_confirmed');
      throw new ApiError(503, 'not_confirmed', 'The bill could not be checked; try again later.');
    }
    s.metrics.callback('accepted');
    s.log.info('callback handled', { billId: bill.billId, outcome: result.bill.outcome });
    return c.json({ ok: true });
  });

  return app;
}
