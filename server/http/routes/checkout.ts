// The server-rendered checkout's routes, beside the bill's others under /api/bills/:billId (each
// with the bill's token; a wrong one answers the same 404 as no bill: an HTML page on the HTML
// routes, 404 not_found on the images):
// - checkout.html: the fragment of renderCheckout, for a merchant's server to put in its page;
// - qr.svg, qr.png: the QR code of billUrl as images (print, e-mail), privately cacheable; a URL
//   too long for one QR code answers 404 qr_too_long (checkout.html shows its pay link instead);
// - status.html: what became of the payment, for a customer without JavaScript;
// - pay: the pay link of checkout.html, through the BFF: it marks the browser as the one that
//   started the bill (started-here.ts), so that its return goes on to RETURN_URL, then sends it to
//   billUrl; it answers the status page when there is nothing left to pay there.
import { Hono } from 'hono';
import type { Context } from 'hono';
import { z } from 'zod';
import { acceptedLanguages, headerLanguage } from '../../../contract/languages.js';
import type { CachedBill } from '../../domain/status/bill-cache.js';
import { billForToken } from '../bill-access.js';
import { CheckoutError } from '../../domain/errors.js';
import { stampPageSecurity } from '../middleware/security-headers.js';
import { billServiceNow, stampBillServiceTime } from '../middleware/server-time.js';
import { checkoutLanguage, checkoutStyleHash, renderCheckout, safeUrl } from '../render/checkout.js';
import { QR_MAX_BYTES, qrBytes, qrCode, qrFits, qrPng, qrSvg } from '../render/qr-images.js';
import { NOT_FOUND_CSP, notFoundPage, statusPage } from '../render/status-page.js';
import type { Services } from '../services.js';

/** The query of checkout.html besides the token, as the OpenAPI description publishes it. */
export const checkoutQuery = z.object({
  locale: z.string().optional().describe('BCP 47 locale of the texts and amounts; the first of Accept-Language when absent'),
  mode: z.enum(['qr', 'button']).optional().describe('`qr` (default): the QR code; `button`: the pay link (phones)'),
});

/** How long a browser may keep a bill's QR image (it never changes for a bill; the URL holds the token: private only). */
const QR_MAX_AGE_S = 3600;

function isNotFound(error: unknown): boolean {
  return error instanceof CheckoutError && error.kind === 'not_found';
}

export function checkoutRoutes(s: Services): Hono {
  const app = new Hono();
  const serviceNow = s.upstream.clock ? () => s.upstream.clock!.now() : undefined;

  /** The bill, and a requery behind the answer when it is older than the window (as a status read). */
  async function known(c: Context): Promise<CachedBill> {
    const found = await billForToken(c, s);
    s.refresher.refreshBehind(found.bill, 'poll');
    s.followUps.watchExpiry(found.bill);
    return found;
  }

  /** An HTML route: a wrong token or an unknown bill answers an HTML 404 page in the customer's language. */
  const page = (handler: (c: Context, found: CachedBill) => Promise<Response>) => async (c: Context) => {
    let found: CachedBill;
    try {
      found = await known(c);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      stampPageSecurity(c);
      c.header('Content-Security-Policy', NOT_FOUND_CSP);
      return c.html(notFoundPage(headerLanguage(c.req.header('accept-language'))), 404);
    }
    return handler(c, found);
  };

  const noImage = () => new CheckoutError('not_found', 'not_found', 'No such bill.');

  /**
   * An image route, given the bill's URL as the element shows it (and encodes it): a wrong token or
   * an unknown bill answers 404 not_found, as a bill without a URL to show; a URL too long for one
   * QR code, 404 qr_too_long.
   */
  const image = (handler: (c: Context, url: string) => Promise<Response>) => async (c: Context) => {
    let found: CachedBill;
    try {
      found = await billForToken(c, s);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      throw noImage();
    }
    // The image of a bill whose URL is not one to send a customer to is none.
    const url = safeUrl(found.view.billUrl);
    if (url === null) throw noImage();
    if (!qrFits(url)) {
      // Not an error of ours, nor a bill's absence: the bill is payable through its link.
      throw new CheckoutError('not_found', 'qr_too_long',
        `The bill's URL is too long for a QR code (${qrBytes(url)} bytes encoded, at most ${QR_MAX_BYTES}); pay through the link.`);
    }
    c.header('Cache-Control', `private, max-age=${QR_MAX_AGE_S}`);
    c.header('Content-Security-Policy', "default-src 'none'");
    return handler(c, url);
  };

  app.get('/:billId/checkout.html', page(async (c, found) => {
    const query = checkoutQuery.safeParse(c.req.query());
    const asked = query.success ? query.data : {};
    const [first] = acceptedLanguages(c.req.header('accept-language'));
    const locale = asked.locale ?? (first && first !== '*' ? first : 'en');
    const endpoint = `${s.config.publicUrl}/api`;
    const html = await renderCheckout(found.view, {
      token: c.req.query('token')!,
      endpoint,
      locale,
      mode: asked.mode ?? 'qr',
      // The bill's own time (its lifetime as judged at create), as its countdown runs by.
      now: billServiceNow(found.bill, s.now, serviceNow),
    });
    stampBillServiceTime(c, found.bill, s.now, serviceNow);
    // A fragment for the merchant's page; opened by itself, nothing runs and only its style applies.
    // The policy names the style's hash, which the merchant's page adds to its own style-src.
    c.header('Content-Security-Policy', `default-src 'none'; style-src ${await checkoutStyleHash()}; base-uri 'none'; form-action 'none'`);
    // The fragment's own language, decided as renderCheckout decides it (never a second reading of the tag).
    c.header('Content-Language', checkoutLanguage(locale));
    c.header('Vary', 'Accept-Language');
    return c.html(html, 200);
  }));

  /** The status page of the bill; opened by the checkout's links, on the device that shows it, which it marks. */
  const status = async (c: Context, found: CachedBill) => {
    const view = found.view;
    s.started.mark(c, found.bill);
    const result = await statusPage({
      bill: view,
      language: headerLanguage(c.req.header('accept-language')),
      payUrl: view.isFinal ? null : safeUrl(view.billUrl),
    });
    stampPageSecurity(c);
    c.header('Content-Security-Policy', result.csp);
    c.header('X-Frame-Options', 'SAMEORIGIN');
    return c.html(result.html, 200);
  };

  app.get('/:billId/status.html', page(status));

  app.get('/:billId/pay', page(async (c, found) => {
    const view = found.view;
    // Only to a page a browser may be sent to (billUrl as the element checks it, http(s) only); a
    // paid bill being confirmed is not paid twice: the status page says what became of it.
    const url = view.isFinal || view.processing === true ? null : safeUrl(view.billUrl);
    if (url === null) return status(c, found);
    s.started.mark(c, found.bill);
    return c.redirect(url, 303);
  }));

  app.get('/:billId/qr.svg', image(async (c, url) => {
    c.header('Content-Type', 'image/svg+xml');
    return c.body(qrSvg(qrCode(url)), 200);
  }));

  app.get('/:billId/qr.png', image(async (c, url) => {
    c.header('Content-Type', 'image/png');
    return c.body((await qrPng(qrCode(url))).buffer, 200);
  }));

  return app;
}
