// GET /pay/:billId and the two buttons' form posts.
import { Hono } from 'hono';
import { type Bill, statusRecord } from './bills.js';
import type { Core } from './core.js';
import type { Dialect } from './dialect.js';
import { Code, SandboxError } from './envelope.js';
import { randomToken } from './ids.js';
import { headerLanguage, languageOf, type Language } from '../contract/languages.js';
import { payPageHeaders, renderNotFoundPage, renderPayPage } from './pay-page.js';

/** redirectUrl with billId, merchantReference and status set; its own query is kept. */
export function redirectTarget(bill: Bill, dialect: Pick<Dialect, 'statuses'>): string {
  const url = new URL(bill.redirectUrl);
  url.searchParams.set('billId', bill.billId);
  url.searchParams.set('merchantReference', bill.merchantReference);
  url.searchParams.set('status', String(dialect.statuses[bill.status]));
  return url.href;
}

/**
 * The customer's language, from the page's `lang` query parameter or the browser's Accept-Language;
 * `query` carries a valid `lang` on to the forms and back, '' when none was asked for.
 */
function language(req: Request): { lang: Language; query: string } {
  const asked = languageOf(new URL(req.url).searchParams.get('lang'));
  return {
    lang: asked ?? headerLanguage(req.headers.get('accept-language')),
    query: asked ? `?${new URLSearchParams({ lang: asked })}` : '',
  };
}

function notFound(req: Request): Response {
  const nonce = randomToken(12);
  const { lang } = language(req);
  return new Response(renderNotFoundPage(nonce, lang), { status: 404, headers: payPageHeaders(nonce, lang) });
}

function pagePath(req: Request, suffix = ''): string {
  const path = new URL(req.url).pathname;
  return path.slice(0, path.length - suffix.length).replace(/\/+$/, '');
}

export function payRoutes(core: Core): Hono {
  const app = new Hono();

  app.get('/:billId', (c) => {
    let bill: Bill;
    try {
      bill = core.book.get(c.req.param('billId'));
    } catch {
      return notFound(c.req.raw);
    }
    const nonce = randomToken(12);
    const { lang, query } = language(c.req.raw);
    const html = renderPayPage({
      record: statusRecord(bill, core.dialect),
      state: bill.status,
      requireGCAmount: bill.requireGCAmount,
      msLeft: bill.expiredOn - core.now(),
      pagePath: pagePath(c.req.raw),
      returnUrl: redirectTarget(bill, core.dialect),
      nonce,
      lang,
      langQuery: query,
    });
    return new Response(html, { status: 200, headers: payPageHeaders(nonce, lang) });
  });

  for (const action of ['pay', 'decline'] as const) {
    app.post(`/:billId/${action}`, (c) => {
      try {
        const bill = core.book[action](c.req.param('billId'));
        return c.redirect(redirectTarget(bill, core.dialect), 303);
      } catch (err) {
        // Already final or expired: back to the page, which shows the bill's state.
        if (err instanceof SandboxError && err.code === Code.notCancellable) {
          return c.redirect(pagePath(c.req.raw, `/${action}`) + language(c.req.raw).query, 303);
        }
        return notFound(c.req.raw);
      }
    });
  }

  return app;
}
